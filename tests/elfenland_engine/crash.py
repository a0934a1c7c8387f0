"""Run a snippet in a child interpreter so that a segfault fails one test instead of the
whole run: the snippet prints what happened and the test reads it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

PRELUDE = """
import elfenland
from elfenland.core.errors import ElfenlandError
"""


def run(snippet: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("ELFENLAND_ENGINE", None)
    return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(snippet)],
                          capture_output=True, text=True, timeout=timeout, env=env)


def refused(setup: str, write: str, then: str = "") -> subprocess.CompletedProcess[str]:
    """``setup``, then ``write`` must raise an ElfenlandError and leave the state as it
    was (compared by its position document); ``then`` runs afterwards and must not crash.
    Prints "refused" when all went so."""
    code = f"""
{setup}
before = s.to_position()
try:
    {write}
except ElfenlandError as exc:
    assert s.to_position() == before, "a refused write changed the state"
    print("refused", type(exc).__name__)
else:
    print("accepted")
{then}
print("clean exit")
"""
    return run(code)


def assert_refused(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    assert "refused" in proc.stdout and "clean exit" in proc.stdout, proc.stdout + proc.stderr
