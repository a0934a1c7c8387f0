"""Types of the compiled engine (``_speedups.c``); see ``fast.py``."""

from elfenland.core._engine_core import ObservingCore
from elfenland.core._engine_core import configure as configure

class Core(ObservingCore):
    def _start(self, players: int, starting_gold: int, deck: list[int]) -> None: ...
