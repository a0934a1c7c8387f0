"""The adapters' tests need the optional extras.  A user without them sees the tests
skipped; CI (``CI=true`` or ``ELFENLAND_REQUIRE_EXTRAS=1``, set by ``.ci/run``) must have
them, so there a missing extra is a failure, not a skip."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def required() -> bool:
    return os.environ.get("CI") == "true" or bool(os.environ.get("ELFENLAND_REQUIRE_EXTRAS"))


def need(module: str) -> ModuleType:
    """Import ``module``; skip the test module without it, unless CI requires it."""
    if required():
        return importlib.import_module(module)
    return pytest.importorskip(module)
