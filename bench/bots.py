"""Bot strength and speed, for both games: prints the figures the README's table quotes.

    python bench/bots.py                  # 200 games per match, as the issue asks
    python bench/bots.py --games 20       # a quick look
    python bench/bots.py --workers 2 --only planner
    python bench/bots.py --workers 2 --only matches --game elfenland --match search-greedy

Matches (four players, seats rotated, seeds 1..games): greedy against three random bots,
search against three greedy bots; then the planner's median and worst time over 1,000
move-phase positions taken from real bot games (greedy and random players, both rule
sets), and the King of the Elves journey planner's over 1,000 journey positions (from
``bench/bots_kingelves.py``, which also has its own match runner with wall-time budgets).
Times are CPU seconds of the deciding process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import elfenland
from elfenland.bots import BOT_LEVELS, make_bot
from elfenland.bots.planner import plan_journey
from elfenland.bots.tournament import Config, ProgressBar, format_table, run_games, summarise
from elfenland.core.errors import ElfenlandError
from elfenland.games.elfenland.state import ElfenlandState, Phase

MATCHES = (("greedy", "random", 0.90), ("search", "greedy", 0.40))


def has_bot(level: str, game: str) -> bool:
    try:
        make_bot(level, game, 0)
    except ElfenlandError:
        return False
    return level in BOT_LEVELS


def match(game: str, me: str, them: str, games: int, workers: int,
          search_seconds: float | None) -> None:
    config = Config(game, 4, (me, them, them, them), games, 1, None, False,
                    search_seconds, None)
    bar = ProgressBar(games)
    started = time.perf_counter()
    results = run_games(config, workers, bar)
    bar.close()
    rows = summarise(config, results)
    print(f"\n{game}: {me} vs 3 {them}, {games} games "
          f"({time.perf_counter() - started:.0f} s wall)")
    print(format_table(rows))
    sys.stdout.flush()


def planner_positions(count: int) -> list[ElfenlandState]:
    """Move-phase positions (before any discard) met in real four-player bot games."""
    out: list[ElfenlandState] = []
    seed = 0
    while len(out) < count:
        rules = ("amigo", "moon")[seed % 2]
        state = elfenland.new_game("elfenland", players=4, seed=1000 + seed, rules=rules)
        assert isinstance(state, ElfenlandState)
        bots = [make_bot("greedy" if p % 2 == 0 else "random", "elfenland", seed * 8 + p)
                for p in range(4)]
        while not state.is_terminal() and len(out) < count:
            if state.phase is Phase.MOVE and not state.discarding:
                out.append(state.clone())
            state.apply_action(bots[state.current_player()].choose(state))
        seed += 1
    return out


def planner_times(count: int) -> None:
    positions = planner_positions(count)
    times = []
    for s in positions:
        t0 = time.process_time()
        plan_journey(s)
        times.append(time.process_time() - t0)
    cards = [sum(s.hands[s.current]) for s in positions]
    print(f"\nplanner over {len(times)} positions from bot games "
          f"(hands of {min(cards)}–{max(cards)} cards): "
          f"median {statistics.median(times) * 1000:.2f} ms, "
          f"worst {max(times) * 1000:.1f} ms, "
          f"95th percentile {sorted(times)[int(0.95 * len(times))] * 1000:.2f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--search-seconds", type=float, default=None)
    parser.add_argument("--only", choices=("matches", "planner"), default=None)
    parser.add_argument("--game", choices=("elfenland", "king-of-the-elves"), default=None,
                        help="play the matches of one game only")
    parser.add_argument("--match", choices=[f"{me}-{them}" for me, them, _ in MATCHES],
                        default=None, help="play one match only (e.g. search-greedy)")
    args = parser.parse_args()
    if args.only != "matches":
        if args.game in (None, "elfenland"):
            planner_times(args.positions)
        if args.game in (None, "king-of-the-elves"):
            import bots_kingelves  # the sibling script: same directory, on sys.path

            print("\nking-of-the-elves journey planner:")
            bots_kingelves.planner_times(args.positions)
    if args.only == "planner":
        return 0
    for game in ("elfenland", "king-of-the-elves"):
        if args.game not in (None, game):
            continue
        for me, them, target in MATCHES:
            if args.match not in (None, f"{me}-{them}"):
                continue
            if not (has_bot(me, game) and has_bot(them, game)):
                print(f"\n{game}: {me} vs 3 {them}: no {me}/{them} bot for this game yet")
                continue
            print(f"\n(target: {me} wins at least {target:.0%})")
            match(game, me, them, args.games, args.workers, args.search_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
