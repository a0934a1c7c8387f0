"""The store held or half-working under a running server: another process holding the
SQLite file's write lock (an operator's ``sqlite3`` shell inside ``BEGIN IMMEDIATE``, a
script) leaves reads answering and refuses writes within seconds with the retryable
``unavailable`` (SQLite's default busy wait of 30 s on the one database thread hung
every player); and a store that answers a read but cannot write (SQLite on a full disk)
is one outage in the log, not a pair of lines twenty times a second."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from elfenland.server.background import BackgroundServer
from elfenland.server.config import Limits, ServerConfig
from elfenland.server.errors import StoreUnavailable
from elfenland.server.store import SqliteStore

from .helpers import (
    HANG_GUARD,
    HTTP,
    JSON,
    create,
    pick,
    post,
    recv_until,
    stored_actions,
    wait_until,
)
from .test_store_faults import FlakyStore, small_disk  # noqa: F401 - a fixture

#: Seconds within which a player must get an answer while the lock is held elsewhere:
#: the store's busy wait (2 s) and a loaded machine's slack; far below SQLite's 30 s.
PROMPT = 8.0

#: Another process: takes the write lock, says so, holds it until told to let go.
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("CREATE TABLE IF NOT EXISTS operator_notes (note TEXT)")
conn.execute("INSERT INTO operator_notes VALUES ('looked around')")
print("held", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("released", flush=True)
"""


def _limits() -> Limits:
    return Limits(games_per_host=100, messages_per_second=1000, burst=1000,
                  replies_per_address=1000, reply_address_burst=1000)


class Table:
    """Both seats of a two-player game, each on its own socket, and what they saw."""

    def __init__(self, ws: list[ClientConnection]) -> None:
        self.ws = ws
        self.seen: list[list[JSON]] = [[], []]
        #: Each seat's last update.
        self.last: list[JSON] = [{}, {}]

    async def update(self, seat: int, seq: int) -> JSON:
        self.last[seat] = await recv_until(self.ws[seat], lambda m: m["type"] == "update"
                                           and m["seq"] >= seq, into=self.seen[seat])
        return self.last[seat]

    @property
    def seq(self) -> int:
        return int(self.last[0]["seq"])

    @property
    def to_act(self) -> int:
        return int(self.last[0]["view"]["current_player"])

    async def play(self, moves: int) -> None:
        for _ in range(moves):
            seat, seq = self.to_act, self.seq
            await self.ws[seat].send(json.dumps({"type": "action", "seq": seq,
                                                 "action": pick(self.last[seat]["view"])}))
            await self.update(0, seq + 1)
            await self.update(1, seq + 1)


def test_a_write_lock_held_by_another_process(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    db = f"sqlite:///{path}"
    with BackgroundServer(ServerConfig(db=db, limits=_limits())) as server:
        made = create(server.url, game="elfenland", players=2, seed=7, name="Ann")
        gid = made["game"]["id"]
        bob = post(server.url, f"/api/games/{gid}/join", {"name": "Bob"}).json()
        assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
        tokens = [made["token"], bob["token"]]
        holder: subprocess.Popen[str] | None = None

        async def run() -> None:
            nonlocal holder
            base = f"{server.ws_url}/ws/games/{gid}"
            async with connect(f"{base}?token={tokens[0]}") as ws0, \
                    connect(f"{base}?token={tokens[1]}") as ws1:
                table = Table([ws0, ws1])
                await table.update(0, 0)
                await table.update(1, 0)
                await table.play(4)
                seq = table.seq

                holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          text=True)
                assert holder.stdout is not None
                assert holder.stdout.readline().strip() == "held"

                # Writes queue on the one database thread: the seat's action and ten
                # new games at once.  Each is refused promptly, the last one too.
                def new_game() -> tuple[int, str, float]:
                    began = time.monotonic()
                    r = HTTP.post(f"{server.url}/api/games", timeout=HANG_GUARD,
                                  json={"game": "elfenland", "players": 2})
                    return r.status_code, r.json().get("code", ""), time.monotonic() - began

                to_act = table.to_act
                ws = table.ws[to_act]
                began = time.monotonic()
                with ThreadPoolExecutor(10) as pool:
                    creates = [pool.submit(new_game) for _ in range(10)]
                    await ws.send(json.dumps({"type": "action", "seq": seq, "ref": 1,
                                              "action": pick(table.last[to_act]["view"])}))
                    error = await recv_until(ws, lambda m: m["type"] in ("error", "update"),
                                             into=table.seen[to_act])
                    took = time.monotonic() - began
                    assert error["type"] == "error" and error["code"] == "unavailable", error
                    assert error["ref"] == 1
                    assert took < PROMPT, f"the action was refused after {took:.1f} s"
                    answers = await asyncio.to_thread(lambda: [f.result() for f in creates])
                for status, code, seconds in answers:
                    assert (status, code) == (503, "unavailable")
                    assert seconds < PROMPT, f"a queued write waited {seconds:.1f} s"

                # Reads do not need the lock: the lobby, a game, a socket's sync, and
                # a spectator joining the table.
                for url in (f"{server.url}/api/games", f"{server.url}/api/games/{gid}"):
                    began = time.monotonic()
                    r = await asyncio.to_thread(HTTP.get, url, timeout=PROMPT)
                    assert r.status_code == 200, r.text
                    assert time.monotonic() - began < PROMPT
                    body = r.json()
                    assert [g["seq"] for g in body.get("games", [body.get("game")])] == [seq]
                for seat in (0, 1):
                    await table.ws[seat].send(json.dumps({"type": "sync", "since": 0}))
                    synced = await recv_until(table.ws[seat], lambda m: m["type"] == "update",
                                              timeout=PROMPT, into=table.seen[seat])
                    assert synced["seq"] == seq and len(synced["log"]) == seq
                async with connect(base) as spectator:
                    watched = await recv_until(spectator, lambda m: m["type"] == "update",
                                               timeout=PROMPT)
                    assert watched["seq"] == seq
                # The action again, still refused at once (the game is read again first).
                began = time.monotonic()
                await ws.send(json.dumps({"type": "action", "seq": seq, "ref": 2,
                                          "action": pick(table.last[to_act]["view"])}))
                error = await recv_until(ws, lambda m: m["type"] in ("error", "update"),
                                         timeout=PROMPT, into=table.seen[to_act])
                assert error["code"] == "unavailable" and error["ref"] == 2, error
                assert time.monotonic() - began < PROMPT
                health = await asyncio.to_thread(HTTP.get, f"{server.url}/healthz")
                assert health.status_code == 503 and health.json()["store"] is False

                # The operator commits: play goes on, without a restart.
                assert holder.stdin is not None
                holder.stdin.write("\n")
                holder.stdin.flush()
                assert holder.stdout.readline().strip() == "released"
                deadline = time.monotonic() + HANG_GUARD
                while (await asyncio.to_thread(HTTP.get, f"{server.url}/healthz")
                       ).status_code != 200:
                    assert time.monotonic() < deadline, "the store never came back"
                    await asyncio.sleep(0.05)
                await table.play(4)

            # Nothing lost, nothing shown that is not stored, nothing stored twice.
            actions = stored_actions(db, gid)
            assert len(actions) == seq + 4 == table.seq
            for seen in table.seen:
                shown = {int(e["seq"]): e["action"] for m in seen if m["type"] == "update"
                         for e in m["log"]}
                assert sorted(shown) == list(range(1, len(actions) + 1))
                assert [shown[i + 1] for i in range(len(actions))] == actions

        try:
            asyncio.run(run())
        finally:
            if holder is not None:
                holder.kill()
                holder.wait()
        games = HTTP.get(f"{server.url}/api/games").json()["games"]
        assert len(games) == 1  # none of the refused creates was stored


def _said(caplog: pytest.LogCaptureFixture, text: str) -> int:
    return sum(1 for r in caplog.records
               if r.name == "elfenland.server" and text in r.getMessage())


def _seqs(url: str, gids: list[str]) -> list[int]:
    return [int(HTTP.get(f"{url}/api/games/{g}").json()["game"]["seq"]) for g in gids]


def _bot_games(url: str, count: int) -> list[str]:
    gids = []
    for seed in range(count):
        made = create(url, game="kingelves", players=3, seed=seed,
                      seats=[{"kind": "bot", "level": "random"}] * 3)
        gids.append(made["game"]["id"])
        assert post(url, f"/api/games/{gids[-1]}/start", {}).is_success
    return gids


def test_a_full_disk_is_one_outage_that_reads_cannot_hide(
        small_disk: Path, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    """SQLite on a full disk reads but cannot write.  The recovery task's probe was a
    ``SELECT 1``: it found the store "back after 0.1 s", the bots it kicked failed at once,
    and the log had the pair of warnings twenty times a second (and /healthz said ok).
    The probe now writes: one outage, told once when it begins and once when it ends."""
    from .test_store_faults import _fill, _truncate_wal

    caplog.set_level(logging.WARNING, logger="elfenland.server")
    path = small_disk / "games.sqlite3"
    config = ServerConfig(db=f"sqlite:///{path}", bot_delay=0.05, limits=_limits())
    with BackgroundServer(config) as server:
        gids = _bot_games(server.url, 2)
        _truncate_wal(path)
        filler = _fill(small_disk)
        deadline = time.monotonic() + HANG_GUARD
        while not _said(caplog, "the store is unavailable"):
            assert time.monotonic() < deadline, "the bots never met the full disk"
            time.sleep(0.05)
        stuck = _seqs(server.url, gids)  # reads still answer
        time.sleep(3.0)  # bots and the recovery task try on meanwhile
        assert _seqs(server.url, gids) == stuck
        assert _said(caplog, "the store is unavailable") == 1
        assert _said(caplog, "the store is back") == 0
        health = HTTP.get(f"{server.url}/healthz")
        assert health.status_code == 503 and health.json()["store"] is False, health.text
        filler.unlink()
        wait_until(lambda: _said(caplog, "the store is back") > 0, "the store's return")
        wait_until(lambda: min(a - b for a, b in zip(_seqs(server.url, gids), stuck,
                                                     strict=True)) > 3,
                   "the bots play on once the disk has room")
        assert HTTP.get(f"{server.url}/healthz").status_code == 200
    assert _said(caplog, "the store is unavailable") == 1
    assert _said(caplog, "the store is back") == 1


class WritesFail(FlakyStore):
    """Games' writes fail while ``failing``, but the recovery probe's write goes
    through (PostgreSQL on a full disk: the probe's one-row update fits in its page)."""

    def ping(self, timeout: float | None = None) -> None:
        self._store.ping(timeout)

    def save_clock(self, *args: Any, **kwargs: Any) -> None:
        if self.failing:
            raise StoreUnavailable("injected: the disk is full")
        self._store.save_clock(*args, **kwargs)


def test_an_outage_the_probe_cannot_see_is_told_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """When the probe passes but the games' writes fail on, the store is not called back
    each time the probe passes: a failure within a second of it is the same outage."""
    caplog.set_level(logging.WARNING, logger="elfenland.server")
    store = WritesFail(SqliteStore(tmp_path / "games.sqlite3"))
    config = ServerConfig(db=f"sqlite:///{tmp_path / 'games.sqlite3'}", bot_delay=0.05,
                          limits=_limits())
    with BackgroundServer(config, store=store) as server:  # type: ignore[arg-type]
        gids = _bot_games(server.url, 2)
        wait_until(lambda: min(_seqs(server.url, gids)) > 2, "the bots play")
        store.failing = True
        wait_until(lambda: store.refused > 0, "the bots meet the store away")
        refused = store.refused
        time.sleep(3.0)
        assert store.refused > refused  # the probe passes, and the bots try again
        assert _said(caplog, "the store is unavailable") == 1
        assert _said(caplog, "the store is back") == 0
        assert HTTP.get(f"{server.url}/healthz").status_code == 503
        stuck = _seqs(server.url, gids)
        store.failing = False
        wait_until(lambda: _said(caplog, "the store is back") > 0, "the store's return")
        wait_until(lambda: min(a - b for a, b in zip(_seqs(server.url, gids), stuck,
                                                     strict=True)) > 3,
                   "the bots play on")
    store._store.close()
    assert _said(caplog, "the store is unavailable") == 1
    assert _said(caplog, "the store is back") == 1
