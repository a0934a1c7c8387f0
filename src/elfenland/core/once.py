"""Tables built lazily, once per process, safe under threads.

``functools.cache`` lets two threads build the same value at once; the engines compare
actions by identity, so two copies of the action space (a bot thread and a replay racing
on a fresh server) made legal actions look illegal.  ``once`` builds under a lock and
every caller gets the one value.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import wraps
from typing import TypeVar

T = TypeVar("T")


def once(build: Callable[[], T]) -> Callable[[], T]:
    lock = threading.Lock()
    box: list[T] = []

    @wraps(build)
    def get() -> T:
        if box:
            return box[0]
        with lock:
            if not box:
                box.append(build())
        return box[0]

    return get
