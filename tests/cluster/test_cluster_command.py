"""``elfenland cluster``: the command people run to host several processes themselves."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from elfenland.server.cluster import free_port, wait_http

from .play import HTTP, post

pytestmark = pytest.mark.cluster


def test_cluster_command_starts_serves_and_stops(pg_url: str) -> None:
    port = free_port()
    env = {**os.environ, "ELFENLAND_DB": pg_url}  # settings from the environment too
    proc = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "cluster", "--processes", "2", "--port",
         str(port), "--check-interval", "300", "--serve-args", "--bot-delay 0 --log-level warning"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line and "2 processes" in line, line
        wait_http(f"http://127.0.0.1:{port}/healthz", 60)
        base = f"http://127.0.0.1:{port}"
        made = post(base, "/api/games", {"players": 2, "seats": [
            {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}]})
        assert made.status_code == 201, made.text
        gid = made.json()["game"]["id"]
        assert post(base, f"/api/games/{gid}/start", {}).status_code == 200
        # A bots-only game plays to its end on whichever process took it.
        deadline = time.monotonic() + 60  # a hang guard: a few seconds when not loaded
        while time.monotonic() < deadline:
            if HTTP.get(f"{base}/api/games/{gid}").json()["game"]["status"] == "finished":
                break
            time.sleep(0.1)
        assert HTTP.get(f"{base}/api/games/{gid}").json()["game"]["status"] == "finished"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
    # Every server process and HAProxy went with it.
    out = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True, text=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize(("argv", "said"), [
    (["--db", "sqlite:///games.db"], "--db is a postgresql:// URL"),
    (["--db", "postgresql://x/y", "--serve-args", "--bogus 1"],
     "--serve-args: error: unrecognized arguments: --bogus 1"),
    (["--db", "postgresql://x/y", "--serve-args", "--bot-delay -1"],
     "argument --bot-delay: must be 0 or more"),
    # A process that cannot start says why (its log), with no traceback of the command's.
    (["--db", f"postgresql://nobody@127.0.0.1:{free_port()}/none", "--processes", "1"],
     "elfenland serve: the PostgreSQL store is unreachable"),
])
def test_an_operators_mistake_is_one_message_before_or_at_start(
        argv: list[str], said: str) -> None:
    done = subprocess.run([sys.executable, "-m", "elfenland.cli", "cluster",
                           "--port", str(free_port()), *argv],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr
