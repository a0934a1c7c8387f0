"""How long the server takes to play again after PostgreSQL restarts (issue 21).

On a PostgreSQL instance of its own (``initdb`` in a temporary directory, a free loopback
port; never the shared one), one ``elfenland serve`` process, then three
``elfenland serve --cluster`` processes behind HAProxy, serve ``--games`` games played by
server bots only (so nothing but the server decides when play resumes).  PostgreSQL is
stopped (``pg_ctl stop -m fast``, as a package upgrade or a failover does), left down for
``--down`` seconds and started again; the clock starts when PostgreSQL accepts
connections again (a direct connection polled every 10 ms) and stops at the first action
stored after that ("first action"), and once every game still running has stored one
("all games").  Repeated ``--restarts`` times; median and worst.

    python bench/recovery.py                        # 5 restarts, single and cluster
    python bench/recovery.py --restarts 3 --only single
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "cluster"))

from private_pg import BIN, PrivatePostgres  # noqa: E402

from elfenland.server.cluster import LocalCluster, free_port, wait_http  # noqa: E402

SERVE = ["--games-per-host", "100000", "--rate", "1000", "--log-level", "warning"]


@contextlib.contextmanager
def single(db: str, bot_delay: float) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port), "--db", db,
         "--bot-delay", str(bot_delay), *SERVE], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", proc=proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(30)


@contextlib.contextmanager
def cluster(db: str, bot_delay: float) -> Iterator[str]:
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    with LocalCluster(db, 3, haproxy=haproxy, inter_ms=300,
                      serve_args=["--bot-delay", str(bot_delay), "--lease-seconds", "3",
                                  *SERVE]) as c:
        yield c.url


def start_games(base: str, n: int, seed: int) -> list[str]:
    ids = []
    with httpx.Client(timeout=30) as http:
        for i in range(n):
            game = "elfenland" if i % 2 else "kingelves"
            made = http.post(f"{base}/api/games", json={
                "game": game, "players": 4, "seed": seed + i,
                "seats": [{"kind": "bot", "level": "random"}] * 4})
            made.raise_for_status()
            gid = made.json()["game"]["id"]
            http.post(f"{base}/api/games/{gid}/start", json={}).raise_for_status()
            ids.append(gid)
    return ids


def progress(db: str) -> dict[str, int]:
    """Each running game's stored seq."""
    with psycopg.connect(db, connect_timeout=2) as conn:
        return {str(g): int(s) for g, s in conn.execute(
            "SELECT id, seq FROM games WHERE status = 'running'").fetchall()}


def one_restart(pg: PrivatePostgres, down: float) -> tuple[float, float]:
    """Stop PostgreSQL, wait ``down`` s, start it; seconds from accepting connections to
    the first stored action and to one stored action in every running game."""
    pg.stop()
    time.sleep(down)
    subprocess.run(["runuser", "-u", "postgres", "--", str(BIN / "pg_ctl"), "-D",
                    str(pg.dir), "-l", str(pg.dir / "log"), "-o",
                    f"-p {pg.port} -k {pg.dir}", "start"] if os.geteuid() == 0 else
                   [str(BIN / "pg_ctl"), "-D", str(pg.dir), "-l", str(pg.dir / "log"),
                    "-o", f"-p {pg.port} -k {pg.dir}", "start"],
                   check=True, capture_output=True)
    while True:
        try:
            before = progress(pg.url)
            break
        except psycopg.OperationalError:
            time.sleep(0.01)
    up = time.monotonic()
    first = every = float("nan")
    waiting = set(before)
    while time.monotonic() - up < 60 and waiting:
        now = progress(pg.url)
        moved = {g for g in waiting if now.get(g, before[g] + 1) > before[g]}
        if moved and first != first:
            first = time.monotonic() - up
        waiting -= moved
        if not waiting:
            every = time.monotonic() - up
        time.sleep(0.01)
    return first, every


def report(label: str, runs: list[tuple[float, float]]) -> None:
    firsts = [f for f, _ in runs]
    alls = [a for _, a in runs]
    print(f"{label:<22} first action: median {statistics.median(firsts):.2f} s, worst "
          f"{max(firsts):.2f} s   all games: median {statistics.median(alls):.2f} s, "
          f"worst {max(alls):.2f} s   ({len(runs)} restarts)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--down", type=float, default=2.0,
                        help="seconds PostgreSQL stays down")
    parser.add_argument("--bot-delay", type=float, default=0.02)
    parser.add_argument("--only", choices=("single", "cluster"), default=None)
    args = parser.parse_args()
    print(f"{args.games} bot-only games (Elfenland and King of the Elves), bot delay "
          f"{args.bot_delay} s, PostgreSQL down {args.down} s per restart, "
          f"{os.cpu_count()} cores", flush=True)
    for label, setup in (("1 process", single), ("3 processes + HAProxy", cluster)):
        if args.only and not label.startswith("1" if args.only == "single" else "3"):
            continue
        pg = PrivatePostgres().start()
        try:
            with setup(pg.url, args.bot_delay) as base:
                runs = []
                for r in range(args.restarts):
                    # Fresh games each time, so that every one is mid-play.
                    start_games(base, args.games, 1000 * r + 1)
                    time.sleep(1.5)
                    runs.append(one_restart(pg, args.down))
                    print(f"  {label} restart {r + 1}: first action {runs[-1][0]:.2f} s, "
                          f"all games {runs[-1][1]:.2f} s", flush=True)
                    # Let the games end so the next round's are the only ones running.
                    with httpx.Client(timeout=30) as http:
                        deadline = time.monotonic() + 60
                        while time.monotonic() < deadline:
                            if not http.get(f"{base}/api/games",
                                            params={"status": "running"}).json()["games"]:
                                break
                            time.sleep(0.5)
            report(label, runs)
        finally:
            pg.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
