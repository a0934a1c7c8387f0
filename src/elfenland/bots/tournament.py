"""``elfenland tournament``: many seeded bot games in parallel, rated with confidence.

Game ``i`` is started from seed ``seed + i`` and its seats are the bot list rotated by
``i`` places, so that over a multiple of the player count every entrant sits in every
seat equally often.  Bots get seeds derived from the game's, so a tournament is
reproducible whatever the number of worker processes.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, TextIO

from ..core.errors import ElfenlandError
from ..core.options import OptionValue
from ..games.command_line import add_rule_arguments, options_from_args
from ..games.registry import game_info, new_game
from .base import make_bot
from .levels import seat_levels

Z95 = 1.959963984540054


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="elfenland",
                        help="elfenland, king-of-the-elves or elfengold")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bots", default="greedy,random,random,random",
                        help="comma-separated bot levels, one per seat (or one for all)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    add_rule_arguments(parser)
    parser.add_argument("--search-seconds", type=float, default=None,
                        help="time budget per decision for search bots")
    parser.add_argument("--search-iterations", type=int, default=None,
                        help="iteration budget per decision for search bots")
    parser.add_argument("--out", default=None, help="write the results as JSON")
    parser.add_argument("--csv", default=None, help="write one row per game and seat")
    parser.add_argument("--plot", default=None, help="draw win rates and scores (PNG)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


@dataclass(frozen=True)
class Config:
    game: str
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int
    search_seconds: float | None = None
    search_iterations: int | None = None
    #: The rule options every game gets (``rules`` included), checked against the
    #: game's option specification (``games.command_line.rule_options``).
    rule_options: tuple[tuple[str, OptionValue], ...] = ()

    def options(self) -> dict[str, OptionValue]:
        return dict(self.rule_options)


def config_from_args(args: argparse.Namespace) -> Config:
    info = game_info(args.game)
    players = int(args.players)
    if not info.min_players <= players <= info.max_players:
        raise ElfenlandError(
            f"{info.title} is for {info.min_players} to {info.max_players} players")
    bots = seat_levels(args.bots, info.name, players)
    if args.games < 1:
        raise ElfenlandError("--games must be at least 1")
    if getattr(args, "workers", 1) < 1:
        raise ElfenlandError("--workers must be at least 1")
    if args.search_seconds is not None and not args.search_seconds > 0:
        raise ElfenlandError("--search-seconds must be more than 0")
    if args.search_iterations is not None and args.search_iterations < 1:
        raise ElfenlandError("--search-iterations must be at least 1")
    options = options_from_args(info.name, args)
    config = Config(info.name, players, bots, int(args.games), int(args.seed),
                    args.search_seconds, args.search_iterations, tuple(options.items()))
    new_game(config.game, players=players, seed=config.seed, **config.options())  # checked
    return config


def play_game(config: Config, index: int) -> dict[str, Any]:
    """One game: entrant ``e`` sits in seat ``(e + index) % players``."""
    seed = config.seed + index
    n = config.players
    seat_of = [(e + index) % n for e in range(n)]
    entrant_at = [0] * n
    for e, seat in enumerate(seat_of):
        entrant_at[seat] = e
    bots = []
    for seat in range(n):
        bot = make_bot(config.bots[entrant_at[seat]], config.game, seed * 16 + seat)
        if config.search_seconds is not None and hasattr(bot, "seconds"):
            bot.seconds = config.search_seconds
        if config.search_iterations is not None and hasattr(bot, "iterations"):
            bot.iterations = config.search_iterations
        bots.append(bot)
    state = new_game(config.game, players=n, seed=seed, **config.options())
    decisions = [0] * n
    think = [0.0] * n
    started = time.perf_counter()
    while not state.is_terminal():
        p = state.current_player()
        t0 = time.perf_counter()
        action = bots[p].choose(state)
        think[p] += time.perf_counter() - t0
        decisions[p] += 1
        state.apply_action(action)
    scores = state.scores()
    winners = state.winners()
    return {
        "index": index, "seed": seed, "seconds": round(time.perf_counter() - started, 3),
        "seats": [config.bots[entrant_at[s]] for s in range(n)],
        "entrant_of_seat": entrant_at,
        "scores": scores, "winners": winners,
        "decisions": decisions, "think_seconds": [round(t, 4) for t in think],
    }


def _play_star(job: tuple[Config, int]) -> dict[str, Any]:
    return play_game(*job)


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (shared wins count fractionally)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarise(config: Config, results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    n_games = len(results)
    for e, level in enumerate(config.bots):
        wins = 0.0
        scores: list[int] = []
        think = 0.0
        decisions = 0
        for r in results:
            seat = r["entrant_of_seat"].index(e)
            if seat in r["winners"]:
                wins += 1 / len(r["winners"])
            scores.append(r["scores"][seat])
            think += r["think_seconds"][seat]
            decisions += r["decisions"][seat]
        lo, hi = wilson(wins, n_games)
        rows.append({
            "entrant": e, "bot": level, "games": n_games, "wins": round(wins, 3),
            "win_rate": wins / n_games if n_games else 0.0, "ci95": [lo, hi],
            "mean_score": sum(scores) / len(scores) if scores else 0.0, "scores": scores,
            "seconds_per_decision": think / decisions if decisions else 0.0,
        })
    return rows


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'#':>2}  {'bot':<8} {'games':>5} {'wins':>7} {'win rate':>8}  "
             f"{'95% CI':<15} {'score':>6} {'s/decision':>10}"]
    for r in rows:
        lo, hi = r["ci95"]
        lines.append(
            f"{r['entrant']:>2}  {r['bot']:<8} {r['games']:>5} {r['wins']:>7.1f} "
            f"{r['win_rate']:>8.1%}  [{lo:5.1%}, {hi:5.1%}] {r['mean_score']:>6.2f} "
            f"{r['seconds_per_decision']:>10.4f}")
    return "\n".join(lines)


class ProgressBar:
    """A one-line bar on a terminal stream, redrawn in place."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.start = time.perf_counter()

    def update(self, n: int = 1) -> None:
        self.done += n
        frac = self.done / self.total
        filled = int(frac * self.width)
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{self.done}/{self.total} {elapsed:6.0f}s eta {eta:5.0f}s")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def run_games(config: Config, workers: int = 1,
              progress: ProgressBar | None = None) -> list[dict[str, Any]]:
    jobs = [(config, i) for i in range(config.games)]
    results: list[dict[str, Any]] = []
    outcomes: Iterable[dict[str, Any]]
    if workers <= 1:
        outcomes = (play_game(*job) for job in jobs)
        for r in outcomes:
            results.append(r)
            if progress:
                progress.update()
    else:
        with get_context("spawn").Pool(workers) as pool:
            for r in pool.imap_unordered(_play_star, jobs):
                results.append(r)
                if progress:
                    progress.update()
    results.sort(key=lambda r: int(r["index"]))
    return results


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any game is played, an output that could not be written at the
    end: a folder that does not exist or is not writable, a path that is a folder, a
    plot without matplotlib.  Otherwise hours of games would end in a traceback."""
    for flag, path in (("--out", args.out), ("--csv", args.csv), ("--plot", args.plot)):
        if not path:
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(path):
            raise ElfenlandError(f"{flag} {path}: is a folder, not a file")
        if not os.path.isdir(folder):
            raise ElfenlandError(f"{flag} {path}: no folder {folder}")
        if not os.access(folder, os.W_OK) or (os.path.exists(path)
                                              and not os.access(path, os.W_OK)):
            raise ElfenlandError(f"{flag} {path}: not writable")
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise ElfenlandError("--plot needs matplotlib: pip install 'elfenland[plot]'")


@contextmanager
def replacing(path: str, newline: str | None = None) -> Iterator[TextIO]:
    """A file written beside ``path`` and moved over it once complete, so that a
    failed write leaves what was there before."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".tournament-")
    try:
        with os.fdopen(fd, "w", newline=newline, encoding="utf-8") as f:
            yield f
        os.replace(temp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise


def write_csv(path: str, results: Sequence[dict[str, Any]]) -> None:
    with replacing(path, newline="") as f:
        w = csv.writer(f)
        w.writerow(["game", "seed", "seat", "entrant", "bot", "score", "won", "decisions",
                    "think_seconds"])
        for r in results:
            for seat, bot in enumerate(r["seats"]):
                w.writerow([r["index"], r["seed"], seat, r["entrant_of_seat"][seat], bot,
                            r["scores"][seat], int(seat in r["winners"]),
                            r["decisions"][seat], r["think_seconds"][seat]])


def plot(path: str, rows: Sequence[dict[str, Any]], title: str) -> None:
    """Win rates with their intervals, and score distributions (matplotlib, optional)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ElfenlandError("--plot needs matplotlib: pip install 'elfenland[plot]'") from None
    labels = [f"{r['entrant']}:{r['bot']}" for r in rows]
    rates = [r["win_rate"] for r in rows]
    low = [r["win_rate"] - r["ci95"][0] for r in rows]
    high = [r["ci95"][1] - r["win_rate"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    ax1.bar(labels, rates, yerr=[low, high], capsize=6, color="#4a7")
    ax1.axhline(1 / len(rows), color="grey", linestyle="--", linewidth=1, label="parity")
    ax1.set_ylim(0, 1)
    ax1.set_ylabel("win rate (95% Wilson interval)")
    ax1.legend()
    ax2.boxplot([r["scores"] for r in rows])
    ax2.set_xticks(range(1, len(labels) + 1), labels)
    ax2.set_ylabel("final score")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    try:
        config = config_from_args(args)
        check_outputs(args)
    except ElfenlandError as exc:
        print(f"elfenland tournament: {exc}", file=sys.stderr)
        return 2
    bar = None if args.quiet else ProgressBar(config.games)
    started = time.perf_counter()
    results = run_games(config, int(args.workers), bar)
    if bar:
        bar.close()
    rows = summarise(config, results)
    title = (f"{config.game}, {config.players} players, {config.games} games, "
             f"seed {config.seed}")
    print(title)
    print(format_table(rows))
    doc = {"config": {k: v for k, v in config.__dict__.items() if k != "rule_options"}
           | {"bots": list(config.bots), "options": config.options()}, "summary": rows,
           "games": results, "seconds": round(time.perf_counter() - started, 2)}
    try:
        if args.out:
            with replacing(args.out) as f:
                json.dump(doc, f, indent=1)
        if args.csv:
            write_csv(args.csv, results)
        if args.plot:
            plot(args.plot, rows, title)
    except (ElfenlandError, OSError) as exc:
        print(f"elfenland tournament: {exc}", file=sys.stderr)
        return 2
    return 0
