"""What the compiled engines' wrappers (``games/*/fast.py``) share.

Each game's compiled engine is a C base class under a subclass of its pure state, and
each must stand aside for the pure engine alike: when it was not built, when the pure
engine has grown a field or rule option the C code does not mirror, and when the user
asks for the pure one (``ELFENLAND_ENGINE=pure``).  Standard library only, like all of
``core``.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from .errors import ElfenlandError


def gaps(probe: object, rules: type, known_state: frozenset[str],
         known_rules: frozenset[str]) -> list[str]:
    """What the pure engine keeps or offers that a compiled engine was not written for:
    a new state field (of the pure state ``probe``) or rule option (a field of the
    dataclass ``rules``).  Any gap switches that compiled engine off (the pure one runs)
    and fails its differential test, which then says what to port."""
    fields = sorted(set(vars(probe)) - known_state)
    options = sorted({f.name for f in dataclasses.fields(rules)} - known_rules)
    return [f"state field {name}" for name in fields] + [f"rule option {o}" for o in options]


def pure_chosen() -> bool:
    """Whether the environment asks for the pure engines (``ELFENLAND_ENGINE=pure``).
    Read on every call: a process may switch between games."""
    return os.environ.get("ELFENLAND_ENGINE", "").strip().lower() == "pure"


def not_built(title: str) -> type:
    """A stand-in for a compiled engine's C base when it was not built: making a state
    from it says so, while the module defining the subclass still imports."""

    class NotBuilt:
        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            raise ElfenlandError(f"the compiled {title} engine was not built "
                                 "(pip install with a C compiler; see docs/performance.md)")

    return NotBuilt
