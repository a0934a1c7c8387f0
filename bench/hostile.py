"""Play under attack: the action→update latency of N normal games, alone and while
hostile clients run, side by side in one run (issue 23).

Each phase starts ``elfenland serve`` on a fresh SQLite file (same flags both times:
``--webhook-allow 127.0.0.1/32`` so the slow webhooks are called at all) and plays N
games as bench/server.py does: seat 0 a WebSocket client playing a random legal action
the moment it is its turn, the other seats the server's bots.  In the hostile phase a
second process meanwhile

- keeps ``--slowloris`` connections open, each dripping a byte of an unfinished request
  every second (reconnecting when the server cuts one at its header deadline), and
- answers ``--webhooks`` players' webhooks a byte a second (their calls run into the
  server's per-call deadline); those players sit in extra games played like the others
  but not counted, so their webhooks are called at every turn.

Prints each phase's actions per second and latency (median, p99) and the p99 ratio
(goal: within 2x of the quiet figure).

    python bench/hostile.py                   # 100 games, 1,000 slowloris, 20 webhooks
    python bench/hostile.py --games 20 --seconds 10 --slowloris 200
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from elfenland.server.background import free_port
from server import Tally, create_games, one_seat, pct, post


# -- the attacker (a process of its own) -------------------------------------------------
async def _drip(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A webhook that takes the request, then answers a byte a second."""
    with contextlib.suppress(Exception):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        for _ in range(600):
            await asyncio.sleep(1.0)
            writer.write(b"x")
            await writer.drain()
    writer.close()


async def _slowloris(port: int, n: int) -> None:
    """``n`` connections each sending a request a byte a second, never finishing it."""
    conns: list[asyncio.StreamWriter | None] = [None] * n

    async def opened() -> asyncio.StreamWriter | None:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            return writer
        except OSError:
            return None

    while True:
        for i in range(n):
            w = conns[i]
            if w is None or w.is_closing():
                conns[i] = await opened()
            else:
                with contextlib.suppress(Exception):
                    w.write(b"a")
        await asyncio.sleep(1.0)


async def attacker(port: int, slow: int) -> None:
    hooks = await asyncio.start_server(_drip, "127.0.0.1", 0)
    print(hooks.sockets[0].getsockname()[1], flush=True)
    await _slowloris(port, slow)


# -- the measurement -----------------------------------------------------------------------
def serve(port: int, db: str, bot_delay: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port), "--db", db,
         "--bot-delay", str(bot_delay), "--games-per-host", "100000", "--rate", "1000",
         "--log-level", "error", "--webhook-allow", "127.0.0.1/32"],
        stdout=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), urllib.request.urlopen(
                f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
            if r.status == 200:
                return proc
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


async def hooked_games(base: str, n: int, hook_port: int, players: int, level: str
                       ) -> list[tuple[str, str]]:
    """``n`` started games whose seat 0 is a player with a slow webhook."""
    out = []
    for i in range(n):
        player = await post(base, "/api/players", {
            "name": f"slow{i}", "webhook": f"http://127.0.0.1:{hook_port}/hook{i}"})
        seats = [{"kind": "human"}] + [{"kind": "bot", "level": level}] * (players - 1)
        made = await post(base, "/api/games", {"players": players, "seats": seats,
                                               "player": player["token"]})
        gid, token = str(made["game"]["id"]), str(made["token"])
        await post(base, f"/api/games/{gid}/start", {"token": token})
        out.append((gid, token))
    return out


async def phase(port: int, args: argparse.Namespace, hook_port: int | None) -> Tally:
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    rng = random.Random(args.seed)
    games = await create_games(base, args.games, args.players, args.level, rng)
    tally, ignored = Tally(), Tally()
    tally.since = time.monotonic() + args.warm_up
    ignored.since = float("inf")
    tasks = [asyncio.create_task(one_seat(base, ws_base, args.players, args.level,
                                          random.Random(rng.random()), tally, g))
             for g in games]
    if hook_port is not None:
        hooked = await hooked_games(base, args.webhooks, hook_port, args.players, args.level)
        tasks += [asyncio.create_task(one_seat(base, ws_base, args.players, args.level,
                                               random.Random(rng.random()), ignored, g))
                  for g in hooked]
    await asyncio.sleep(args.warm_up + args.seconds)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return tally


def run_phase(args: argparse.Namespace, db: str, hostile: bool) -> Tally:
    port = free_port()
    proc = serve(port, db, args.bot_delay)
    attack: subprocess.Popen[str] | None = None
    try:
        hook_port = None
        if hostile:
            attack = subprocess.Popen(
                [sys.executable, __file__, "--attacker", str(port), "--slowloris",
                 str(args.slowloris)], stdout=subprocess.PIPE, text=True)
            assert attack.stdout is not None
            hook_port = int(attack.stdout.readline())
            time.sleep(3.0)  # the slow connections are open before the games start
        return asyncio.run(phase(port, args, hook_port))
    finally:
        proc.terminate()
        proc.wait(20)
        if attack is not None:
            attack.terminate()
            attack.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warm-up", type=float, default=5.0)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--level", default="random")
    parser.add_argument("--bot-delay", type=float, default=0.5)
    parser.add_argument("--slowloris", type=int, default=1000)
    parser.add_argument("--webhooks", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--attacker", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attacker is not None:
        asyncio.run(attacker(args.attacker, args.slowloris))
        return 0

    print(f"{args.games} games of {args.players}-player Elfenland (seat 0 a socket client, "
          f"bots {args.level} with {args.bot_delay} s delay), {args.seconds:g} s each phase; "
          f"hostile: {args.slowloris} slowloris connections, {args.webhooks} webhooks "
          "answering a byte a second")
    print(f"{'phase':>8} {'actions/s':>10} {'median':>9} {'p99':>9} {'samples':>8} "
          f"{'errors':>6}")
    p99 = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("quiet", "hostile"):
            tally = run_phase(args, f"sqlite:///{Path(tmp) / f'{name}.sqlite3'}",
                              name == "hostile")
            lat = tally.latencies
            med = statistics.median(lat) * 1000 if lat else float("nan")
            p99[name] = pct(lat, 0.99) * 1000
            print(f"{name:>8} {tally.actions / args.seconds:>10.1f} {med:>6.1f} ms "
                  f"{p99[name]:>6.1f} ms {len(lat):>8} {tally.errors:>6} "
                  f"{dict(tally.reasons) if tally.reasons else ''}", flush=True)
    print(f"p99 hostile / quiet: {p99['hostile'] / p99['quiet']:.2f}x (goal: at most 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
