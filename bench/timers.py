"""Turn-based games waiting on their clocks: what 1,000 pending deadlines cost one server
process while nothing happens, and how soon after a deadline the bot moves.

    python bench/timers.py                 # 1000 games, 10 s idle window, 40 timed-out
    python bench/timers.py --games 200 --idle 5 --late 20

The server runs as its own process (``elfenland serve``, SQLite in a temporary
directory); CPU time and RSS come from /proc for that process only.  Steps:

1. idle with no game: CPU % and RSS (the baseline);
2. create ``--games`` turn-based games (a human who never moves, a random bot), each
   with a day per turn, so each has one pending deadline; idle again: CPU % and RSS;
3. create ``--late`` more games with a short turn, watch each as a spectator, and
   measure from each game's deadline (the server's ``clock.deadline``) to the update
   that carries the bot's move.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from elfenland.server.background import free_port

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def idle(pid: int, seconds: float) -> tuple[float, float]:
    """CPU % of one core and RSS (MiB) over an idle window."""
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu_seconds(pid), time.monotonic()
    return 100 * (c1 - c0) / (t1 - t0), rss_mib(pid)


def make_game(http: httpx.Client, base: str, per_move: float) -> dict[str, Any]:
    made = http.post(f"{base}/api/games", json={
        "players": 2, "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}],
        "tempo": {"kind": "turn", "per_move": per_move, "max_timeouts": 3}}).json()
    gid = made["game"]["id"]
    started = http.post(f"{base}/api/games/{gid}/start", json={"token": made["token"]})
    started.raise_for_status()
    return dict(started.json())


async def latency(ws_base: str, gid: str) -> float:
    """Seconds from the game's deadline to the update with the bot's move."""
    async with connect(f"{ws_base}/ws/games/{gid}") as ws:
        deadline = None
        seq = None
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 120))
            if msg["type"] != "update":
                continue
            clock = msg.get("clock") or {}
            if deadline is None:
                deadline, seq = clock.get("deadline"), msg["seq"]
                if deadline is None:  # the bot is to move first; wait for the human's turn
                    seq = None
                continue
            if msg["seq"] > seq:
                return time.time() - float(deadline)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds per idle window")
    parser.add_argument("--late", type=int, default=40, help="games timed out for latency")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port),
             "--db", f"{tmp}/games.sqlite3", "--bot-delay", "0", "--log-level", "warning",
             "--games-per-host", str(args.games + args.late + 10),
             "--min-move-seconds", "1"], stdout=subprocess.PIPE, text=True)
        base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        try:
            assert proc.stdout is not None
            proc.stdout.readline()
            with httpx.Client(timeout=30) as http:
                while True:
                    try:
                        http.get(f"{base}/api/games?status=open")
                        break
                    except httpx.TransportError:
                        time.sleep(0.1)
                time.sleep(2)
                cpu0, rss0 = idle(proc.pid, args.idle)
                t0 = time.monotonic()
                for _ in range(args.games):
                    make_game(http, base, per_move=86400)
                made = time.monotonic() - t0
                time.sleep(2)
                cpu1, rss1 = idle(proc.pid, args.idle)
                late = [make_game(http, base, per_move=2.0)["id"] for _ in range(args.late)]

            async def all_late() -> list[float]:
                return list(await asyncio.gather(*(latency(ws_base, g) for g in late)))

            waits = sorted(asyncio.run(all_late()))
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"server process, {args.idle:g} s idle windows (CPU % of one core):")
    print(f"  no game:                 CPU {cpu0:5.2f} %  RSS {rss0:6.1f} MiB")
    print(f"  {args.games} pending deadlines: CPU {cpu1:5.2f} %  RSS {rss1:6.1f} MiB"
          f"  (created in {made:.1f} s; +{(rss1 - rss0) * 1024 / max(1, args.games):.0f}"
          " KiB per game)")
    p95 = waits[max(0, int(len(waits) * 0.95) - 1)]
    print(f"deadline -> bot move, {len(waits)} games timed out while those wait: "
          f"median {1000 * statistics.median(waits):.0f} ms, p95 {1000 * p95:.0f} ms, "
          f"max {1000 * waits[-1]:.0f} ms")


if __name__ == "__main__":
    main()
