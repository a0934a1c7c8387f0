"""Types of the compiled Elfengold engine (``_speedups.c``); see ``fast.py``."""

from elfenland.core._engine_core import EngineCore
from elfenland.core._engine_core import configure as configure

class Core(EngineCore):
    def _start(self, players: int) -> None: ...

def own_methods(cls: type[Core]) -> None: ...
