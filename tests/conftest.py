"""Settings for the whole suite that keep it steady on a loaded machine.

CI runs the suite on 2 cores that other jobs share, so a test's wall-clock time says
nothing about the code under test.  Hypothesis, by default, fails an example that takes
longer than 200 ms (its ``deadline``) and a strategy that is slow to draw data (the
``too_slow`` health check): both are timing checks, not properties of the engines, so
one profile, loaded here for every test, turns them off.  A test's own ``@settings``
still sets its example count; the properties it checks are unchanged.
"""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import HealthCheck, settings

#: The one profile of the suite (loaded below): no deadline, no timing health check.
PROFILE = "elfenland"

settings.register_profile(PROFILE, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(PROFILE)


#: Where the suite's longest tests are (browsers, server clusters, the compiled engines'
#: long differential games): run first, so that with ``pytest -n 2`` (``.ci/run``) the
#: two workers end together instead of one finishing a long test alone.
LONG_FIRST: Final = ("tests/web/", "tests/cluster/", "test_fast_differential.py",
                     "tests/server/test_full_game.py", "tests/server/test_store_faults.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest first; within each group the order of collection (a stable sort), so
    the tests sharing a module's fixtures stay together."""
    items.sort(key=lambda item: not any(part in item.nodeid for part in LONG_FIRST))
