"""The ``elfenland`` command: ``serve``, ``play``, ``tournament``.

Each subcommand lives with the layer it drives and is imported only when used, so
``elfenland play`` works without the server's dependencies being imported.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

#: subcommand -> (module, help).  The module offers ``add_arguments(parser)`` and
#: ``run(args) -> int``.
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("elfenland.server.main", "run the game server (lobby, live play, browser UI)"),
    "cluster": ("elfenland.server.cluster",
                "run several server processes and HAProxy in front (PostgreSQL)"),
    "play": ("elfenland.terminal", "play a whole game between bots in the terminal"),
    "tournament": ("elfenland.bots.tournament", "play many seeded bot games and rate the bots"),
}


#: What ``elfenland --help`` says first (the module's docstring is for developers).
DESCRIPTION = ("Elfenland, King of the Elves and Elfengold: play them in the browser "
               "(serve, cluster), watch bots play one game (play) or rate bots over many "
               "(tournament). 'elfenland COMMAND --help' tells a command's options.")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elfenland", description=DESCRIPTION)
    from . import __version__

    parser.add_argument("--version", action="version", version=f"elfenland {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    args_list = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in args_list if not a.startswith("-")), None)
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        if name == chosen:
            import_module(module).add_arguments(p)
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 2
    return int(import_module(COMMANDS[args.command][0]).run(args))


if __name__ == "__main__":
    sys.exit(main())
