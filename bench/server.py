"""Load on the game server through real sockets on loopback.

Starts ``elfenland serve`` as a subprocess on a fresh database, then keeps N games
running at once: in each, seat 0 is a WebSocket client that plays a random legal action
the moment it is its turn, and the other seats are the server's own bots (playing after
``--bot-delay``).  A game that ends is replaced by a new one.  Prints, per N, the actions
per second the server applied and the latency from the client sending an action to the
``update`` that shows it applied (median, p99), counted after a warm-up in which the
games are created.

    python bench/server.py                       # N = 10, 100, 500; 20 s each
    python bench/server.py --games 100 --seconds 30 --db postgresql://elf:elf@127.0.0.1/elf
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from elfenland.server.background import free_port


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    #: Actions applied (all seats), counted from the seq each client saw.
    actions: int = 0
    games_done: int = 0
    errors: int = 0
    #: Nothing is counted before this moment: the games are being created until then.
    since: float = 0.0

    def counting(self) -> bool:
        return time.monotonic() >= self.since


async def post(http: httpx.AsyncClient, url: str, body: dict[str, object]) -> httpx.Response:
    """A POST retried on a dropped connection (a pooled one the server just closed)."""
    for attempt in range(5):
        try:
            return await http.post(url, json=body)
        except httpx.TransportError:
            if attempt == 4:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("unreachable")


async def one_seat(base: str, ws_base: str, http: httpx.AsyncClient, players: int,
                   level: str, rng: random.Random, tally: Tally, until: float) -> None:
    """Play seat 0 of game after game until the time is up."""
    while time.monotonic() < until:
        seats = [{"kind": "human"}] + [{"kind": "bot", "level": level}] * (players - 1)
        made = (await post(http, f"{base}/api/games", {
            "players": players, "seed": rng.randrange(2**62), "name": "bench",
            "seats": seats})).json()
        gid, token = made["game"]["id"], made["token"]
        await post(http, f"{base}/api/games/{gid}/start", {"token": token})
        async with connect(f"{ws_base}/ws/games/{gid}?token={token}") as ws:
            sent_at: float | None = None
            sent_seq = -1
            last_seq = 0
            while time.monotonic() < until:
                try:
                    raw = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
                except TimeoutError:
                    return
                msg = json.loads(raw)
                if msg["type"] == "error":
                    tally.errors += 1
                    await ws.send(json.dumps({"type": "sync", "since": last_seq}))
                    continue
                if msg["type"] != "update":
                    continue
                seq = msg["seq"]
                if sent_at is not None and seq > sent_seq:
                    if tally.counting():
                        tally.latencies.append(time.perf_counter() - sent_at)
                    sent_at = None
                if seq > last_seq:
                    if tally.counting():
                        tally.actions += seq - last_seq
                    last_seq = seq
                view = msg["view"]
                if view["current_player"] is None:
                    tally.games_done += 1
                    break
                if view["current_player"] == 0 and view.get("legal") and seq > sent_seq:
                    sent_seq = seq
                    action = view["legal"][rng.randrange(len(view["legal"]))]
                    sent_at = time.perf_counter()
                    await ws.send(json.dumps({"type": "action", "action": action, "seq": seq}))


async def measure(port: int, games: int, seconds: float, players: int, level: str,
                  seed: int, warm_up: float) -> tuple[Tally, float]:
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    tally = Tally()
    limits = httpx.Limits(max_connections=200)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        start = time.monotonic()
        tally.since = start + warm_up
        until = tally.since + seconds
        rng = random.Random(seed)
        tasks = [one_seat(base, ws_base, http, players, level, random.Random(rng.random()),
                          tally, until) for _ in range(games)]
        await asyncio.gather(*tasks)
        return tally, time.monotonic() - tally.since


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def serve(port: int, db: str, bot_delay: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port), "--db", db,
         "--bot-delay", str(bot_delay), "--games-per-host", "100000", "--rate", "1000",
         "--log-level", "warning"], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"http://127.0.0.1:{port}/api/games?status=open").is_success:
                return proc
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="*", default=[10, 100, 500])
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="measuring time per N, after the warm-up")
    parser.add_argument("--warm-up", type=float, default=5.0,
                        help="seconds to create the games before measuring")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--level", default="random", help="the server bots' level")
    parser.add_argument("--bot-delay", type=float, default=0.5)
    parser.add_argument("--db", default=None, help="default: a fresh SQLite file")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(f"{args.players}-player Elfenland, seat 0 a socket client, {args.players - 1} "
          f"server bots ({args.level}, delay {args.bot_delay} s), {args.seconds:g} s per N")
    print(f"{'games':>6} {'actions/s':>10} {'latency median':>15} {'p99':>9} "
          f"{'samples':>8} {'finished':>8} {'errors':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.games:
            db = args.db or f"sqlite:///{Path(tmp) / f'bench-{n}.sqlite3'}"
            port = free_port()
            proc = serve(port, db, args.bot_delay)
            try:
                tally, elapsed = asyncio.run(
                    measure(port, n, args.seconds, args.players, args.level, args.seed,
                            args.warm_up))
            finally:
                proc.terminate()
                proc.wait(20)
            lat = tally.latencies
            med = statistics.median(lat) * 1000 if lat else float("nan")
            print(f"{n:>6} {tally.actions / elapsed:>10.1f} {med:>12.1f} ms "
                  f"{pct(lat, 0.99) * 1000:>6.1f} ms {len(lat):>8} {tally.games_done:>8} "
                  f"{tally.errors:>6}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
