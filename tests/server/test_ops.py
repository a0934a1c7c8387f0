"""Operating one server: /healthz, the lobby feed, settings from the environment, JSON
logs, the SIGTERM drain, and the shipped HAProxy configuration."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from elfenland.server import main as serve_main
from elfenland.server.background import BackgroundServer, free_port
from elfenland.server.cluster import compose_haproxy_config, wait_http
from elfenland.server.logs import JsonFormatter

from .helpers import HTTP, create, post, recv, stored_actions

ROOT = Path(__file__).resolve().parents[2]


def test_healthz_and_lobby_feed(server: BackgroundServer) -> None:
    r = HTTP.get(f"{server.url}/healthz")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["store"] is True

    async def scenario() -> tuple[str, list[dict[str, object]]]:
        async with connect(f"{server.ws_url}/ws/lobby") as feed:
            assert (await recv(feed))["type"] == "hello"
            made = await asyncio.to_thread(create, server.url, players=2, name="Ann")
            gid = made["game"]["id"]
            await asyncio.to_thread(post, server.url, f"/api/games/{gid}/join", {"name": "B"})
            got = [await recv(feed), await recv(feed)]
            return gid, got

    gid, got = asyncio.run(scenario())
    assert [e["type"] for e in got] == ["lobby", "lobby"]
    assert [e["game"]["id"] for e in got] == [gid, gid]  # type: ignore[index]
    assert got[1]["game"]["seats"][1]["name"] == "B"  # type: ignore[index]


def _serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    serve_main.add_arguments(parser)
    return parser


def test_every_option_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELFENLAND_BOT_DELAY", "0.25")
    monkeypatch.setenv("ELFENLAND_CLUSTER", "1")
    monkeypatch.setenv("ELFENLAND_LOG_FORMAT", "json")
    monkeypatch.setenv("ELFENLAND_DB", "postgresql://x@h/db")
    args = _serve_parser().parse_args([])
    assert (args.bot_delay, args.cluster, args.log_format, args.db) == (
        0.25, True, "json", "postgresql://x@h/db")
    assert _serve_parser().parse_args(["--bot-delay", "2"]).bot_delay == 2.0  # the CLI wins
    monkeypatch.setenv("ELFENLAND_PORT", "eighty")
    with pytest.raises(SystemExit):
        _serve_parser()
    monkeypatch.setenv("ELFENLAND_PORT", "8080")
    monkeypatch.setenv("ELFENLAND_LOG_FORMAT", "xml")
    with pytest.raises(SystemExit):
        _serve_parser()


def test_json_log_lines() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("elfenland.x").makeRecord(
            "elfenland.x", logging.WARNING, __file__, 1, "lost game %s", ("g1",),
            sys.exc_info())
    line = json.loads(JsonFormatter().format(record))
    assert line["level"] == "warning" and line["message"] == "lost game g1"
    assert line["logger"] == "elfenland.x" and "ValueError: boom" in line["exception"]
    assert line["time"].endswith("Z")


def test_sigterm_drains_one_process(tmp_path: Path) -> None:
    """Configured from the environment only, as in a container: SIGTERM mid-game closes
    the socket with 1012 after the last acknowledged update, and loses nothing."""
    port = free_port()
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    env = {**os.environ, "ELFENLAND_DB": db, "ELFENLAND_PORT": str(port),
           "ELFENLAND_BOT_DELAY": "0.05", "ELFENLAND_LOG_FORMAT": "json",
           "ELFENLAND_LOG_LEVEL": "info", "ELFENLAND_RATE": "1000"}
    # Its log (JSON lines on stderr, at level info) goes to a file: a pipe read only at
    # the end blocks the server once 64 KiB wait in it.
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([sys.executable, "-m", "elfenland.cli", "serve"], env=env,
                            stdout=subprocess.DEVNULL, stderr=log, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/healthz", proc=proc)  # type: ignore[arg-type]
        made = create(base, players=4, seed=3, name="Ann",
                      seats=[{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 3)
        gid, token = made["game"]["id"], made["token"]
        assert post(base, f"/api/games/{gid}/start", {"token": token}).is_success

        async def play() -> tuple[int, list[dict[str, object]], int | None]:
            seen, got = 0, []
            async with connect(f"ws://127.0.0.1:{port}/ws/games/{gid}?token={token}") as ws:
                try:
                    while True:
                        msg = await recv(ws)
                        got.append(msg)
                        if msg["type"] != "update":
                            continue
                        seen = msg["seq"]
                        if seen >= 20 and proc.poll() is None:
                            proc.send_signal(signal.SIGTERM)
                        view = msg["view"]
                        if view["current_player"] == 0 and view.get("legal"):
                            await ws.send(json.dumps({"type": "action", "seq": seen,
                                                      "action": view["legal"][0]}))
                except ConnectionClosed as exc:
                    return seen, got, exc.rcvd.code if exc.rcvd else None

        seen, got, code = asyncio.run(play())
        started = time.monotonic()
        proc.wait(15)
        assert time.monotonic() - started < 10
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(5)
    assert code == 1012
    assert [m for m in got if m["type"] == "error"] == []
    assert len(stored_actions(db, gid)) >= seen >= 20
    log.seek(0)
    lines = [json.loads(line) for line in log.read().splitlines() if line.strip()]
    log.close()
    assert any("drained" in line["message"] for line in lines)


def test_shipped_haproxy_config() -> None:
    """deploy/haproxy.cfg is what the code generates, and HAProxy accepts it."""
    shipped = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert shipped == compose_haproxy_config()
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not os.path.exists(haproxy):
        pytest.skip("haproxy is not installed")
    # Outside Docker the servers' names do not resolve; HAProxy still parses it.
    check = subprocess.run([haproxy, "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
