"""A learned value at the Elfenland quick level's rollout horizon (issue #25,
``docs/bots.md``, Quick): positions logged where each round's move phase starts in
games of the quick level against ``search`` (not greedy games: the value is for the
positions the level's own rollouts end in), each player's markers at the game's end
fitted on what the evaluation can see there, by ridge regression a round.

    nice -n 10 python bench/elfenland_value.py --players 2 --games 300 --rows v2.jsonl
    nice -n 10 python bench/elfenland_value.py --fit v2.jsonl

``--rows`` plays the games (20 ms of thread CPU a decision each, the match of
``bench/search_strength.py``; deals from ``--first``, never the screens' deals) and
appends one JSON line a player and round; ``--fit`` prints each round's coefficients,
R² (in-sample and on the last fifth of the games held out), the Brier score of the
margin's sigmoid against the winner beside the level's own evaluation's, and the
table ``VALUE`` in ``bots/elfenland_value.py`` takes (the features:
``elfenland_value.features``).  Needs numpy.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

import numpy as np

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfenland_quick import HORIZON, _Plans
from elfenland.bots.elfenland_search import MARGIN_SCALE
from elfenland.bots.elfenland_value import NAMES, features
from elfenland.games.elfenland.state import Phase


def play(players: int, game: int, budget: float) -> list[dict[str, Any]]:
    """One game (the quick level in seat ``game % players``), its rows."""
    seat = game % players
    bots: list[Any] = []
    for q in range(players):
        bot: Any = make_bot("quick" if q == seat else "search", "elfenland", game * 16 + q)
        bot.seconds, bot.iterations, bot.clock = budget, 10**9, time.thread_time
        bots.append(bot)
    s: Any = elfenland.new_game("elfenland", players=players, seed=game)
    seen: set[int] = set()
    found: list[tuple[int, int, list[float]]] = []
    while not s.is_terminal():
        if s.phase is Phase.MOVE and s.round not in seen and s.round < s.rules.rounds:
            seen.add(s.round)
            plans = _Plans()
            for q, j in enumerate(plans.every(s)):
                found.append((s.round, q, features(s, q, j, plans)))
        s.apply_action(bots[s.current_player()].choose(s))
    won = s.winners()
    return [{"game": game, "players": players, "round": r, "player": q, "x": x,
             "final": s.markers(q), "share": 1 / len(won) if q in won else 0.0}
            for r, q, x in found]


def r2(x: np.ndarray, y: np.ndarray, c: np.ndarray, sel: np.ndarray) -> float:
    """R² of the prediction ``x @ c`` of ``y`` on the rows ``sel``."""
    e = y[sel] - x[sel] @ c
    return float(1 - (e**2).sum() / ((y[sel] - y[sel].mean()) ** 2).sum())


def fit(path: str, ridge: float) -> None:
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    players = rows[0]["players"]
    games = sorted({r["game"] for r in rows})
    held = set(games[len(games) * 4 // 5:])
    print(f"{players} players, {len(games)} games, {len(rows)} rows; features {NAMES}")
    table = {}
    for rnd in sorted({r["round"] for r in rows}):
        part = [r for r in rows if r["round"] == rnd]
        x = np.array([[1.0, *r["x"]] for r in part])
        y = np.array([r["final"] for r in part], float)
        train = np.array([r["game"] not in held for r in part])
        coefs = {}
        for name, sel in (("train", train), ("all", np.ones(len(part), bool))):
            a, b = x[sel], y[sel]
            pen = ridge * np.eye(a.shape[1])
            pen[0, 0] = 0.0
            coefs[name] = np.linalg.solve(a.T @ a + pen, a.T @ b)
        coef = coefs["all"]

        base = np.zeros(x.shape[1])
        base[1] = 1.0  # M alone, the search bot's margin
        base[2] = HORIZON[min(players, len(HORIZON) - 1)]
        b_base = b_fit = 0.0
        count = 0
        for g in {r["game"] for r in part if r["game"] in held}:
            idx = [i for i, r in enumerate(part) if r["game"] == g]
            for i in idx:
                for c, which in ((base, "base"), (coefs["train"], "fit")):
                    v = x[idx] @ c
                    mine = float(x[i] @ c)
                    margin = mine - max(float(v[k]) for k, j in enumerate(idx) if j != i)
                    p = 1 / (1 + math.exp(-margin / MARGIN_SCALE * 4))
                    err = (p - part[i]["share"]) ** 2
                    if which == "base":
                        b_base += err
                    else:
                        b_fit += err
                count += 1
        terms = " ".join(f"{n} {c:+.3f}" for n, c in zip(["1", *NAMES], coef, strict=True))
        print(f"  round {rnd}, {len(part)} rows: {terms}")
        alone = np.zeros(x.shape[1])
        alone[:2] = np.linalg.lstsq(x[:, :2], y, rcond=None)[0]
        everything = np.ones(len(part), bool)
        print(f"    R² in sample {r2(x, y, coef, everything):.3f} (M alone "
              f"{r2(x, y, alone, everything):.3f}), "
              f"held-out {r2(x, y, coefs['train'], ~train):.3f}; Brier held out: the level "
              f"{b_base / max(count, 1):.4f}, the fit {b_fit / max(count, 1):.4f}")
        table[rnd] = tuple(round(float(c), 3) for c in coef)
    print(f"VALUE[{players}] = {table!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--first", type=int, default=200_000, help="seed of the first game")
    parser.add_argument("--budget", type=float, default=0.02)
    parser.add_argument("--rows", help="play the games, append their rows here")
    parser.add_argument("--fit", help="fit the rows of this file")
    parser.add_argument("--ridge", type=float, default=1.0)
    args = parser.parse_args()
    if args.rows:
        started = time.perf_counter()
        with open(args.rows, "a") as out:
            for g in range(args.first, args.first + args.games):
                for row in play(args.players, g, args.budget):
                    out.write(json.dumps(row) + "\n")
                out.flush()
        print(f"{args.games} games, {time.perf_counter() - started:.0f} s")
    if args.fit:
        fit(args.fit, args.ridge)


if __name__ == "__main__":
    main()
