"""Root parallelism: one decision's deals split over forked worker processes.

A rollout is Python driving the compiled engine and holds the GIL, so threads cannot
share a decision; processes can.  ``fan_out`` forks ``workers - 1`` children per
decision: a child sees the state, the bot and its search as they are at the fork
(copy on write: nothing is pickled), draws its own deals (the bot's rng seeded again
with a seed the parent drew from it, so that the workers' deals differ and a seed
still gives one game), runs its share of the root loop on a budget of its own (the
seconds left on the parent's budget, on its own clock: a CPU clock counts the child's
own CPU), writes every root's tally to a pipe and leaves by ``os._exit``
(no cleanup of the parent's copied world: no atexit, no flushed buffers).  The parent
plays share 0 meanwhile, then merges what arrived.

A child that crashes, writes something else, or is not done when the parent has
waited as long as its own share took (at least the seconds the budget had) plus
``margin`` is killed and left out: the decision stands on what the others found, and
a game never waits on a lost worker.

Forking is used only where it is safe (``can_fork``): a POSIX ``os.fork`` and no other
Python thread alive.  A child of a threaded process holds copies of the locks the
other threads held at the fork (the import lock, a logging handler's, a connection
pool's) and would wait on them forever; Python 3.12 deprecates such forks.  The server
decides its bots' moves on a thread pool, so its bots always search in one process.
A daemonic ``multiprocessing`` worker may fork: its children end by themselves at
their deadline, and their parent kills the late ones.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import os
import random
import select
import signal
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # ``budget`` uses this module
    from .budget import Budget

#: Wall seconds a worker may take beyond what the parent's share took (a rollout, the
#: child's exit and the pipe), before it is killed and its share ignored.
MARGIN = 0.05


@dataclass
class Tally:
    """One worker's share of a decision: every root's reward sum and rollout count, and
    its rewards less the first root's on the deals both were played on (common random
    numbers): their sum, sum of squares and number, for a paired test of a root against
    the first (``RootSearch.z``)."""

    sums: list[float]
    counts: list[int]
    diffs: list[float]
    squares: list[float]
    paired: list[int]

    @classmethod
    def empty(cls, n: int) -> Tally:
        return cls([0.0] * n, [0] * n, [0.0] * n, [0.0] * n, [0] * n)

    @property
    def used(self) -> int:
        return sum(self.counts)

    def add(self, other: Tally) -> None:
        for i in range(len(self.sums)):
            self.sums[i] += other.sums[i]
            self.counts[i] += other.counts[i]
            self.diffs[i] += other.diffs[i]
            self.squares[i] += other.squares[i]
            self.paired[i] += other.paired[i]

    def pack(self) -> bytes:
        n = len(self.sums)
        return struct.pack(f"<{n}d{n}q{n}d{n}d{n}q", *self.sums, *self.counts,
                           *self.diffs, *self.squares, *self.paired)

    @classmethod
    def unpack(cls, data: bytes, n: int) -> Tally | None:
        """The tally a worker wrote, or None if it wrote anything else."""
        if len(data) != struct.calcsize(f"<{n}d{n}q{n}d{n}d{n}q"):
            return None
        v = struct.unpack(f"<{n}d{n}q{n}d{n}d{n}q", data)
        return cls([float(x) for x in v[:n]], [int(x) for x in v[n:2 * n]],
                   [float(x) for x in v[2 * n:3 * n]], [float(x) for x in v[3 * n:4 * n]],
                   [int(x) for x in v[4 * n:]])


@dataclass
class Fanout:
    """What the last parallel decision cost and found: each worker's rollouts (the
    parent first; None for a worker lost) and the wall seconds spent forking and
    waiting for the workers beyond the parent's own share."""

    shares: list[int | None] = field(default_factory=list)
    fork_seconds: float = 0.0
    wait_seconds: float = 0.0
    #: The forks' CPU seconds in the parent (copying its page tables): what they cost
    #: on a free core, where ``fork_seconds`` also counts waiting for one.
    fork_cpu: float = 0.0


def can_fork() -> bool:
    """Whether a decision may fork its workers here (see the module doc)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def fan_out(workers: int, n: int, budget: Budget, rng: random.Random,
            share: Callable[[Budget], Tally], margin: float = MARGIN,
            stats: Fanout | None = None) -> Tally:
    """Every root's sums and counts over ``workers`` processes: ``share(budget)`` runs
    one worker's loop on its budget (the parent's is ``budget`` itself); the children
    run theirs on a copy with the seconds ``budget`` has left, after ``rng`` is seeded
    again with a seed drawn from it.  ``budget.used`` ends as the rollouts of all."""
    reap()
    seeds = [rng.randrange(2**63) for _ in range(workers - 1)]
    fork_started = time.perf_counter()
    fork_cpu = time.thread_time()
    remaining = max(0.0, budget.deadline - budget.clock())
    children: list[tuple[int, int]] = []  # (pid, read end)
    # The objects alive now go to the collector's permanent generation while forking:
    # a child's collection then never walks (and copies, page by page) the parent's
    # heap, which cost a loaded machine a tenth of a second.
    gc.freeze()
    try:
        for seed in seeds:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns into the caller
                code = 70
                try:
                    os.close(r)
                    rng.seed(seed)
                    own = copy.copy(budget)
                    own.iterations -= budget.used
                    own.seconds = remaining
                    own.start()
                    data = share(own).pack()
                    view = memoryview(data)
                    while view:
                        view = view[os.write(w, view):]
                    os.close(w)  # the parent reads its end of file now, not after the
                    code = 0     # exit has torn down the copied memory
                finally:
                    os._exit(code)
            os.close(w)
            children.append((pid, r))
        gc.unfreeze()
        own_started = time.perf_counter()
        fork_seconds = own_started - fork_started
        fork_cpu = time.thread_time() - fork_cpu
        total = share(budget)
        own_wall = time.perf_counter() - own_started
        wait_started = time.perf_counter()
        results = _collect(children, n, own_started + max(remaining, own_wall) + margin)
        children = []
    finally:
        gc.unfreeze()
        for pid, r in children:  # the parent's share failed: leave nobody behind
            _end(pid, r, kill=True)
    shares: list[int | None] = [total.used]
    for tally in results:
        shares.append(None if tally is None else tally.used)
        if tally is not None:
            total.add(tally)
    budget.used = total.used
    if stats is not None:
        stats.shares = shares
        stats.fork_seconds = fork_seconds
        stats.wait_seconds = time.perf_counter() - wait_started
        stats.fork_cpu = fork_cpu
    return total


def _collect(children: list[tuple[int, int]], n: int,
             deadline: float) -> list[Tally | None]:
    """Each child's tally, read until its pipe closes or the wall ``deadline``; a child
    not done by then is killed, one that failed or wrote something else gives None.  A
    child writes its tally only once its share is done, so a whole tally is a success,
    whether or not the child has finished exiting."""
    data = {r: bytearray() for _, r in children}
    done: set[int] = set()
    while len(done) < len(children):
        wait = deadline - time.perf_counter()
        if wait <= 0:
            break
        ready, _, _ = select.select([r for _, r in children if r not in done], [], [], wait)
        for r in ready:
            chunk = os.read(r, 65536)
            if chunk:
                data[r] += chunk
            else:
                done.add(r)
    out: list[Tally | None] = []
    for pid, r in children:
        _end(pid, r, kill=r not in done)
        out.append(Tally.unpack(bytes(data[r]), n) if r in done else None)
    return out


#: Workers done or killed but not yet gone (a process's exit frees its copied memory,
#: which on a loaded machine waits for a core): reaped by ``reap``, never waited for.
_unreaped: list[int] = []


def _end(pid: int, r: int, kill: bool) -> None:
    """Close the pipe, kill the child if asked, and reap it if it is gone."""
    os.close(r)
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _unreaped.append(pid)
    reap()


def reap(block: bool = False) -> None:
    """Reap the workers that have exited (with ``block``, wait for all of them)."""
    for pid in list(_unreaped):
        try:
            done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere
            done = pid
        if done:
            _unreaped.remove(pid)
