"""What each resource the Elfenland quick level's evaluation counts is worth, round by
round, in the games it plays (issue #25, ``docs/bots.md``, Quick, session 30): a
logistic fit of the game's outcome on what the evaluation sees where each round's move
phase starts, over games of the level against ``search`` as at the goal (20 ms of
thread CPU a decision, ``search`` at 0.43 of it with two players and 0.41 with four:
the matches of ``bench/search_strength.py``, on its seeds and seats).

    nice -n 5 python bench/elfenland_round_values.py --games 1200 --first 400000 --log a.jsonl
    nice -n 5 python bench/elfenland_round_values.py --players 4 --games 600 --first 800000 \
        --log c.jsonl
    python bench/elfenland_round_values.py --fit a.jsonl b.jsonl

A seat's features (``evaluate``'s, the journeys planned on the counters laid): ``m``
markers plus the towns the journey collects (the margin's towns), ``ob`` the obstacle
still in hand, ``ct`` the counters held to keep (to ``counters_kept``), ``cards`` the
travel cards kept after the journey (to the hand limit), ``reach`` the towns
``outlook`` reaches from the journey's end in the rounds left.  The fit, a round: the
level's share of the game (a tie a half) on the level's features less its rival's and
a constant (with four players, less the best rival's: the most towns counted, then
the most within reach), each coefficient ± 1.96 standard errors, and each resource's coefficient
over the margin's, what it is worth in towns.  These are what the level's games
associate with winning, not what laying or keeping causes; they point the screens.
Needs numpy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

import elfenland
from elfenland.bots.elfenland_quick import _Plans
from elfenland.games.elfenland.state import ElfenlandState, Phase

sys.path.insert(0, str(Path(__file__).parent))
import search_strength

FEATURES = ("m", "ob", "ct", "cards", "reach")
#: ``search``'s share of the budget as at the goal, by players (``search_strength``).
SCALE = {2: 0.43, 4: 0.41}


def features(state: ElfenlandState) -> list[dict[str, int]]:
    """Every seat's features where the move phase starts."""
    plans = _Plans()
    rules = state.rules
    out = []
    for q, j in enumerate(plans.every(state)):
        seen = state.visited[q] | 1 << state.board.capital
        end = state.boots[q]
        for st in j.steps:
            end = st.to
            seen |= 1 << end
        held = sum(state.counters_up[q]) + sum(state.counters_secret[q])
        last = state.round >= rules.rounds
        out.append({"m": state.markers(q) + j.new_towns,
                    "ob": int(state.obstacle_in_hand[q]),
                    "ct": min(held, rules.counters_kept),
                    "cards": min(sum(j.hand), rules.hand_limit),
                    "reach": 0 if last else plans.reached(state, end, seen)})
    return out


def play(index: int, n: int = 2) -> dict[str, Any]:
    """Game ``index`` of the match of ``n`` players, its features at each move phase."""
    deal, seat = 1 + index // n, index % n
    scale = SCALE[n]
    bots = [search_strength.budgeted("quick", "elfenland", deal * 16 + q, 0.02) if q == seat
            else search_strength.budgeted("search", "elfenland", deal * 16 + q, 0.02 * scale)
            for q in range(n)]
    state: Any = elfenland.new_game("elfenland", players=n, seed=deal)
    rows = []
    taken: set[int] = set()
    while not state.is_terminal():
        if state.phase is Phase.MOVE and state.round not in taken and not state.discarding:
            taken.add(state.round)
            rows.append({"round": state.round, "f": features(state)})
        state.apply_action(bots[state.current_player()].choose(state))
    won = state.winners()
    return {"index": index, "seat": seat, "rows": rows,
            "share": [1 / len(won) if q in won else 0.0 for q in range(n)]}


def logistic(x: Any, y: Any) -> tuple[Any, Any]:
    """Coefficients and their standard errors (Newton's method; ``y`` may be 0.5)."""
    w = np.zeros(x.shape[1])
    hessian = np.eye(x.shape[1])
    for _ in range(100):
        with np.errstate(over="ignore"):  # a margin that separates the outcomes
            p = 1 / (1 + np.exp(-x @ w))
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + 1e-6 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, x.T @ (y - p))
        w = w + step
        if np.abs(step).max() < 1e-10:
            break
    return w, np.sqrt(np.diag(np.linalg.inv(hessian)))


def fit(logs: list[str]) -> None:
    by_round: dict[int, list[tuple[list[float], float]]] = {}
    for name in logs:
        for line in Path(name).read_text(encoding="utf-8").splitlines():
            g = json.loads(line)
            me = g["seat"]
            for r in g["rows"]:
                f = r["f"]
                # The best rival: the most towns counted, then the most within reach.
                best = max((q for q in range(len(f)) if q != me),
                           key=lambda q: (f[q]["m"], f[q]["reach"], -q))
                x = [1.0] + [float(f[me][k] - f[best][k]) for k in FEATURES]
                by_round.setdefault(r["round"], []).append((x, g["share"][me]))
    for rnd in sorted(by_round):
        x = np.array([a for a, _ in by_round[rnd]])
        y = np.array([b for _, b in by_round[rnd]])
        keep = [0, 1] + [i for i in range(2, x.shape[1]) if x[:, i].std() > 0]
        labels = ["const"] + [FEATURES[i - 1] for i in keep[1:]]
        w, se = logistic(x[:, keep], y)
        if max(abs(w)) > 50:
            print(f"round {rnd}, {len(y)} games: the margin separates the outcomes (no fit)")
            continue
        per_town = w[labels.index("m")]
        parts = [f"{name} {wi:+.3f} ± {1.96 * s:.3f}"
                 + ("" if name in ("m", "const") else
                    f" ({wi / per_town:+.2f} ± {1.96 * s / per_town:.2f} town)")
                 for name, wi, s in zip(labels, w, se, strict=True)]
        print(f"round {rnd}, {len(y)} games: " + ", ".join(parts))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, choices=sorted(SCALE), default=2)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--first", type=int, default=400000)
    ap.add_argument("--log", default="round_values.jsonl")
    ap.add_argument("--fit", nargs="+", metavar="LOG")
    args = ap.parse_args(argv)
    if args.fit:
        fit(args.fit)
        return 0
    with open(args.log, "a", encoding="utf-8") as out:
        for i in range(args.first, args.first + args.games):
            out.write(json.dumps(play(i, args.players)) + "\n")
            out.flush()
    fit([args.log])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
