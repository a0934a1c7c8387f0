"""The store failing under the server (issue 21): an append that fails is never shown
and changes nothing, and the game (its bots too) goes on once the store is back; a full
disk is the protocol's retryable error, create-game included, until space returns; a
damaged SQLite file stops the server at start with a clear message; SIGTERM exits 0."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from elfenland.server.background import BackgroundServer, free_port
from elfenland.server.config import Limits, ServerConfig
from elfenland.server.errors import StoreUnavailable
from elfenland.server.store import PlayerRecord, SqliteStore, open_store

from .helpers import HANG_GUARD, HTTP, JSON, create, pick, post, recv, stored_actions


class FlakyStore:
    """The real store, except that while ``failing`` its appends and pings raise what a
    lost database raises."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store
        self.failing = False
        self.refused = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def append_action(self, *args: Any, **kwargs: Any) -> None:
        if self.failing:
            self.refused += 1
            raise StoreUnavailable("injected: the database went away")
        self._store.append_action(*args, **kwargs)

    def ping(self, timeout: float | None = None) -> None:
        if self.failing:
            raise StoreUnavailable("injected: the database went away")
        self._store.ping(timeout)

    def add_event(self, *args: Any, **kwargs: Any) -> Any:
        if self.failing:
            self.refused += 1
            raise StoreUnavailable("injected: the database went away")
        return self._store.add_event(*args, **kwargs)


async def _until(ws: ClientConnection, want: Any, got: list[JSON], timeout: float = HANG_GUARD
                 ) -> JSON:
    while True:
        msg = await recv(ws, timeout)
        got.append(msg)
        if want(msg):
            return msg


def test_a_failed_append_is_never_shown_and_bots_resume(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    store = FlakyStore(SqliteStore(tmp_path / "games.sqlite3"))
    config = ServerConfig(db=db, bot_delay=0.3, limits=Limits(games_per_host=100,
                                                              messages_per_second=1000,
                                                              burst=1000))
    with BackgroundServer(config, store=store) as server:  # type: ignore[arg-type]
        made = create(server.url, game="elfenland", players=2, seed=11,
                      seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}])
        gid, token = made["game"]["id"], made["token"]
        assert post(server.url, f"/api/games/{gid}/start", {"token": token}).is_success

        async def run() -> None:
            seen: list[JSON] = []
            watched: list[JSON] = []
            base = f"{server.ws_url}/ws/games/{gid}"
            async with connect(f"{base}?token={token}") as ws, connect(base) as spectator:
                msg = await _until(ws, lambda m: m["type"] == "update", seen)
                # 1. The human's own append fails: an error, no update, nothing stored.
                store.failing = True
                seq = msg["seq"]
                await ws.send(json.dumps({"type": "action", "action": pick(msg["view"]),
                                          "seq": seq, "ref": 1}))
                error = await _until(ws, lambda m: m["type"] in ("error", "update"), seen)
                assert error["type"] == "error" and error["code"] == "unavailable", error
                assert error["ref"] == 1
                await ws.send(json.dumps({"type": "sync", "since": 0}))
                synced = await _until(ws, lambda m: m["type"] == "update", seen)
                assert synced["seq"] == seq and len(synced["log"]) == seq
                assert stored_actions(db, gid) == [e["action"] for e in synced["log"]] or \
                    len(stored_actions(db, gid)) == seq
                # 2. Back: the same action is taken; the human plays to the bot's turn.
                store.failing = False
                while True:
                    view = msg["view"]
                    if view["current_player"] == 1:
                        break
                    await ws.send(json.dumps({"type": "action", "action": pick(view),
                                              "seq": msg["seq"]}))
                    msg = await _until(ws, lambda m: m["type"] == "update", seen)
                # 3. The bot's append fails (it waits bot_delay first): its turn is not
                #    shown, and the bot plays it once the store is back, unasked.
                store.failing = True
                before = msg["seq"]
                refused = store.refused
                # The bot tried, and was refused (on a loaded machine its try can be
                # seconds late: wait for it rather than for a fixed time).
                tried = time.monotonic() + HANG_GUARD
                while store.refused == refused:
                    assert time.monotonic() < tried, "the bot never tried to play"
                    await asyncio.sleep(0.05)
                await asyncio.sleep(1.0)  # nor do its tries in the meantime show
                assert not [m for m in seen if m["type"] == "update" and m["seq"] > before]
                assert len(stored_actions(db, gid)) == before
                store.failing = False
                after = await _until(ws, lambda m: m["type"] == "update"
                                     and m["seq"] > before, seen)
                assert after["seq"] == before + 1
                # 4. The game goes on to its end.
                msg = after
                while msg["view"]["current_player"] is not None:
                    if msg["view"]["current_player"] == 0 and msg["view"].get("legal"):
                        await ws.send(json.dumps({"type": "action",
                                                  "action": pick(msg["view"]),
                                                  "seq": msg["seq"]}))
                    msg = await _until(ws, lambda m: m["type"] == "update", seen)
                last = await _until(spectator, lambda m: m["type"] == "update"
                                    and m["view"]["current_player"] is None, watched)
            actions = stored_actions(db, gid)
            for got in (seen, watched):
                shown = [e for m in got if m["type"] == "update" for e in m["log"]]
                seqs = sorted({int(e["seq"]) for e in shown})
                assert seqs == list(range(1, len(actions) + 1))  # nothing beyond the store
            assert last["seq"] == len(actions)

        asyncio.run(run())
    store._store.close()


#: The seat's time per move in the missed-deadline test: the test must see the seat to act
#: and cut the store off before it runs out, a few requests that take seconds on a loaded
#: machine.
PER_MOVE = 5.0


def test_a_deadline_missed_while_the_store_is_away_is_applied_when_it_is_back(
        tmp_path: Path) -> None:
    """The timer fires while the store refuses the timeout: once the store is back the
    clock is armed again and the timeout recorded (a bot then plays the turn), with no
    client doing anything."""
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    store = FlakyStore(SqliteStore(tmp_path / "games.sqlite3"))
    config = ServerConfig(db=db, bot_delay=0.0, limits=Limits(
        games_per_host=100, messages_per_second=1000, burst=1000, min_per_move=0.1))
    with BackgroundServer(config, store=store) as server:  # type: ignore[arg-type]
        made = create(server.url, players=2, seed=5, name="Ann",
                      seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}],
                      tempo={"kind": "turn", "per_move": PER_MOVE, "max_timeouts": 5})
        gid, token = made["game"]["id"], made["token"]
        assert post(server.url, f"/api/games/{gid}/start", {"token": token}).is_success

        def game() -> JSON:
            return HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]  # type: ignore[no-any-return]

        def timeouts() -> list[JSON]:
            events = HTTP.get(f"{server.url}/api/games/{gid}/events").json()["events"]
            return [e for e in events if e["kind"] == "timeout"]

        deadline = time.monotonic() + HANG_GUARD
        while game()["to_act"] != 0:  # the bot may open
            assert time.monotonic() < deadline
            time.sleep(0.02)
        store.failing = True  # well before the seat's PER_MOVE seconds run out
        seq = game()["seq"]
        while store.refused == 0:  # they run out while the store is away
            assert time.monotonic() < deadline, "the seat's deadline never fired"
            time.sleep(0.05)
        assert timeouts() == [] and game()["seq"] == seq
        store.failing = False
        deadline = time.monotonic() + HANG_GUARD
        while not timeouts():
            assert time.monotonic() < deadline, "the missed deadline was never applied"
            time.sleep(0.05)
        assert timeouts()[0]["seat"] == 0
        while game()["seq"] == seq:  # the stand-in bot plays the turn
            assert time.monotonic() < deadline
            time.sleep(0.05)
    store._store.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MB tmpfs, so that the disk can really be filled."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(where)],
                          capture_output=True)
    if done.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot mount a tmpfs: {done.stderr!r}")
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


#: Each served process's log, by process id (read by ``_output``).
_LOGS: dict[int, IO[str]] = {}


def _serve(db: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    # A file, not a pipe: the disk-full test makes the server log a failed write for
    # every try, and a pipe nobody reads blocks the server at 64 KiB.
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by _output
    proc = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port), "--db", db,
         "--games-per-host", "1000", "--rate", "1000", "--log-level", "warning", *extra],
        stdout=log, stderr=subprocess.STDOUT, text=True)
    _LOGS[proc.pid] = log
    return proc, f"http://127.0.0.1:{port}"


def _output(proc: subprocess.Popen[str], timeout: float) -> str:
    """Wait for the served process to end; what it logged."""
    try:
        proc.wait(timeout)
    finally:
        log = _LOGS.pop(proc.pid)
        log.seek(0)
        text = log.read()
        log.close()
    return text


def _wait_up(proc: subprocess.Popen[str], url: str) -> None:
    deadline = time.monotonic() + 60  # start-up, on a loaded machine
    while True:
        try:
            if HTTP.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except Exception:
            pass
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)


def _truncate_wal(db: Path) -> None:
    """Empty SQLite's write-ahead log (its moves copied into the database file).  SQLite
    writes on into room its log already holds, so on a disk filled with a long log the
    games went on for as many moves as that room takes: for over 30 s on a loaded machine,
    whose slow bots had not used it up yet."""
    with contextlib.closing(sqlite3.connect(db, timeout=HANG_GUARD)) as conn:
        deadline = time.monotonic() + HANG_GUARD
        while conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]:  # busy
            assert time.monotonic() < deadline, "the log could not be emptied"
            time.sleep(0.01)


def _fill(where: Path) -> Path:
    filler = where / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    return filler


def test_disk_full_is_a_json_error_and_play_resumes(small_disk: Path) -> None:
    db = f"sqlite:///{small_disk / 'games.sqlite3'}"
    proc, url = _serve(db, "--bot-delay", "0.05")
    try:
        _wait_up(proc, url)
        gids = []
        for seed in (1, 2):
            made = create(url, game="kingelves", players=3, seed=seed,
                          seats=[{"kind": "bot", "level": "random"}] * 3)
            gids.append(made["game"]["id"])
            assert post(url, f"/api/games/{gids[-1]}/start", {}).is_success
        _truncate_wal(small_disk / "games.sqlite3")
        filler = _fill(small_disk)
        # Create-game: the protocol's JSON error, not a bare 500.
        for _ in range(50):
            r = HTTP.post(f"{url}/api/games", json={"game": "elfenland", "players": 2})
            if r.status_code == 503:
                break
            time.sleep(0.1)
        assert r.status_code == 503, r.text
        assert r.json()["type"] == "error" and r.json()["code"] == "unavailable"
        health = HTTP.get(f"{url}/healthz")

        def seqs() -> list[int]:
            return [HTTP.get(f"{url}/api/games/{g}").json()["game"]["seq"] for g in gids]

        # The bots' games stop where the disk stops them: no move for a second.  They
        # may take a few moves first (those written to the log between its truncation and
        # the disk filling up); a server that moved on without storing never stops.
        stuck = seqs()
        for _ in range(30):
            time.sleep(1.0)
            if (now := seqs()) == stuck:
                break
            stuck = now
        else:
            raise AssertionError(f"the games moved on while the disk was full: {stuck}")
        assert all(HTTP.get(f"{url}/api/games/{g}").json()["game"]["status"] == "running"
                   for g in gids)
        # Space returns: the bots play on, unasked, and the games end.
        filler.unlink()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            states = [HTTP.get(f"{url}/api/games/{g}").json()["game"]["status"] for g in gids]
            if states == ["finished", "finished"]:
                break
            time.sleep(0.2)
        assert states == ["finished", "finished"], (states, health.json())
        assert create(url, game="elfenland", players=2)["game"]["status"] == "open"
    finally:
        proc.send_signal(signal.SIGTERM)
        out = _output(proc, HANG_GUARD)
    assert proc.returncode == 0, out  # a drained SIGTERM is a clean exit
    for g in gids:
        assert len(stored_actions(db, g)) > 10


def test_a_damaged_sqlite_file_stops_the_server_at_start(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    store = open_store(f"sqlite:///{path}")
    for i in range(300):
        store.create_player(PlayerRecord(f"p{i}", "x" * 200, None, "2026"), f"h{i}")
    store.close()
    size = path.stat().st_size
    assert size > 16384
    with open(path, "r+b") as f:  # garbage in the middle of the file
        f.seek(size // 2)
        f.write(os.urandom(8192))
    proc, _url = _serve(f"sqlite:///{path}")
    try:
        out = _output(proc, HANG_GUARD)
    finally:
        proc.kill()
    assert proc.returncode == 2, out
    assert "damaged" in out and str(path) in out
    assert len(out.strip().splitlines()) == 1, out  # one clear line
    assert "Traceback" not in out


class LosesHandovers(FlakyStore):
    """The real store, except that a handover written on its own is lost as a dropped
    connection would lose it."""

    def add_handover(self, *args: Any, **kwargs: Any) -> None:
        raise StoreUnavailable("injected: the database went away")


def test_a_seat_handed_to_a_bot_is_never_stored_without_its_handover(tmp_path: Path) -> None:
    """The ratings leave out what a bot played from its handover records: a seat change
    stored without its record would let a bot's play be rated as the human's."""
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    store = LosesHandovers(SqliteStore(tmp_path / "games.sqlite3"))
    config = ServerConfig(db=db, bot_delay=30.0, limits=Limits(games_per_host=100,
                                                               absent_after=0.0))
    with BackgroundServer(config, store=store) as server:  # type: ignore[arg-type]
        made = create(server.url, game="elfenland", players=2,
                      seats=[{"kind": "human"}, {"kind": "human"}])
        gid = made["game"]["id"]
        joined = post(server.url, f"/api/games/{gid}/join", {}).json()
        assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
        r = post(server.url, f"/api/games/{gid}/seats/1/bot",
                 {"token": joined["token"], "level": "random"})
        assert r.is_success, r.text
        record = store.load_game(gid)
        assert record is not None and record.seats[1].kind == "bot"
        assert store.handovers(gid) == [(1, 0, True)]
        r = post(server.url, f"/api/games/{gid}/seats/1/take", {"token": joined["token"]})
        assert r.is_success, r.text
        assert store.handovers(gid) == [(1, 0, True), (1, 0, False)]
