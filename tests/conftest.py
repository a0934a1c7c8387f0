"""Settings for the whole suite that keep it steady on a loaded machine.

CI runs the suite on 2 cores that other jobs share, so a test's wall-clock time says
nothing about the code under test.  Hypothesis, by default, fails an example that takes
longer than 200 ms (its ``deadline``) and a strategy that is slow to draw data (the
``too_slow`` health check): both are timing checks, not properties of the engines, so
one profile, loaded here for every test, turns them off.  A test's own ``@settings``
still sets its example count; the properties it checks are unchanged.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

#: The one profile of the suite (loaded below): no deadline, no timing health check.
PROFILE = "elfenland"

settings.register_profile(PROFILE, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(PROFILE)
