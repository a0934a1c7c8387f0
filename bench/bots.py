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

    python bench/bots.py --only fast-vs-pure --games 200 --workers 2 --log fvp.jsonl
    python bench/bots.py --only fast-vs-pure --summarise fvp.jsonl

``fast-vs-pure`` (issue #16): the Elfenland search bot against three greedy bots at its
0.8 s wall-time budget, once on the compiled engine and planner and once with
``ELFENLAND_ENGINE=pure`` (pure engine, pure planner), the same seeds in both arms.  The
two arms run at the same time, ``--workers`` processes each, game ``i`` of both queued
together, so that whatever else loads the machine slows both alike; the load average is
sampled after every game.  Each game is appended to ``--log`` as it ends (one JSON line),
so that ``--summarise`` prints the table of an unfinished run from the seeds both arms
finished.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from multiprocessing import get_context
from typing import Any

import elfenland
from elfenland.bots import BOT_LEVELS, make_bot
from elfenland.bots.planner import plan_journey
from elfenland.bots.tournament import (
    Config,
    ProgressBar,
    format_table,
    run_games,
    summarise,
    wilson,
)
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
    config = Config(game, 4, (me, them, them, them), games, 1, search_seconds)
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
    """The compiled search (when built) and the pure one on the same positions."""
    from elfenland.bots.planner import AVAILABLE

    positions = planner_positions(count)
    cards = [sum(s.hands[s.current]) for s in positions]
    saved = os.environ.get("ELFENLAND_ENGINE")
    try:
        for backend in ("compiled", "pure") if AVAILABLE else ("pure",):
            os.environ["ELFENLAND_ENGINE"] = backend
            times = []
            for s in positions:
                t0 = time.process_time()
                plan_journey(s)
                times.append(time.process_time() - t0)
            print(f"\nplanner ({backend}) over {len(times)} positions from bot games "
                  f"(hands of {min(cards)}–{max(cards)} cards): "
                  f"median {statistics.median(times) * 1000:.2f} ms, "
                  f"worst {max(times) * 1000:.1f} ms, "
                  f"95th percentile {sorted(times)[int(0.95 * len(times))] * 1000:.2f} ms")
    finally:
        if saved is None:
            os.environ.pop("ELFENLAND_ENGINE", None)
        else:
            os.environ["ELFENLAND_ENGINE"] = saved


ARMS = ("compiled", "pure")


def _arm_init(arm: str) -> None:
    """A worker of one arm: ``pure`` switches off the compiled engine and planner."""
    if arm == "pure":
        os.environ["ELFENLAND_ENGINE"] = "pure"
    else:
        os.environ.pop("ELFENLAND_ENGINE", None)


def arm_game(arm: str, index: int, seconds: float) -> dict[str, Any]:
    """One game of search against three greedy bots (seats rotated, as ``play_game``),
    with what the search bot's decisions cost and how many iterations they ran."""
    from elfenland.bots.elfenland_search import ElfenlandSearchBot
    from elfenland.bots.planner import planner_backend

    seed = 1 + index
    n = 4
    search_seat = index % n
    bots: list[Any] = []
    for seat in range(n):
        bot = make_bot("search" if seat == search_seat else "greedy", "elfenland",
                       seed * 16 + seat)
        if isinstance(bot, ElfenlandSearchBot):
            bot.seconds = seconds
        bots.append(bot)
    state = elfenland.new_game("elfenland", players=n, seed=seed)
    searcher = bots[search_seat]
    think = 0.0
    decisions = 0
    started = time.perf_counter()
    while not state.is_terminal():
        p = state.current_player()
        t0 = time.perf_counter()
        action = bots[p].choose(state)
        if p == search_seat:
            think += time.perf_counter() - t0
            decisions += 1
        state.apply_action(action)
    winners = state.winners()
    return {
        "arm": arm, "index": index, "seed": seed,
        "engine": elfenland.engine_backend("elfenland"), "planner": planner_backend(),
        "win": (1 / len(winners)) if search_seat in winners else 0.0,
        "decisions": decisions, "think": think, "searches": searcher.searches,
        "iterations": searcher.iterations_done,
        "seconds": time.perf_counter() - started, "load": os.getloadavg()[0],
    }


def fast_vs_pure(games: int, seconds: float, log: str | None, workers: int,
                 arms: tuple[str, ...] = ARMS, reverse: bool = False) -> None:
    """Both arms at once, ``workers`` processes each (see the module doc).  One arm
    alone, its games last first (``reverse``), helps a slow arm along from the other end
    while the two-arm run goes on."""
    ctx = get_context("spawn")
    pools = {arm: ctx.Pool(workers, initializer=_arm_init, initargs=(arm,))
             for arm in arms}
    out = open(log, "a", encoding="utf-8") if log else None  # noqa: SIM115
    load_start = os.getloadavg()
    started = time.perf_counter()
    print(f"fast-vs-pure: {games} games per arm, search budget {seconds} s, "
          f"load average at start {load_start[0]:.2f} {load_start[1]:.2f} "
          f"{load_start[2]:.2f}", flush=True)
    try:
        order = range(games - 1, -1, -1) if reverse else range(games)
        results: list[dict[str, Any]] = []
        bar = ProgressBar(len(order) * len(arms))
        lock = threading.Lock()

        def record(r: dict[str, Any]) -> None:
            """Log each game as it ends (an arm ahead of the other loses nothing if the
            run is stopped)."""
            with lock:
                results.append(r)
                if out:
                    out.write(json.dumps(r) + "\n")
                    out.flush()
                bar.update()

        pending = [pools[arm].apply_async(arm_game, (arm, i, seconds), callback=record)
                   for i in order for arm in arms]
        for job in pending:
            job.get()  # raises what a game raised
        bar.close()
    finally:
        for pool in pools.values():
            pool.terminate()
        if out:
            out.close()
    load_end = os.getloadavg()
    print(f"{time.perf_counter() - started:.0f} s wall; load average at end "
          f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}")
    print_fast_vs_pure(results)


def print_fast_vs_pure(results: list[dict[str, Any]]) -> None:
    """The table, over the seeds both arms finished (the same games in both)."""
    by_arm: dict[str, dict[int, dict[str, Any]]] = {arm: {} for arm in ARMS}
    for r in results:  # a game played twice (two logs): the first one counts
        by_arm[r["arm"]].setdefault(r["index"], r)
    for arm in ARMS:
        print(f"{arm}: {len(by_arm[arm])} games finished")
    common = sorted(set(by_arm["compiled"]) & set(by_arm["pure"]))
    print(f"\nelfenland: search vs 3 greedy, 4 players, Amigo rules, seats rotated, "
          f"{len(common)} seeds played by both arms")
    print(f"{'arm':<10}{'engine/planner':>17}{'games':>7}{'win rate':>10}  {'95% CI':<17}"
          f"{'s/decision':>11}{'it/search':>11}{'searches/game':>15}{'load avg':>10}")
    for arm in ARMS:
        rows = [by_arm[arm][i] for i in common]
        if not rows:
            continue
        wins = sum(r["win"] for r in rows)
        lo, hi = wilson(wins, len(rows))
        decisions = sum(r["decisions"] for r in rows)
        searches = sum(r["searches"] for r in rows)
        its = sum(r["iterations"] for r in rows) / searches if searches else 0.0
        think = sum(r["think"] for r in rows)
        kinds = sorted({f"{r['engine']}/{r['planner']}" for r in rows})
        load = statistics.mean(r["load"] for r in rows)
        per_decision = think / decisions if decisions else 0.0
        print(f"{arm:<10}{','.join(kinds):>17}{len(rows):>7}{wins / len(rows):>10.1%}  "
              f"[{lo:5.1%}, {hi:5.1%}]  {per_decision:>10.3f}{its:>11.1f}"
              f"{searches / len(rows):>15.1f}{load:>10.2f}")
    print("(s/decision: mean wall time of all the search bot's decisions; it/search: "
          "iterations per decision it searched; load avg: 1-minute, after each game)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--search-seconds", type=float, default=None)
    parser.add_argument("--only", choices=("matches", "planner", "fast-vs-pure"),
                        default=None)
    parser.add_argument("--log", default=None,
                        help="fast-vs-pure: append each game as a JSON line here")
    parser.add_argument("--summarise", default=None, metavar="LOG", nargs="+",
                        help="fast-vs-pure: print the table of (partial) logs and stop")
    parser.add_argument("--arm", choices=ARMS, default=None,
                        help="fast-vs-pure: play one arm only")
    parser.add_argument("--reverse", action="store_true",
                        help="fast-vs-pure: the last seeds first")
    parser.add_argument("--game", choices=("elfenland", "king-of-the-elves"), default=None,
                        help="play the matches of one game only")
    parser.add_argument("--match", choices=[f"{me}-{them}" for me, them, _ in MATCHES],
                        default=None, help="play one match only (e.g. search-greedy)")
    args = parser.parse_args()
    if args.only == "fast-vs-pure":
        if args.summarise:
            rows = []
            for name in args.summarise:
                with open(name, encoding="utf-8") as f:
                    rows += [json.loads(line) for line in f if line.strip()]
            print_fast_vs_pure(rows)
        else:
            seconds = 0.8 if args.search_seconds is None else args.search_seconds
            arms = ARMS if args.arm is None else (args.arm,)
            fast_vs_pure(args.games, seconds, args.log, max(1, args.workers), arms,
                         args.reverse)
        return 0
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
