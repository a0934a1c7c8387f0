"""The real server on a free loopback port (temporary SQLite, bots without delay) and one
Debian Chromium for the whole browser suite."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
#: Seconds after which a player who left counts as absent (their seat may go to a bot).
ABSENT_AFTER = 1.0
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    db = tmp_path_factory.mktemp("web") / "games.db"
    log = open(db.with_suffix(".log"), "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port), "--db", str(db),
         "--bot-delay", "0", "--games-per-host", "1000", "--rate", "200",
         "--absent-after", str(ABSENT_AFTER), "--min-move-seconds", "0.5",
         "--log-level", "warning"],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60  # start-up, on a loaded machine
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/maps/elfenland", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.close()
                    raise RuntimeError(Path(log.name).read_text()) from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


#: Milliseconds a page waits for what a test expects (Playwright's own default is 30 s, a
#: test's old explicit ones 5-15 s).  Only a hang guard: what is awaited shows in well
#: under a second on a quiet machine, but on CI's 2 shared cores the server, its bots and
#: Chromium can be starved for seconds, and something that never comes still fails.
WAIT_MS = 60_000

#: The tests play against bots at once; a player's first table shows the others' moves
#: at a readable pace (follow.js), which a test that checks that pace sets back with
#: ``localStorage.setItem('elfenland.pace', 'default')`` (not a pace: the page's default).
FAST_PACE = ("localStorage.getItem('elfenland.pace')"
             " || localStorage.setItem('elfenland.pace', 'server')")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium, for one module's tests.  Playwright's synchronous API marks its event
    loop as running on the thread for as long as it is open, so that ``asyncio.run`` in
    a later test of the same process (tests/server) failed ("cannot be called from a
    running event loop"); kept for a whole session, it broke every such test that ran
    after a browser test in the same pytest process."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        plain = b.new_context

        def new_context(**kwargs: Any) -> BrowserContext:
            ctx = plain(**kwargs)
            ctx.set_default_timeout(WAIT_MS)
            ctx.add_init_script(FAST_PACE)
            return ctx

        b.new_context = new_context  # type: ignore[method-assign]
        yield b
        b.close()


@contextlib.contextmanager
def checked_page(browser: Browser) -> Iterator[Page]:
    """A page in a context of its own; a script error on it fails the test."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield pg
    finally:
        ctx.close()
    assert not errors, errors


@pytest.fixture()
def page(browser: Browser, server: str) -> Iterator[Page]:
    with checked_page(browser) as pg:
        yield pg
