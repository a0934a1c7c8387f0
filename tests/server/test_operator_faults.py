"""What an operator does to a running server, and what the players then see: a second
``elfenland serve`` started on the same SQLite file (refused with one line, so the two
never show players two different games), a deadline and a bot turn that meet a store
that is away (one log line each, and the game goes on once it is back), a chat line
whose trimming meets the store away (told once, never stored twice)."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from elfenland.server.background import BackgroundServer, free_port
from elfenland.server.config import Limits, ServerConfig
from elfenland.server.errors import StoreInUse, StoreUnavailable
from elfenland.server.store import SqliteStore, open_store

from .helpers import (
    HANG_GUARD,
    HTTP,
    JSON,
    create,
    play_seat,
    post,
    recv_until,
    stored_actions,
    wait_until,
)
from .test_store_faults import FlakyStore


def _serve(db: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port), "--db", db,
             "--bot-delay", "0.05", "--games-per-host", "100", "--log-level", "warning"],
            stdout=out, stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}"


def _up(proc: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while True:
        try:
            if HTTP.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except Exception:
            pass
        assert proc.poll() is None, "the server ended"
        assert time.monotonic() < deadline, "the server never answered"
        time.sleep(0.05)


def _seq(url: str, gid: str) -> int:
    return int(HTTP.get(f"{url}/api/games/{gid}").json()["game"]["seq"])


def test_a_second_server_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    """Two servers on one file each served the games from their own cache: the second
    showed a game stuck where it had read it (seq 59 against 206) and its bots stopped
    at the first move the other had stored ("the bots of game … stopped").  The second
    is now refused at start with one line naming the file and the first's process; once
    the first is killed, the lock is gone and a server starts on the file and plays on."""
    path = tmp_path / "games.sqlite3"
    db = f"sqlite:///{path}"
    first, url = _serve(db, tmp_path / "first.log")
    try:
        _up(first, url)
        made = create(url, game="kingelves", players=3,
                      seats=[{"kind": "bot", "level": "random"}] * 3)
        gid = made["game"]["id"]
        assert post(url, f"/api/games/{gid}/start", {}).is_success
        wait_until(lambda: _seq(url, gid) > 5, "the bots play")
        second, _ = _serve(db, tmp_path / "second.log")
        try:
            second.wait(HANG_GUARD)
        except subprocess.TimeoutExpired:
            second.kill()
            second.wait()
            pytest.fail("a second server started on a SQLite file the first one serves")
        out = (tmp_path / "second.log").read_text()
        assert second.returncode == 2, out
        assert len(out.strip().splitlines()) == 1 and "Traceback" not in out, out
        assert str(path) in out and f"process {first.pid}" in out, out
        # The first server was not disturbed.
        before = _seq(url, gid)
        wait_until(lambda: _seq(url, gid) > before, "the first server plays on")
        shown = _seq(url, gid)
        first.send_signal(signal.SIGKILL)
        first.wait(HANG_GUARD)
        stored = len(stored_actions(db, gid))
        assert stored >= shown
        # A killed server leaves no lock behind: a new one starts and plays on.
        third, url = _serve(db, tmp_path / "third.log")
        try:
            _up(third, url)
            assert _seq(url, gid) >= stored  # nothing lost (its bots may have played)
            wait_until(lambda: _seq(url, gid) > stored, "the bots play on after the restart")
        finally:
            third.terminate()
            third.wait(HANG_GUARD)
        assert third.returncode == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


def test_one_serving_store_per_file_in_one_process_too(tmp_path: Path) -> None:
    """The lock is per open store: a store that serves refuses a second serving one, not
    the readers (scripts, backups, these tests), and is let go on close."""
    path = tmp_path / "games.sqlite3"
    serving = open_store(f"sqlite:///{path}", serving=True)
    try:
        with pytest.raises(StoreInUse, match=str(path)):
            SqliteStore(path, serving=True)
        reader = open_store(f"sqlite:///{path}")
        assert reader.unfinished_ids() == []
        reader.close()
    finally:
        serving.close()
    again = SqliteStore(path, serving=True)
    again.close()


class AwayStore(FlakyStore):
    """FlakyStore whose every game read fails too while ``failing``, as a store that is
    away does; ``drop_events`` fails on its own with ``dropping_fails``."""

    dropping_fails = False

    def _away(self) -> None:
        if self.failing:
            raise StoreUnavailable("injected: the database went away")

    def load_game(self, *args: Any) -> Any:
        self._away()
        return self._store.load_game(*args)

    def events(self, *args: Any) -> Any:
        self._away()
        return self._store.events(*args)

    def drop_events(self, *args: Any, **kwargs: Any) -> None:
        if self.failing or self.dropping_fails:
            raise StoreUnavailable("injected: the database went away")
        self._store.drop_events(*args, **kwargs)


def _server_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "elfenland.server"]


def test_a_deadline_and_a_bot_turn_that_meet_the_store_away_log_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A clock that ran out while the store was away logged a traceback (``the deadline
    of game … failed``) and so did the bots that then found the game to be read again
    (``the bots of game … stopped``): an expected outage, told as a crash.  Each is one
    line now, and both are played once the store is back."""
    caplog.set_level(logging.INFO, logger="elfenland.server")
    store = AwayStore(SqliteStore(tmp_path / "games.sqlite3"))
    config = ServerConfig(bot_delay=0.0, limits=Limits(
        games_per_host=100, messages_per_second=1000, burst=1000, min_per_move=0.1))
    with BackgroundServer(config, store=store) as server:  # type: ignore[arg-type]
        made = create(server.url, players=2, seed=5, name="Ann",
                      seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}],
                      tempo={"kind": "turn", "per_move": 3.0, "max_timeouts": 5})
        gid, token = made["game"]["id"], made["token"]

        def game() -> JSON:
            return HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]  # type: ignore[no-any-return]

        assert post(server.url, f"/api/games/{gid}/start", {"token": token}).is_success
        wait_until(lambda: game()["to_act"] == 0, "the human's turn")
        store.failing = True
        seq = game()["seq"]
        wait_until(lambda: store.refused > 0, "the deadline fires while the store is away")
        time.sleep(0.5)
        during = _server_records(caplog)
        store.failing = False
        wait_until(lambda: game()["seq"] > seq, "the stand-in bot plays once the store is back")
    tracebacks = [r.getMessage() for r in during if r.exc_info]
    assert tracebacks == [], tracebacks
    assert any("deadline of game" in r.getMessage() and "wait" in r.getMessage()
               for r in during), [r.getMessage() for r in during]
    store._store.close()


def test_a_chat_line_is_told_once_and_stored_once_when_trimming_fails(
        tmp_path: Path) -> None:
    """A chat line over the game's cap was stored, then dropping the oldest line met the
    store away: the sender was told ``unavailable`` ("nothing changed, try again") and
    nobody saw the line, so the retry stored it twice.  Now the stored line is told at
    once and the oldest lines go with a later message."""
    store = AwayStore(SqliteStore(tmp_path / "games.sqlite3"))
    config = ServerConfig(bot_delay=0.0, limits=Limits(
        games_per_host=100, messages_per_second=1000, burst=1000, chat_lines=2))
    with BackgroundServer(config, store=store) as server:  # type: ignore[arg-type]
        made = create(server.url, players=2, name="Ann",
                      seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}])
        gid, token = made["game"]["id"], made["token"]

        async def talk() -> list[JSON]:
            got: list[JSON] = []
            async with connect(f"{server.ws_url}/ws/games/{gid}?token={token}") as ws, \
                    connect(f"{server.ws_url}/ws/games/{gid}") as watcher:
                for i in range(3):
                    if i == 2:
                        store.dropping_fails = True
                    await ws.send(json.dumps({"type": "chat", "text": f"line {i}", "ref": i}))
                    answer = await recv_until(ws, lambda m: m["type"] in ("event", "error"))
                    got.append(answer)
                    if answer["type"] == "error":  # what a client does: send it again
                        await ws.send(json.dumps({"type": "chat", "text": f"line {i}"}))
                        got.append(await recv_until(ws, lambda m: m["type"] == "event"))
                seen = await recv_until(watcher, lambda m: m["type"] == "event"
                                        and m["event"]["text"] == "line 2")
                got.append(seen)
                store.dropping_fails = False
                await ws.send(json.dumps({"type": "chat", "text": "line 3"}))
                await recv_until(ws, lambda m: m["type"] == "event"
                                 and m["event"]["text"] == "line 3")
            return got

        got = asyncio.run(talk())
        assert [m["type"] for m in got] == ["event"] * 4, got
    lines = [e.body["text"] for e in store._store.events(gid) if e.kind == "chat"]
    assert lines == ["line 2", "line 3"], lines  # never twice; the cap holds again
    store._store.close()


class RatingAway(AwayStore):
    """AwayStore whose storing of a rating fails while ``rating_fails``, as the store
    going away just as a game ends makes it fail."""

    rating_fails = True

    def rate_game(self, *args: Any, **kwargs: Any) -> bool:
        if self.rating_fails:
            self.refused += 1
            raise StoreUnavailable("injected: the database went away")
        return bool(self._store.rate_game(*args, **kwargs))


def test_a_rating_that_meets_the_store_away_is_stored_once_it_is_back(
        tmp_path: Path) -> None:
    """A game's rating is stored after its last action, in a transaction of its own.  If
    the store went away in between, the error was logged and the rating was never
    stored: lost.  Now it is stored once the store is back, with nobody doing anything;
    and a finished game a killed server left unrated (its rating gone: the state a kill
    between the two transactions leaves) is rated by the next server at its start."""
    path = tmp_path / "games.sqlite3"
    store = RatingAway(SqliteStore(path))
    config = ServerConfig(bot_delay=0.0, limits=Limits(
        games_per_host=100, messages_per_second=1000, burst=1000))

    def ratings(url: str) -> list[JSON]:
        return HTTP.get(f"{url}/api/ratings", params={"game": "elfenland"}).json()["ratings"]  # type: ignore[no-any-return]

    with BackgroundServer(config, store=store) as server:  # type: ignore[arg-type]
        ann = post(server.url, "/api/players", {"name": "Ann"}).json()
        cy = post(server.url, "/api/players", {"name": "Cy"}).json()
        made = create(server.url, players=2, player=ann["token"],
                      seats=[{"kind": "human"}, {"kind": "human"}])
        gid = made["game"]["id"]
        cy_seat = post(server.url, f"/api/games/{gid}/join", {"player": cy["token"]}).json()
        assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success

        async def both() -> None:
            await asyncio.gather(play_seat(server.ws_url, gid, made["token"], 0),
                                 play_seat(server.ws_url, gid, cy_seat["token"], 1))

        asyncio.run(both())
        wait_until(lambda: store.refused > 0, "the rating is tried")
        assert ratings(server.url) == []
        store.rating_fails = False
        wait_until(lambda: len(ratings(server.url)) == 2, "the rating once the store is back")
        rated = {r["player"]: r["games"] for r in ratings(server.url)}
        events = [e.kind for e in store._store.events(gid)]
        assert events == ["rated"] and set(rated.values()) == {1}
    # A killed server's leftovers: the game finished, its rating not stored.
    with store._store._tx() as cur:
        cur.execute("DELETE FROM events WHERE game_id = ?", (gid,))
        cur.execute("DELETE FROM ratings")
    store._store.close()
    with BackgroundServer(ServerConfig(db=f"sqlite:///{path}", bot_delay=0.0)) as server:
        wait_until(lambda: len(ratings(server.url)) == 2, "the left-over rating at start")
        assert {r["player"]: r["games"] for r in ratings(server.url)} == rated
        assert gid not in server.app.state.hub.games  # it left memory once rated
