"""The rule options a command line asks for (``elfenland play`` and ``elfenland
tournament``): one declaration of the arguments and one reading of them, checked
against the game's option specification before any game starts, so that both commands
accept and refuse the same things with the same words."""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from ..core.errors import ElfenlandError
from ..core.options import OptionValue
from .registry import game_info


def add_rule_arguments(parser: argparse.ArgumentParser) -> None:
    """``--rules``, ``--destination`` and ``--option NAME=VALUE`` (repeatable)."""
    parser.add_argument("--rules", default=None,
                        help="the game's rule set (Elfenland: amigo or moon)")
    parser.add_argument("--destination", action="store_true",
                        help="Elfenland's town-card variant")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule option of the game, e.g. rounds=3 or magic_spell=true "
                             "(repeatable; a wrong name lists the game's options)")


def rule_options(game: str, rules: str | None = None, destination: bool = False,
                 assignments: Iterable[str] = ()) -> dict[str, OptionValue]:
    """The options for ``new_game`` that ``--rules``, ``--destination`` and the
    ``--option`` assignments ask for, each checked (``ElfenlandError`` naming what the
    game allows).  ``--destination`` is Elfenland's own option (``destination=true``)."""
    info = game_info(game)
    spec = info.options
    options = spec.parse(assignments)
    if rules is not None:
        if rules not in spec.rule_sets:
            raise ElfenlandError(f"{info.title} has no rule set {rules!r}; choose one of "
                                 f"{sorted(spec.rule_sets)}")
        options = {"rules": rules, **options}
    if destination:
        if "destination" not in spec:
            raise ElfenlandError(f"--destination is an Elfenland option, not {info.title}'s")
        options["destination"] = True
    return options


def options_from_args(game: str, args: argparse.Namespace) -> dict[str, OptionValue]:
    """``rule_options`` of the arguments ``add_rule_arguments`` declared."""
    return rule_options(game, args.rules, bool(args.destination), args.option or ())
