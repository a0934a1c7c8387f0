"""Load on the game server through real sockets on loopback.

Starts ``elfenland serve`` as a subprocess on a fresh database, then keeps N games
running at once: in each, seat 0 is a WebSocket client that plays a random legal action
the moment it is its turn, and the other seats are the server's own bots (playing after
``--bot-delay``).  A game that ends is replaced by a new one.  Prints, per N, the actions
per second the server applied and the latency from the client sending an action to the
``update`` that shows it applied (median, p99).  The N games are created and started
first; then all of them are played, and counting starts after ``--warm-up`` seconds of
play.

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
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from elfenland.server.background import free_port


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    #: Actions applied (all seats), counted from the seq each client saw.
    actions: int = 0
    games_done: int = 0
    errors: int = 0
    #: What the errors were (an error message's code, or the exception's type).
    reasons: Counter[str] = field(default_factory=Counter)
    #: Nothing is counted before this moment: the games are being created until then.
    since: float = 0.0
    #: When each latency was taken, in seconds after ``since`` (where in the measured
    #: window the slow ones fall: a cold start shows in its first seconds).
    at: list[float] = field(default_factory=list)

    def counting(self) -> bool:
        return time.monotonic() >= self.since


class HttpError(Exception):
    """A request the server answered with an error status."""


async def post(base: str, path: str, body: dict[str, object]) -> dict[str, Any]:
    """POST ``body`` as JSON on a connection of its own and return the JSON answer.

    A few lines of HTTP/1.1 rather than httpx: with a thousand games the load client
    shares the machine's two cores with the servers it measures, and httpx's pool (and
    its async-library detection on every request) cost more CPU than the server spends
    creating the game.  Retried on a refused or dropped connection."""
    host, _, port = base.removeprefix("http://").partition(":")
    data = json.dumps(body).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode()
    for attempt in range(5):
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
            try:
                writer.write(head + data)
                raw = await reader.read()
            finally:
                writer.close()
            status_line, _, rest = raw.partition(b"\r\n")
            headers, _, payload = rest.partition(b"\r\n\r\n")
            status = int(status_line.split()[1])
            if b"transfer-encoding: chunked" in headers.lower():
                payload = _unchunk(payload)
            if status >= 400:
                raise HttpError(f"{status} {payload[:200]!r}")
            answer: dict[str, Any] = json.loads(payload)
            return answer
        except (OSError, IndexError, ValueError):
            if attempt == 4:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("unreachable")


def _unchunk(payload: bytes) -> bytes:
    out = b""
    while payload:
        size, _, payload = payload.partition(b"\r\n")
        n = int(size, 16)
        if n == 0:
            break
        out += payload[:n]
        payload = payload[n + 2:]
    return out


async def new_game(base: str, players: int, level: str, rng: random.Random
                   ) -> tuple[str, str]:
    """A started game with a human seat 0 and server bots in the others: (id, token)."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "level": level}] * (players - 1)
    made = await post(base, "/api/games", {"players": players, "seed": rng.randrange(2**62),
                                           "name": "bench", "seats": seats})
    gid, token = made["game"]["id"], made["token"]
    await post(base, f"/api/games/{gid}/start", {"token": token})
    return str(gid), str(token)


async def create_games(base: str, n: int, players: int, level: str, rng: random.Random,
                       parallel: int = 50) -> list[tuple[str, str]]:
    """N started games, ``parallel`` requests at a time (before the clock starts: the
    measurement is of games being played, not of a thousand being set up at once)."""
    gate = asyncio.Semaphore(parallel)
    seeds = [random.Random(rng.random()) for _ in range(n)]

    async def one(r: random.Random) -> tuple[str, str]:
        async with gate:
            return await new_game(base, players, level, r)

    return list(await asyncio.gather(*(one(r) for r in seeds)))


async def one_seat(base: str, ws_base: str, players: int, level: str, rng: random.Random,
                   tally: Tally, game: tuple[str, str] | None = None,
                   stagger: float = 0.0) -> None:
    """Play seat 0 of game after game (``game`` first) until cancelled: a random legal
    action the moment it is its turn.  A dropped socket is reconnected (and counted as
    an error) with the seq it had, so a client of a cluster follows its game to the
    process that serves it now."""
    if game is not None and stagger:
        await asyncio.sleep(rng.random() * stagger)
    while True:
        gid, token = game or await new_game(base, players, level, rng)
        game = None
        last_seq, sent_seq, sent_at, over = 0, -1, None, False
        while not over:
            url = f"{ws_base}/ws/games/{gid}?token={token}&since={last_seq}"
            try:
                async with connect(url, open_timeout=30) as ws:
                    async for raw in ws:
                        msg = json.loads(raw)
                        kind = msg["type"]
                        if kind == "error":
                            tally.errors += 1
                            tally.reasons[str(msg.get("code"))] += 1
                            await ws.send(json.dumps({"type": "sync", "since": last_seq}))
                            continue
                        if kind != "update":
                            continue
                        seq = msg["seq"]
                        if sent_at is not None and seq > sent_seq:
                            if tally.counting():
                                tally.latencies.append(time.perf_counter() - sent_at)
                                tally.at.append(time.monotonic() - tally.since)
                            sent_at = None
                        if seq > last_seq:
                            if tally.counting():
                                tally.actions += seq - last_seq
                            last_seq = seq
                        view = msg["view"]
                        if view["current_player"] is None:
                            tally.games_done += 1
                            over = True
                            break
                        legal = view.get("legal")
                        if view["current_player"] == 0 and legal and seq > sent_seq:
                            sent_seq = seq
                            action = legal[rng.randrange(len(legal))]
                            sent_at = time.perf_counter()
                            await ws.send(json.dumps({"type": "action", "action": action,
                                                      "seq": seq}))
                    else:
                        raise ConnectionError("closed by the server")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                tally.errors += 1
                tally.reasons[type(exc).__name__] += 1
                sent_seq, sent_at = -1, None
                await asyncio.sleep(0.2)


async def play(base: str, ws_base: str, games: list[tuple[str, str]], players: int,
               level: str, rng: random.Random, tally: Tally, warm_up: float,
               seconds: float, stagger: float = 0.0) -> None:
    """Every game's seat 0 played for ``warm_up`` + ``seconds``, counting the last
    ``seconds``; the clients are cancelled at the end (no timer per message).  Each
    game's player joins at a random moment of the first ``stagger`` seconds: with 0 all
    games start in the same instant and, the bots' delay being fixed, stay in lockstep,
    so their actions come in bursts (the worst case, not how players arrive)."""
    tally.since = time.monotonic() + warm_up
    tasks = [asyncio.create_task(one_seat(base, ws_base, players, level,
                                          random.Random(rng.random()), tally, g, stagger))
             for g in games]
    await asyncio.sleep(warm_up + seconds)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def measure(port: int, games: int, seconds: float, players: int, level: str,
                  seed: int, warm_up: float, stagger: float = 0.0) -> tuple[Tally, float]:
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    tally = Tally()
    rng = random.Random(seed)
    made = await create_games(base, games, players, level, rng)
    await play(base, ws_base, made, players, level, rng, tally, warm_up, seconds, stagger)
    return tally, seconds


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def serve(port: int, db: str, bot_delay: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port), "--db", db,
         "--bot-delay", str(bot_delay), "--games-per-host", "100000", "--rate", "1000",
         "--log-level", "warning"], stdout=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), urllib.request.urlopen(
                f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
            if r.status == 200:
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
    parser.add_argument("--stagger", type=float, default=0.0,
                        help="each game's player joins within these first seconds (0: all "
                             "at once, the games in lockstep)")
    parser.add_argument("--db", default=None, help="default: a fresh SQLite file")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(f"{args.players}-player Elfenland, seat 0 a socket client, {args.players - 1} "
          f"server bots ({args.level}, delay {args.bot_delay} s), players joining within "
          f"{args.stagger:g} s, {args.seconds:g} s per N")
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
                            args.warm_up, args.stagger))
            finally:
                proc.terminate()
                proc.wait(20)
            lat = tally.latencies
            med = statistics.median(lat) * 1000 if lat else float("nan")
            print(f"{n:>6} {tally.actions / elapsed:>10.1f} {med:>12.1f} ms "
                  f"{pct(lat, 0.99) * 1000:>6.1f} ms {len(lat):>8} {tally.games_done:>8} "
                  f"{tally.errors:>6} {dict(tally.reasons) if tally.reasons else ''}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
