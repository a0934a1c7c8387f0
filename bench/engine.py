"""Random-play speed of every game's engine, the compiled one beside the pure one: steps
per second, complete games per second, the cost of ``clone()`` and of
``resample_from_infostate()``, and the search bot's iterations per second.

    python bench/engine.py [--seconds 5] [--players 2 4 6] [--backend pure compiled]
    python bench/engine.py --search 20        # + search-bot iterations on 20 positions

One core; the random player's own choice (``rng.randrange``) is included, as a
researcher's loop would include it.  Rates are per second of this process's CPU time,
so that other work on the machine does not distort them, and both engines are measured
in the same run, alternating in slices, so that their ratio holds on a busy machine.
A game without a compiled engine shows "-" in its compiled columns.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable
from typing import Any

import elfenland
from elfenland.core.game import GameState
from elfenland.core.rng import Rng
from elfenland.games.registry import GAMES

BACKENDS = ("pure", "compiled")


def factory(game: str, backend: str) -> Callable[..., GameState] | None:
    """``new_game`` on one engine, or None if that engine is not there for the game."""
    os.environ["ELFENLAND_ENGINE"] = backend
    if elfenland.engine_backend(game) != backend:
        return None

    def make(**options: Any) -> GameState:
        os.environ["ELFENLAND_ENGINE"] = backend
        return elfenland.new_game(game=game, **options)

    return make


def play_slice(make: Callable[..., GameState], players: int, seconds: float,
               first_seed: int, rng: random.Random) -> tuple[int, int, float]:
    """Whole random games for about ``seconds`` of CPU: (steps, games, CPU seconds)."""
    steps = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = make(players=players, seed=first_seed + games)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
        games += 1
    return steps, games, time.process_time() - start


def measure(game: str, players: int, seconds: float,
            backends: list[str]) -> dict[str, tuple[float, float] | None]:
    """Steps/s and games/s per engine, alternating slices of a quarter of the time."""
    makers = {b: factory(game, b) for b in backends}
    totals = {b: [0, 0, 0.0] for b in backends}
    seeds = dict.fromkeys(backends, 0)
    rngs = {b: random.Random(0) for b in backends}
    for _ in range(4):
        for b in backends:
            make = makers[b]
            if make is None:
                continue
            steps, games, cpu = play_slice(make, players, seconds / 4, seeds[b], rngs[b])
            seeds[b] += games
            totals[b][0] += steps
            totals[b][1] += games
            totals[b][2] += cpu
    return {b: (totals[b][0] / totals[b][2], totals[b][1] / totals[b][2])
            if makers[b] is not None else None for b in backends}


def sample_states(make: Callable[..., GameState], count: int) -> list[GameState]:
    """Positions from random games, one every 17 steps."""
    out: list[GameState] = []
    rng = random.Random(1)
    seed = 0
    while len(out) < count:
        state = make(players=4, seed=seed)
        seed += 1
        steps = 0
        while not state.is_terminal() and len(out) < count:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
            if steps % 17 == 0:
                out.append(state.clone())
    return out


def per_call(states: list[GameState], call: Callable[[GameState, int], object],
             repeat: int) -> float:
    """Mean CPU microseconds of ``call`` over the states."""
    start = time.process_time()
    for i in range(repeat):
        for state in states:
            call(state, i)
    return (time.process_time() - start) / (repeat * len(states)) * 1e6


def costs(game: str, backends: list[str]) -> None:
    print(f"\n{game}, 4 players, 200 positions from random games: CPU µs per call")
    print(f"{'call':<26}" + "".join(f"{b:>12}" for b in backends) + f"{'ratio':>8}")
    rows: dict[str, dict[str, float]] = {"clone()": {}, "resample_from_infostate()": {}}
    for b in backends:
        make = factory(game, b)
        if make is None:
            continue
        states = sample_states(make, 200)
        rows["clone()"][b] = per_call(states, lambda s, i: s.clone(), 50)
        rows["resample_from_infostate()"][b] = per_call(
            states, lambda s, i: s.resample_from_infostate(max(s.current_player(), 0),
                                                           Rng(i)), 10)
    for name, row in rows.items():
        cells = "".join(f"{row[b]:>12.2f}" if b in row else f"{'-':>12}" for b in backends)
        ratio = (f"{row['pure'] / row['compiled']:>7.1f}x"
                 if "pure" in row and "compiled" in row else f"{'-':>8}")
        print(f"{name:<26}{cells}{ratio}")


def search_positions(game: str, count: int) -> list[GameState]:
    """Positions where the search bot searches, met in four-player greedy games (pure)."""
    from elfenland.bots import make_bot
    from elfenland.bots.elfenland_search import candidates
    from elfenland.games.elfenland import ElfenlandState
    from elfenland.games.elfenland import Phase as ElfPhase
    from elfenland.games.kingelves import KingOfTheElvesState
    from elfenland.games.kingelves import Phase as KePhase
    from elfenland.games.kingelves.state import Pending

    found: list[GameState] = []
    seed = 0
    while len(found) < count:
        state: GameState = (ElfenlandState(players=4, seed=seed) if game == "elfenland"
                            else KingOfTheElvesState(players=4, seed=seed))
        bots = [make_bot("greedy", game, seed * 4 + p) for p in range(4)]
        seed += 1
        steps = 0
        while not state.is_terminal() and len(found) < count:
            steps += 1
            if isinstance(state, ElfenlandState):
                wanted = (state.phase is ElfPhase.PLACE and steps % 5 == 0
                          and len(candidates(state, None)) > 1)
            else:
                assert isinstance(state, KingOfTheElvesState)
                wanted = (state.phase is KePhase.BUILDING and state.pending is Pending.NONE
                          and steps % 7 == 0 and len(state.legal_actions()) > 1)
            if wanted:
                found.append(state.clone())
            state.apply_action(bots[state.current_player()].choose(state))
    return found


def search_rate(game: str, positions: int, iterations: int, backends: list[str]) -> None:
    """The search bot's iterations per CPU second on the same positions, on each engine
    (an iteration deals the hidden cards again and plays every candidate on from it).
    ``ELFENLAND_ENGINE`` also chooses the Elfenland movement planner: the compiled
    column runs the compiled planner too (``bots/_planner.c``), the pure one the pure."""
    from elfenland.bots import make_bot
    from elfenland.bots.planner import planner_backend
    from elfenland.games.elfenland.fast import from_pure as elfenland_fast
    from elfenland.games.kingelves.fast import from_pure as kingelves_fast

    found = search_positions(game, positions)
    print(f"\n{game}: search bot, {positions} positions, {iterations} iterations each")
    rates = {}
    for b in backends:
        if factory(game, b) is None:
            continue
        os.environ["ELFENLAND_ENGINE"] = b
        states = [elfenland_fast(s) if game == "elfenland" else kingelves_fast(s)  # type: ignore[arg-type]
                  for s in found]
        start = time.process_time()
        for i, state in enumerate(states):
            bot: Any = make_bot("search", game, i)
            bot.iterations, bot.seconds = iterations, 1e9
            bot.choose(state)
        rates[b] = positions * iterations / (time.process_time() - start)
        print(f"{b:<10}{rates[b]:>10.1f} iterations/s"
              + (f" (planner: {planner_backend()})" if game == "elfenland" else ""))
    if len(rates) == 2:
        print(f"{'ratio':<10}{rates['compiled'] / rates['pure']:>10.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="CPU seconds per engine, game and player count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--game", nargs="+", default=sorted(GAMES))
    parser.add_argument("--backend", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--search", type=int, default=0, metavar="POSITIONS",
                        help="also time the search bot on this many positions")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--no-costs", action="store_true")
    args = parser.parse_args()
    backends: list[str] = args.backend
    # Warm the lazily built action tables so that they are not timed.
    for game in args.game:
        for b in backends:
            make = factory(game, b)
            if make is not None:
                make(players=2, seed=0).legal_actions()
    both = len(backends) == 2
    head = f"{'game':<19}{'players':>8}"
    for b in backends:
        head += f"{b + ' steps/s':>20}"
    head += f"{'ratio':>7}" if both else ""
    for b in backends:
        head += f"{b + ' games/s':>20}"
    print(head + (f"{'ratio':>7}" if both else ""))
    for game in args.game:
        for n in args.players:
            got = measure(game, n, args.seconds, backends)
            line = f"{game:<19}{n:>8}"
            for i in (0, 1):
                for b in backends:
                    value = got[b]
                    line += f"{value[i]:>20,.1f}" if value else f"{'-':>20}"
                if both:
                    pure, comp = got["pure"], got["compiled"]
                    line += f"{comp[i] / pure[i]:>6.1f}x" if pure and comp else f"{'-':>7}"
            print(line, flush=True)
    if not args.no_costs:
        for game in args.game:
            costs(game, backends)
    if args.search:
        for game in args.game:
            if game not in ("elfenland", "king-of-the-elves"):
                print(f"--search: no search-bot positions for {game} (Elfenland and King "
                      f"of the Elves only)", flush=True)
                continue
            search_rate(game, args.search, args.iterations, backends)
    os.environ.pop("ELFENLAND_ENGINE", None)


if __name__ == "__main__":
    main()
