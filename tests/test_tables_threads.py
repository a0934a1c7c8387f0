"""The engines' shared tables are built once even when threads race for them: actions are
compared by identity, so a second copy of the action space makes legal moves illegal."""

from __future__ import annotations

import subprocess
import sys

RACE = r"""
import sys, threading
from elfenland.games.elfenland import actions as ea
from elfenland.games.elfenland import board as eb
from elfenland.games.kingelves import actions as ka

getters = [ea._space, ea.tables, eb.load_board, ka._space]
barrier = threading.Barrier(8)
seen = []

def grab():
    barrier.wait()
    seen.append(tuple(id(get()) for get in getters))

threads = [threading.Thread(target=grab) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
sys.stdout.write(str(len(set(seen))))
"""


def test_tables_built_once_under_racing_threads() -> None:
    # A fresh interpreter each time, so the tables are not built yet; a few tries, since
    # a race is not certain to show in one.
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True,
                             check=True, timeout=120)
        assert out.stdout == "1", out.stdout + out.stderr
