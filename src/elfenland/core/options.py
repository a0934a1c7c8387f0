"""Each game declares its rule options once, as an ``OptionSpec`` (OpenSpiel's
``parameter_specification``): name, type, default, allowed range or values, and the named
rule sets that fix some of them.  The engine, the server's request validation, the lobby
form, the research adapters and the docs all read that one declaration, so an option
cannot be accepted in one place and refused (or read differently) in another.

Ranges are deliberately narrow: a count or a number of rounds above ``MAX_COUNT`` or gold
above ``MAX_GOLD`` is never a game anyone plays, and keeping every value far inside a C
``int`` means the compiled and the pure engines can never disagree about it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .errors import ElfenlandError

OptionValue: TypeAlias = bool | int | str
OptionKind: TypeAlias = Literal["bool", "int", "str"]

#: Upper bound for any count (cards, counters, rounds, draws) an option may set.
MAX_COUNT = 1_000
#: Upper bound for any amount of gold or coins an option may set.
MAX_GOLD = 1_000_000_000


#: How a command line may spell a bool option's two values.
_BOOL_WORDS: dict[str, bool] = {"true": True, "yes": True, "on": True, "1": True,
                                "false": False, "no": False, "off": False, "0": False}


class OptionError(ElfenlandError):
    """A rule option that the game does not have, or a value outside its declared range."""


@dataclass(frozen=True, slots=True)
class Option:
    """One rule option.  ``low``/``high`` bound an ``int``; ``choices`` list a ``str``'s
    values.  ``doc`` is one line for the lobby form and the docs."""

    name: str
    kind: OptionKind
    default: OptionValue
    doc: str = ""
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind == "int" and (self.low is None or self.high is None):
            raise ValueError(f"option {self.name}: an int option needs low and high")
        if self.kind == "str" and not self.choices:
            raise ValueError(f"option {self.name}: a str option needs its choices")
        self.check(self.default)

    def allowed(self) -> str:
        """The allowed values in words, for error messages and the docs."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "int":
            return f"an integer from {self.low} to {self.high}"
        return "one of " + ", ".join(repr(c) for c in self.choices)

    def check(self, value: object) -> OptionValue:
        """``value`` if it is of this option's type and in its range, else ``OptionError``.
        Types are strict: ``"no"`` is not a bool, ``True`` is not an int, ``2.0`` is not
        an int."""
        ok = False
        if self.kind == "bool":
            ok = isinstance(value, bool)
        elif self.kind == "int":
            ok = (isinstance(value, int) and not isinstance(value, bool)
                  and self.low is not None and self.high is not None
                  and self.low <= value <= self.high)
        else:
            ok = isinstance(value, str) and value in self.choices
        if not ok:
            raise OptionError(f"option {self.name} must be {self.allowed()}, not {value!r}")
        assert isinstance(value, bool | int | str)
        return value

    def parse(self, text: str) -> OptionValue:
        """The value a command line or a form spells as ``text``, checked.  A bool is
        ``true``/``false`` (also ``yes``/``no``, ``on``/``off``, ``1``/``0``); an int in
        decimal; a str one of its choices."""
        word = text.strip()
        value: object = word
        if self.kind == "bool":
            value = _BOOL_WORDS.get(word.lower(), word)
        elif self.kind == "int" and word.lstrip("+-").isdecimal():
            value = int(word)  # anything else is refused below, with the allowed range
        return self.check(value)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"name": self.name, "type": self.kind, "default": self.default,
                               "doc": self.doc}
        if self.kind == "int":
            doc["min"], doc["max"] = self.low, self.high
        if self.kind == "str":
            doc["choices"] = list(self.choices)
        return doc


@dataclass(frozen=True)
class OptionSpec:
    """A game's options.  ``rule_sets`` maps each named rule set to the values it fixes
    (options it does not name take their ``Option.default``); ``variants`` are options a
    player may switch on a standard rule set without leaving it (a rated game may use
    them).  Anything else changed makes a game "custom": playable, never rated."""

    game: str
    options: tuple[Option, ...]
    rule_sets: Mapping[str, Mapping[str, OptionValue]] = field(default_factory=dict)
    variants: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.game}: an option is declared twice")
        for rule_set, values in self.rule_sets.items():
            for name, value in values.items():
                try:
                    self[name].check(value)
                except (KeyError, OptionError) as exc:
                    raise ValueError(f"{self.game} rule set {rule_set}: {exc}") from None

    def __iter__(self) -> Iterator[Option]:
        return iter(self.options)

    def __getitem__(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return any(o.name == name for o in self.options)

    def names(self) -> list[str]:
        return [o.name for o in self.options]

    def rule_set(self, name: str) -> dict[str, OptionValue]:
        """Every option's value under the named rule set."""
        if name not in self.rule_sets:
            raise OptionError(f"unknown rule set {name!r}; choose one of "
                              f"{sorted(self.rule_sets)}")
        fixed = self.rule_sets[name]
        return {o.name: fixed.get(o.name, o.default) for o in self.options}

    def check(self, options: Mapping[str, object]) -> dict[str, OptionValue]:
        """The options checked one by one: an unknown name or a value out of range raises
        ``OptionError`` naming the option and what it may be."""
        checked: dict[str, OptionValue] = {}
        for name, value in options.items():
            if name not in self:
                raise OptionError(f"unknown option {name!r}: {self.game}'s options are "
                                  f"{', '.join(self.names())}")
            checked[name] = self[name].check(value)
        return checked

    def parse(self, assignments: Iterable[str]) -> dict[str, OptionValue]:
        """``["rounds=3", "witch=true"]`` (the command line's ``--option``) as checked
        values; a malformed or unknown assignment raises ``OptionError``."""
        parsed: dict[str, OptionValue] = {}
        for text in assignments:
            name, sep, value = text.partition("=")
            name = name.strip()
            if not sep or not name:
                raise OptionError(f"an option is NAME=VALUE, not {text!r}")
            if name not in self:
                raise OptionError(f"unknown option {name!r}: {self.game}'s options are "
                                  f"{', '.join(self.names())}")
            parsed[name] = self[name].parse(value)
        return parsed

    def is_standard(self, rule_set: str, options: Mapping[str, object]) -> bool:
        """Whether ``options`` on ``rule_set`` leave the rule set as it is (variants
        aside): the games that may be rated."""
        if rule_set not in self.rule_sets:
            return False
        base = self.rule_set(rule_set)
        return all(name in self.variants or base.get(name) == value
                   for name, value in options.items())

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "options": [o.to_json() for o in self.options],
                "rule_sets": {k: dict(v) for k, v in self.rule_sets.items()},
                "variants": sorted(self.variants)}
