"""``elfenland play``: a whole game between bots, told round by round in the terminal.

It needs neither a server nor a browser, so it is the quickest way to see an engine
work and to watch the bots play.
"""

from __future__ import annotations

import argparse
from typing import Any

import elfenland

from .bots import BOT_LEVELS, make_bot
from .bots.levels import seat_levels
from .games.command_line import add_rule_arguments, options_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="elfenland", help=", ".join(sorted(elfenland.GAMES)))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    add_rule_arguments(parser)
    parser.add_argument("--bots", default="random",
                        help=f"comma-separated bot levels, one per seat or one for all "
                             f"({', '.join(sorted(BOT_LEVELS))})")
    parser.add_argument("--verbose", action="store_true", help="print every action")


def run(args: argparse.Namespace) -> int:
    try:
        options = options_from_args(args.game, args)
        state = elfenland.new_game(game=args.game, players=args.players, seed=args.seed,
                                   **options)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    try:
        levels = seat_levels(args.bots, state.game_name, args.players)
        bots = [make_bot(level, state.game_name, args.seed * 100 + i)
                for i, level in enumerate(levels)]
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    print(f"{state.game_name}, {args.players} players, seed {args.seed}: "
          + ", ".join(f"seat {i} {lvl}" for i, lvl in enumerate(levels)))
    round_no = 0
    seen = 0
    while not state.is_terminal():
        view = state.view(None)
        if view["round"] != round_no:
            if round_no:
                _summary(state.view(None))
            round_no = view["round"]
            print(f"\n== Round {round_no} ==")
        player = state.current_player()
        state.apply_action(bots[player].choose(state))
        log = state.view(None)["log"]
        for entry in log[seen:]:
            if args.verbose or _notable(entry["action"]):
                extra = f" ({entry['counter']})" if "counter" in entry else ""
                print(f"  seat {entry['player']}: {entry['action']}{extra}")
        seen = len(log)
    final = state.view(None)
    _summary(final)
    print("\nFinal scores: " + ", ".join(f"seat {p} {s}" for p, s in enumerate(state.scores())))
    winners = state.winners()
    print(("Winner: seat " if len(winners) == 1 else "Shared win: seats ")
          + ", ".join(str(w) for w in winners))
    return 0


def _notable(action: str) -> bool:
    """Without --verbose, only what moves pieces on the table is told."""
    return action.split()[0] in {"place", "obstacle", "move", "play", "visit", "remove"}


def _summary(view: dict[str, Any]) -> None:
    parts = []
    for p in view["players"]:
        if "markers" in p:
            parts.append(f"seat {p['seat']}: {p['markers']} towns, in {p['boot']}")
        else:
            parts.append(f"seat {p['seat']}")
    print("  -- " + "; ".join(parts))
