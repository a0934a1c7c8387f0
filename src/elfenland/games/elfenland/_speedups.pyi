"""Types of the compiled engine (``_speedups.c``); see ``fast.py``."""

from elfenland.core._engine_core import ObservingCore
from elfenland.core._engine_core import configure as configure

class Core(ObservingCore):
    def _start(self, players: int) -> None: ...

def own_methods(cls: type[Core]) -> None: ...

#: The C entry (core/_engine_api.h) for C code that steps and reads these states.
_c_api: object
