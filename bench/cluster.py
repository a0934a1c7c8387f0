"""Several server processes behind HAProxy against one process, side by side in one run,
and the time a game takes to come back when the process serving it is killed.

Throughput: for each N, first one ``elfenland serve`` process on PostgreSQL (today's
set-up), then ``--processes`` cluster processes behind HAProxy on the same PostgreSQL,
each loaded with N concurrent 4-player Elfenland games exactly as ``bench/server.py``
does (seat 0 a WebSocket client playing at once, three server bots after
``--bot-delay``); the clients run in ``--clients`` processes of their own, which create
all N games first and then start playing together.  Prints the actions per second
applied and the action -> update latency (median, p99), the errors clients saw and why,
the server processes' CPU time per action and the machine's busy share over the measured
seconds (Linux /proc: the load generator, PostgreSQL and HAProxy share the machine), and
how often HAProxy took a process out.

Failover: ``--failover-games`` games with a reconnecting client each run on the cluster;
then the process owning the most of them is killed with SIGKILL, and for every client of
those games the time from the kill to the first update after its reconnect is taken.
Repeated ``--failover-rounds`` times (the killed process is started again in between).

Before/after: ``--before SRC`` (the ``src`` directory of another checkout, say the
commit before a change, its C extensions built in place) runs, for each N, the cluster of
that code and the cluster of this one, side by side in the same run (``--skip-single``
leaves out the one-process rows).  ``--rounds R`` measures each set-up R times, the two
alternating (before, after; after, before; ...), so that a machine whose load changes
during the run favours neither, and prints the medians, the spread and the ratios; on a
loaded machine the CPU time per action is the steadiest of the figures.  With a before,
each set-up first runs once uncounted (``--warm-rounds``): otherwise the bench's first
run, the only one not following another run's teardown, favours the set-up that goes
first.  Each row ends with the p99 of each quarter of its measured window (a cold start
shows as a slow first quarter) and the machine's load average.

    python bench/cluster.py                              # N = 300 and 1000
    python bench/cluster.py --games 300 --seconds 20 --failover-rounds 3
    python bench/cluster.py --games 300 --skip-single --failover-rounds 0 --before ../old/src
    python bench/cluster.py --skip-single --failover-rounds 0 --rounds 3 --before ../old/src
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import secrets
import signal
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent))

from elfenland.server.background import free_port
from elfenland.server.cluster import LocalCluster
from server import Tally, create_games, pct, play, serve

DEFAULT_DB = os.environ.get("ELFENLAND_TEST_PG_URL",
                            "postgresql://elf:elf@127.0.0.1:5432/elfenland")


@contextlib.contextmanager
def fresh_schema(base: str):  # type: ignore[no-untyped-def]
    """A PostgreSQL schema of its own for one measurement, dropped afterwards."""
    import psycopg

    schema = f"bench_{secrets.token_hex(5)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _client_share(port: int, games: int, seconds: float, level: str, seed: int,
                  warm_up: float, ready: Any, stagger: float) -> Tally:
    """One client process: create its games, wait at ``ready`` until every client
    process has, then play them all for ``warm_up`` + ``seconds``."""
    async def run() -> Tally:
        base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        rng = random.Random(seed)
        made = await create_games(base, games, 4, level, rng)
        await asyncio.get_running_loop().run_in_executor(None, ready.wait)
        tally = Tally()
        await play(base, ws_base, made, 4, level, rng, tally, warm_up, seconds, stagger)
        return tally

    return asyncio.run(run())


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])
    return total / tick


def _machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far (Linux /proc/stat)."""
    tick = os.sysconf("SC_CLK_TCK")
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:8]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / tick, sum(fields) / tick


@dataclass
class Cpu:
    """Over the measured seconds: the servers' CPU seconds, and the machine's busy share."""
    servers: float = float("nan")
    busy: float = float("nan")


def load(port: int, games: int, seconds: float, level: str, seed: int, warm_up: float,
         clients: int, servers: list[int] | None = None, stagger: float = 0.0
         ) -> tuple[Tally, float, Cpu]:
    """Run N games' clients split over ``clients`` processes (one Python process does
    not keep up with a thousand games on its own); the merged tally, and what the
    ``servers`` processes and the whole machine spent over the measured seconds.  The
    processes start playing together once all of them have created their games."""
    shares = [games // clients + (1 if i < games % clients else 0) for i in range(clients)]
    shares = [n for n in shares if n]
    ctx = multiprocessing.get_context("fork")
    cpu = Cpu()
    with ctx.Manager() as manager, ProcessPoolExecutor(len(shares), ctx) as pool:
        ready = manager.Barrier(len(shares) + 1)
        futures = [pool.submit(_client_share, port, n, seconds, level, seed * 100 + i,
                               warm_up, ready, stagger) for i, n in enumerate(shares)]
        ready.wait()
        time.sleep(warm_up)
        own0, (busy0, all0) = _cpu_seconds(servers or []), _machine_busy()
        time.sleep(seconds)
        own1, (busy1, all1) = _cpu_seconds(servers or []), _machine_busy()
        cpu = Cpu(own1 - own0, (busy1 - busy0) / max(all1 - all0, 1e-9))
        parts = [f.result() for f in futures]
    total = Tally()
    for t in parts:
        total.latencies += t.latencies
        total.at += t.at
        total.actions += t.actions
        total.games_done += t.games_done
        total.errors += t.errors
        total.reasons.update(t.reasons)
    return total, seconds, cpu


def by_quarter(tally: Tally, elapsed: float) -> str:
    """The p99 of each quarter of the measured window, in ms: a cold start (connections
    still being opened, code paths run the first time) shows as a slow first quarter,
    a neighbour's burst on a shared machine as one slow quarter anywhere."""
    parts: list[list[float]] = [[], [], [], []]
    for lat, at in zip(tally.latencies, tally.at, strict=True):
        parts[min(3, max(0, int(at / elapsed * 4)))].append(lat)
    return "/".join(f"{pct(p, 0.99) * 1000:.0f}" for p in parts)


def row(label: str, n: int, tally: Tally, elapsed: float, cpu: Cpu) -> str:
    """One measured run; ends with the p99 of each quarter of the window and the
    machine's load average (1 min) at its end."""
    lat = tally.latencies
    med = statistics.median(lat) * 1000 if lat else float("nan")
    per_action = cpu.servers / max(tally.actions, 1) * 1000
    return (f"{label:<14} {n:>6} {tally.actions / elapsed:>10.1f} {med:>11.1f} ms "
            f"{pct(lat, 0.99) * 1000:>8.1f} ms {len(lat):>8} {tally.games_done:>8} "
            f"{tally.errors:>6} {per_action:>8.2f} ms {cpu.busy * 100:>5.0f} %"
            f"  p99/quarter {by_quarter(tally, elapsed)} ms, load {os.getloadavg()[0]:.2f}"
            + (f"  ({', '.join(f'{k} {v}' for k, v in tally.reasons.most_common())})"
               if tally.reasons else ""))


def marked_down(cluster: LocalCluster) -> str:
    """How often HAProxy took a process out, and why (a failed health check cuts the
    process's sessions: its games move, and their clients reconnect)."""
    text = (cluster.log_dir / "haproxy.log").read_text(errors="replace")
    reasons = Counter(line.partition("reason: ")[2].partition(",")[0] or "?"
                      for line in text.splitlines() if " is DOWN" in line)
    if not reasons:
        return ""
    return (f"  HAProxy marked a process down {sum(reasons.values())} times ("
            + ", ".join(f"{k} {v}" for k, v in reasons.most_common()) + ")")


# -- failover -----------------------------------------------------------------------
async def _reconnecting_seat(base: str, ws_base: str, http: httpx.AsyncClient, seed: int,
                             state: dict[str, object], stop: asyncio.Event) -> None:
    """One game: seat 0 played through the load balancer, reconnecting on any close;
    ``state`` gets the game id, each update's arrival time and the reconnects."""
    made = (await http.post(f"{base}/api/games", json={
        "players": 4, "seed": seed, "name": "bench",
        "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 3})).json()
    gid, token = made["game"]["id"], made["token"]
    state["game"] = gid
    await http.post(f"{base}/api/games/{gid}/start", json={"token": token})
    rng = random.Random(seed)
    updates: list[tuple[int, float]] = []
    state["updates"] = updates
    state["connections"] = 0
    since = 0
    while not stop.is_set():
        try:
            async with connect(f"{ws_base}/ws/games/{gid}?token={token}&since={since}",
                               open_timeout=5) as ws:
                state["connections"] = number = int(state["connections"]) + 1  # type: ignore[call-overload]
                while not stop.is_set():
                    try:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                    except TimeoutError:
                        continue
                    if msg["type"] != "update":
                        continue
                    updates.append((number, time.monotonic()))
                    if msg["log"]:
                        since = int(msg["log"][-1]["seq"])
                    view = msg["view"]
                    if view["current_player"] is None:
                        return
                    if view["current_player"] == 0 and view.get("legal"):
                        action = view["legal"][rng.randrange(len(view["legal"]))]
                        await ws.send(json.dumps({"type": "action", "action": action,
                                                  "seq": msg["seq"]}))
        except Exception:
            await asyncio.sleep(0.05)


def _owner(db: str, gid: str) -> str | None:
    import psycopg

    with psycopg.connect(db) as conn:
        r = conn.execute("SELECT owner FROM leases WHERE game_id = %s AND "
                         "expires > clock_timestamp()", (gid,)).fetchone()
    return None if r is None else str(r[0]).split("/")[0]


async def _failover_round(cluster: LocalCluster, games: int, seed: int) -> list[float]:
    stop = asyncio.Event()
    states: list[dict[str, object]] = [{} for _ in range(games)]
    async with httpx.AsyncClient(timeout=60) as http:
        tasks = [asyncio.create_task(_reconnecting_seat(cluster.url, cluster.ws_url, http,
                                                        seed + i, states[i], stop))
                 for i in range(games)]
        await asyncio.sleep(6)  # under way
        owners = {str(s["game"]): _owner(cluster.db, str(s["game"])) for s in states
                  if "game" in s}
        counts: dict[str, int] = {}
        for o in owners.values():
            if o:
                counts[o] = counts.get(o, 0) + 1
        victim = max(counts, key=lambda k: counts[k])
        hit = [s for s in states if owners.get(str(s.get("game"))) == victim]
        # The connection each client had when the process died: the failover ends with
        # the first update on a later one.
        # (0 for a client still setting its game up when the process died.)
        before = {id(s): int(s.get("connections", 0)) for s in hit}  # type: ignore[call-overload]
        killed = time.monotonic()
        cluster.servers[victim].send_signal(signal.SIGKILL)
        cluster.servers[victim].wait(10)
        await asyncio.sleep(15)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    times = []
    for s in hit:
        after = [t for n, t in s.get("updates", []) if n > before[id(s)]]  # type: ignore[attr-defined]
        if after:
            times.append(after[0] - killed)
    missing = len(hit) - len(times)
    print(f"  round: killed {victim} owning {len(hit)} of {games} games; "
          f"{missing} got no update within 15 s", flush=True)
    cluster.restart(victim)
    cluster.wait_up()
    return times


@dataclass
class Result:
    """One measured run's figures."""
    rate: float
    median_ms: float
    p99_ms: float
    cpu_ms: float


def _cluster(args: argparse.Namespace, n: int, label: str, src: str | None,
             serve_args: list[str]) -> Result:
    """The cluster of this checkout (``src`` None) or of the code in ``src`` under N
    games, printed as one row."""
    env = {"PYTHONPATH": str(Path(src).resolve())} if src else None
    with fresh_schema(args.db) as db, \
            LocalCluster(db, args.processes, serve_args=serve_args, env=env,
                         trusted_proxy_flag=src is None) as cluster:
        tally, elapsed, cpu = load(cluster.port, n, args.seconds, "random", args.seed,
                                   args.warm_up, args.clients,
                                   [p.pid for p in cluster.servers.values()], args.stagger)
        print(row(label, n, tally, elapsed, cpu) + marked_down(cluster), flush=True)
    lat = tally.latencies
    return Result(tally.actions / elapsed,
                  statistics.median(lat) * 1000 if lat else float("nan"),
                  pct(lat, 0.99) * 1000, cpu.servers / max(tally.actions, 1) * 1000)


def summarise(n: int, results: dict[str, list[Result]], labels: list[str]) -> None:
    """Per set-up, the median over the rounds and the spread (lowest-highest); with a
    before, the ratio of the medians and each round's own ratio (the two ran next to
    each other, so a round's ratio sees the same load on the machine)."""
    print(f"  N = {n}, {len(results[labels[0]])} rounds: median (lowest-highest)", flush=True)
    fields = (("actions/s", "rate", "{:.1f}"), ("median ms", "median_ms", "{:.1f}"),
              ("p99 ms", "p99_ms", "{:.1f}"), ("CPU/act ms", "cpu_ms", "{:.3f}"))
    for label in labels:
        parts = []
        for title, name, fmt in fields:
            xs = [getattr(r, name) for r in results[label]]
            parts.append(f"{title} {fmt.format(statistics.median(xs))} "
                         f"({fmt.format(min(xs))}-{fmt.format(max(xs))})")
        print(f"  {label:<14} " + ", ".join(parts), flush=True)
    if len(labels) == 2:
        before, after = results[labels[0]], results[labels[1]]
        for title, name, _ in fields:
            ratios = [getattr(a, name) / getattr(b, name)
                      for a, b in zip(after, before, strict=True)]
            mid = (statistics.median(getattr(a, name) for a in after)
                   / statistics.median(getattr(b, name) for b in before))
            print(f"  after/before {title:<10} {mid:.3f} (rounds: "
                  + ", ".join(f"{x:.3f}" for x in ratios) + ")", flush=True)


def _single(args: argparse.Namespace, n: int) -> None:
    """One ``elfenland serve`` process on PostgreSQL under N games."""
    with fresh_schema(args.db) as db:
        port = free_port()
        proc = serve(port, db, args.bot_delay)
        try:
            tally, elapsed, cpu = load(port, n, args.seconds, "random", args.seed,
                                       args.warm_up, args.clients, [proc.pid], args.stagger)
        finally:
            proc.terminate()
            proc.wait(30)
        print(row("1 process", n, tally, elapsed, cpu), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="*", default=[300, 1000])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warm-up", type=float, default=10.0)
    parser.add_argument("--bot-delay", type=float, default=0.5)
    parser.add_argument("--stagger", type=float, default=1.5,
                        help="each game's player joins within these first seconds (players "
                             "do not all arrive in one instant); 0: every game starts at "
                             "once and stays in lockstep, the worst case")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--db", default=DEFAULT_DB, help="PostgreSQL base URL")
    parser.add_argument("--failover-games", type=int, default=60)
    parser.add_argument("--failover-rounds", type=int, default=3)
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-single", action="store_true",
                        help="measure the cluster only, not one process")
    parser.add_argument("--before", default=None, metavar="SRC",
                        help="also measure the cluster of the code in SRC (another "
                             "checkout's src directory), side by side")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure each set-up this many times, before and after "
                             "alternating (and which goes first alternating by round); "
                             "prints the medians, the spread and the ratios")
    parser.add_argument("--warm-rounds", type=int, default=None,
                        help="runs of each set-up measured and left out before the "
                             "rounds (default: 1 with --before, else 0)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    serve_args = ["--bot-delay", str(args.bot_delay), "--games-per-host", "100000",
                  "--rate", "1000", "--log-level", "warning"]
    if not args.skip_throughput:
        print(f"4-player Elfenland, seat 0 a socket client, 3 server bots (random, delay "
              f"{args.bot_delay} s), players joining within {args.stagger:g} s, "
              f"{args.warm_up:g} s warm-up then {args.seconds:g} s measured, PostgreSQL, "
              f"{args.clients} client processes, {os.cpu_count()} cores", flush=True)
        here = f"{args.processes} + HAProxy"
        variants = ([(f"before {args.processes}+HAP", args.before)] if args.before else []) \
            + [(here, None)]
        print(f"{'set-up':<14} {'games':>6} {'actions/s':>10} {'median':>14} {'p99':>11} "
              f"{'samples':>8} {'finished':>8} {'errors':>6} {'CPU/act':>11} {'busy':>7}",
              flush=True)
        for n in args.games:
            if not args.skip_single:
                _single(args, n)
            results: dict[str, list[Result]] = {}
            # A discarded run of each set-up first: the first run of a bench is the only
            # one that does not follow another run's teardown (its schema dropped, its
            # processes' sessions ended, PostgreSQL writing that out), and would favour
            # whichever set-up goes first.
            warm = args.warm_rounds if args.warm_rounds is not None else (
                1 if args.before else 0)
            for _ in range(warm):
                for label, src in variants:
                    _cluster(args, n, "(warm) " + label[:7], src, serve_args)
            for r in range(args.rounds):
                # Before and after alternate, and which goes first alternates by round: a
                # machine whose load drifts over the run favours neither.
                order = variants if r % 2 == 0 else variants[::-1]
                for label, src in order:
                    results.setdefault(label, []).append(
                        _cluster(args, n, label, src, serve_args))
            if args.rounds > 1 or args.before:
                summarise(n, results, [label for label, _ in variants])
    if args.failover_rounds:
        print(f"failover: {args.failover_games} games, SIGKILL of the busiest process, "
              "time to the first update after the reconnect", flush=True)
        times: list[float] = []
        with fresh_schema(args.db) as db, \
                LocalCluster(db, args.processes,
                             serve_args=[*serve_args, "--lease-seconds", "10"]) as cluster:
            for r in range(args.failover_rounds):
                times += asyncio.run(_failover_round(cluster, args.failover_games,
                                                     args.seed * 1000 + r * 100))
        if times:
            print(f"failover: {len(times)} clients, median {statistics.median(times):.2f} s, "
                  f"worst {max(times):.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
