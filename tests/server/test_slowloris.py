"""Slowloris against a real ``elfenland serve`` process limited to 1,024 file
descriptors (issue 23): 1,100 connections each dripping a half-sent request must not
keep a real request from being answered, nor fill the log; and a token that still comes
in a URL is redacted from the access log."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from elfenland.server.background import free_port
from elfenland.server.connlimits import quiet_accept_errors

FDS = 1024
SLOW = 1100


def _limit_fds() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FDS, FDS))


def test_slowloris_with_few_descriptors(tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "elfenland.cli", "serve", "--host", "127.0.0.1",
             "--port", str(port), "--db", f"sqlite:///{tmp_path / 'g.sqlite3'}",
             "--log-level", "info"],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=_limit_fds,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "ELFENLAND_HEADER_TIMEOUT": "5"})
    base = f"http://127.0.0.1:{port}"
    slow: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 60  # start-up, on a loaded machine
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, "no server"
            time.sleep(0.2)
        for _ in range(SLOW):
            s = socket.create_connection(("127.0.0.1", port))
            s.setblocking(False)
            with contextlib.suppress(OSError):
                s.send(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            slow.append(s)
        answered = []
        t_end = time.monotonic() + 8
        while time.monotonic() < t_end:
            for s in slow:  # drip one byte each, as slowloris does
                with contextlib.suppress(OSError):
                    s.send(b"a")
            t0 = time.monotonic()
            r = httpx.get(f"{base}/api/games", timeout=10)
            answered.append((r.status_code, time.monotonic() - t0))
            time.sleep(1.0)
        assert answered and all(code == 200 for code, _ in answered), answered
        assert max(t for _, t in answered) < 3.0, answered
        secret = "s3cretTOKENvalue"
        assert httpx.get(f"{base}/api/players/me", params={"token": secret},
                         timeout=10).status_code == 403
    finally:
        for s in slow:
            s.close()
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    text = log_path.read_text(errors="replace")
    assert log_path.stat().st_size < 64 * 1024, text[-2000:]
    assert "/api/players/me?token=[redacted]" in text
    assert secret not in text


def test_failed_accepts_are_logged_once_a_second(caplog: pytest.LogCaptureFixture) -> None:
    """asyncio logs a traceback for every accept() that fails for lack of descriptors;
    the server's handler makes that one line a second, and leaves other records be."""
    loop = asyncio.new_event_loop()
    try:
        quiet_accept_errors(loop)
        with caplog.at_level(logging.WARNING):
            for _ in range(500):
                loop.call_exception_handler({
                    "message": "socket.accept() out of system resource",
                    "exception": OSError(errno.EMFILE, "Too many open files")})
            loop.call_exception_handler({"message": "something else"})
    finally:
        loop.close()
    lines = [r.getMessage() for r in caplog.records]
    assert sum("cannot accept connections" in m for m in lines) == 1
    assert any("something else" in m for m in lines)
    assert all(r.exc_info is None for r in caplog.records if "accept" in r.getMessage())
