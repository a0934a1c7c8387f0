"""A database call as the hub makes it, with and without its thread's connection pinned
(issue #21, the play path's cost), side by side in one run.

The hub sends every store call from the event loop to one of its database threads
(``run_in_executor``) and waits for the answer.  ``borrow``: the thread borrows a
connection from the ``psycopg_pool`` pool for the call and returns it (every call, under
the pool's lock); ``pinned``: the thread keeps the connection it borrowed first
(``PostgresStore.pin_thread``, what the hub's threads do).  ``--callers`` coroutines
each make calls one after the other on ``--threads`` threads; the round trip from the
event loop (a ``SELECT 1``: the borrow's share is largest on the cheapest statement) is
timed; the two set-ups take turns ``--rounds`` times, and the medians are printed with
their ratio.

    python bench/store_calls.py --db postgresql://elf:elf@127.0.0.1:5432/elf
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from elfenland.server.store import PostgresStore


async def measure(store: PostgresStore, pinned: bool, threads: int, callers: int,
                  calls: int) -> tuple[float, float]:
    """Median and 99th percentile of one call's round trip, in microseconds."""
    pool = ThreadPoolExecutor(threads, initializer=store.pin_thread if pinned else None)
    loop = asyncio.get_running_loop()
    times: list[float] = []

    async def caller() -> None:
        for _ in range(calls):
            start = time.perf_counter()
            await loop.run_in_executor(pool, store.ping)
            times.append(time.perf_counter() - start)

    try:
        await asyncio.gather(*(caller() for _ in range(callers)))  # warm-up
        times.clear()
        await asyncio.gather(*(caller() for _ in range(callers)))
    finally:
        pool.shutdown()
    times.sort()
    return statistics.median(times) * 1e6, times[int(0.99 * (len(times) - 1))] * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=os.environ.get("ELFENLAND_TEST_PG_URL",
                                                       "postgresql://elf:elf@127.0.0.1/elf"))
    parser.add_argument("--threads", type=int, default=4, help="the hub's database threads")
    parser.add_argument("--callers", type=int, default=8)
    parser.add_argument("--calls", type=int, default=500, help="per caller and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {"borrow": [], "pinned": []}
    for r in range(args.rounds):
        order = ("borrow", "pinned") if r % 2 == 0 else ("pinned", "borrow")
        for name in order:
            # A store of its own each time: a pinned thread's connection stays out of the
            # pool, and the next set-up starts from the same pool.
            store = PostgresStore(args.db)
            try:
                results[name].append(asyncio.run(measure(
                    store, name == "pinned", args.threads, args.callers, args.calls)))
            finally:
                store.close()
    load = os.getloadavg()[0]
    print(f"{args.callers} callers on {args.threads} database threads, {args.calls} calls "
          f"each a round, {args.rounds} rounds, load average {load:.1f}")
    print("set-up    median µs   p99 µs   (rounds: median)")
    med: dict[str, float] = {}
    for name, rows in results.items():
        med[name] = statistics.median(m for m, _ in rows)
        p99 = statistics.median(p for _, p in rows)
        each = ", ".join(f"{m:.0f}" for m, _ in rows)
        print(f"{name:8s} {med[name]:10.0f} {p99:8.0f}   ({each})")
    print(f"pinned / borrow median: {med['pinned'] / med['borrow']:.2f}")


if __name__ == "__main__":
    main()
