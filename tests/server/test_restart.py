"""The store is the truth: a server killed with SIGKILL mid-game comes back on the same
database and finishes the game exactly as an uninterrupted run does."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time
from typing import IO

import httpx

from elfenland.server.background import free_port

from .helpers import HTTP, JSON, create, play_seat, post, stored_actions

SEED = 77


class ServerProcess:
    def __init__(self, db_url: str, *extra: str) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(self.port),
             "--db", db_url, "--bot-delay", "0", "--log-level", "warning",
             "--games-per-host", "100", "--rate", "1000", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert f"http://127.0.0.1:{self.port}/" in line, line
        # Its log is read as it comes: a pipe nobody reads fills up (64 KiB), and the
        # server then blocks on its next log line, which looks like a hang.
        self.output: list[str] = []
        threading.Thread(target=self._drain, args=(self.proc.stdout,), daemon=True).start()
        deadline = time.monotonic() + 60  # start-up, on a loaded machine
        while True:
            try:
                if HTTP.get(f"{self.url}/api/games", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert self.proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)

    def _drain(self, out: IO[str]) -> None:
        for text in out:
            self.output.append(text)

    def tail(self) -> str:
        """The server's last log lines (for a failure's message)."""
        return "".join(self.output[-40:])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def _play(server: ServerProcess, gid: str, tokens: list[str], stop_at: int | None = None
          ) -> list[list[JSON]]:
    async def both() -> list[list[JSON]]:
        return list(await asyncio.gather(*(
            play_seat(server.ws_url, gid, token, seat, stop_at=stop_at)
            for seat, token in enumerate(tokens))))

    return asyncio.run(both())


def _new_game(server: ServerProcess) -> tuple[str, list[str]]:
    made = create(server.url, players=4, seed=SEED, options={"destination": True},
                  name="Ann", seats=[{"kind": "human"}, {"kind": "open"},
                                     {"kind": "bot", "level": "random"},
                                     {"kind": "bot", "level": "random"}])
    gid = made["game"]["id"]
    bob = post(server.url, f"/api/games/{gid}/join", {"name": "Bob"}).json()
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    return gid, [made["token"], bob["token"]]


def test_sigkill_mid_game_loses_nothing(db_url: str) -> None:
    server = ServerProcess(db_url)
    try:
        whole_id, tokens = _new_game(server)
        whole = _play(server, whole_id, tokens)[0][-1]["view"]

        gid, tokens = _new_game(server)
        before = _play(server, gid, tokens, stop_at=60)
        told = max(m["seq"] for messages in before for m in messages if m["type"] == "update")
        server.kill()
    finally:
        server.stop()
    # Everything any client was told about is in the store.
    assert len(stored_actions(db_url, gid)) >= told >= 60

    server = ServerProcess(db_url)
    try:
        summary = HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]
        assert summary["status"] == "running" and summary["seq"] >= told
        after = _play(server, gid, tokens)
    finally:
        server.stop()
    final = after[0][-1]["view"]
    assert final["current_player"] is None
    assert final["scores"] == whole["scores"] and final["winners"] == whole["winners"]
    assert stored_actions(db_url, gid) == stored_actions(db_url, whole_id)
