"""Clients and checks for the cluster tests: seats played over WebSockets through HAProxy
by a client that reconnects when its socket closes (as the browser does), the games'
expected course computed by the engine alone, and the store's record of who wrote what."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import psycopg
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

import elfenland
from elfenland.bots.base import make_bot
from elfenland.core.game import GameState
from elfenland.server.botseats import decision_seed

JSON = dict[str, Any]
HTTP = httpx.Client(timeout=30)
#: Close codes after which a client reconnects without showing anything.
RECONNECT_CODES = (1012, 1013, 1001, 1006)


def pick(view: JSON) -> str:
    """A legal action that depends only on the position, so runs can be repeated."""
    legal = view["legal"]
    return str(legal[random.Random(view["seq"] * 7919 + len(legal)).randrange(len(legal))])


@dataclass
class Seat:
    game: str
    seat: int
    token: str
    #: Every message received, in order, across connections.
    messages: list[JSON] = field(default_factory=list)
    #: The log entries received, in order (each connection asks for those after the
    #: last one it had).
    log: list[JSON] = field(default_factory=list)
    #: The highest seq any update showed: every action up to it was acknowledged.
    seq: int = 0
    reconnects: int = 0
    close_codes: list[int | None] = field(default_factory=list)
    done: bool = False

    @property
    def errors(self) -> list[JSON]:
        return [m for m in self.messages if m["type"] == "error"]

    @property
    def final(self) -> JSON:
        return [m for m in self.messages if m["type"] == "update"][-1]["view"]  # type: ignore[no-any-return]


@dataclass
class Game:
    id: str
    game: str
    seed: int
    summary: JSON
    seats: list[Seat]


def post(base: str, path: str, body: JSON) -> httpx.Response:
    for attempt in range(20):
        try:
            r = HTTP.post(f"{base}{path}", json=body)
        except httpx.TransportError:
            r = None
        if r is not None and r.status_code not in (502, 503, 504):
            return r
        if attempt == 19:
            raise AssertionError(f"{path}: {r.text if r is not None else 'no answer'}")
        time.sleep(0.2)
    raise AssertionError("unreachable")


def new_game(base: str, game: str, seed: int) -> Game:
    """Two humans (seats 0 and 1, played by socket clients) and two random bots."""
    made = post(base, "/api/games", {
        "game": game, "players": 4, "seed": seed, "name": "Ann",
        "seats": [{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "level": "random"},
                  {"kind": "bot", "level": "random"}]})
    assert made.status_code == 201, made.text
    body = made.json()
    gid = body["game"]["id"]
    joined = post(base, f"/api/games/{gid}/join", {"name": "Bob"})
    assert joined.status_code == 200, joined.text
    started = post(base, f"/api/games/{gid}/start", {"token": body["token"]})
    assert started.status_code == 200, started.text
    return Game(gid, game, seed, started.json(),
                [Seat(gid, 0, body["token"]), Seat(gid, 1, joined.json()["token"])])


async def play(ws_base: str, seat: Seat, deadline: float = 300.0) -> Seat:
    """Play the seat to the end of the game, reconnecting (with the last log seq it has)
    whenever the socket closes."""
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        since = int(seat.log[-1]["seq"]) if seat.log else 0
        url = f"{ws_base}/ws/games/{seat.game}?token={seat.token}&since={since}"
        try:
            async with connect(url, open_timeout=5) as ws:
                acted = -1
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    seat.messages.append(msg)
                    if msg["type"] == "error":
                        # The log entries after the last one this seat has.
                        resync = {"type": "sync",
                                  "since": int(seat.log[-1]["seq"]) if seat.log else 0}
                        if msg["code"] == "unavailable":
                            # Retryable (the store is away): nothing was stored; ask
                            # again for the state and act on it once more.
                            acted = -1
                            await asyncio.sleep(0.2)
                            await ws.send(json.dumps(resync))
                        elif msg["code"] == "stale":
                            await ws.send(json.dumps(resync))
                        continue
                    if msg["type"] != "update":
                        continue
                    seat.log.extend(msg["log"])
                    seat.seq = max(seat.seq, msg["seq"])
                    view = msg["view"]
                    if view["current_player"] is None:
                        seat.done = True
                        return seat
                    if view["current_player"] == seat.seat and view.get("legal") \
                            and msg["seq"] > acted:
                        acted = msg["seq"]
                        await ws.send(json.dumps({"type": "action", "action": pick(view),
                                                  "seq": msg["seq"]}))
        except ConnectionClosed as exc:
            seat.close_codes.append(exc.rcvd.code if exc.rcvd else None)
        except (OSError, InvalidHandshake, InvalidStatus, TimeoutError) as exc:
            seat.close_codes.append(None)
            del exc
        seat.reconnects += 1
        await asyncio.sleep(0.1)
    last = [m.get("code") or m["type"] for m in seat.messages[-5:]]
    raise AssertionError(f"seat {seat.seat} of {seat.game} did not finish: at seq {seat.seq}, "
                         f"{seat.reconnects} reconnects, closes {seat.close_codes[-8:]}, "
                         f"last messages {last}")


async def play_all(ws_base: str, games: list[Game]) -> None:
    await asyncio.gather(*(play(ws_base, s) for g in games for s in g.seats))


def expected_actions(game: str, seed: int) -> list[str]:
    """The game as one process plays it: the humans' ``pick``, the server's random bots
    with their per-decision seeds — the engine alone, no server."""
    state: GameState = elfenland.new_game(game=game, players=4, seed=seed)
    out = []
    while not state.is_terminal():
        seat = state.current_player()
        seq = len(state.history)
        if seat in (0, 1):
            text = pick(state.view(seat))
        else:
            bot = make_bot("random", game, decision_seed(seed, seat, seq))
            text = str(bot.choose(state.clone()))
        parsed = state.parse_action(text)
        out.append(str(parsed))
        state.apply_action(parsed)
    return out


def replay_log(game: str, seed: int, actions: list[str], seat: int) -> list[JSON]:
    """The log a seat sees, replayed by the engine: what every client must have got."""
    state = elfenland.new_game(game=game, players=4, seed=seed)
    for a in actions:
        state.apply_action(a)
    entries = state.view(seat)["log"]
    for i, entry in enumerate(entries):
        entry.setdefault("seq", i + 1)
    return json.loads(json.dumps(entries))  # type: ignore[no-any-return]


def stored(db: str, gid: str) -> list[str]:
    with psycopg.connect(db) as conn:
        rows = conn.execute("SELECT action FROM actions WHERE game_id = %s ORDER BY seq",
                            (gid,)).fetchall()
    return [str(r[0]) for r in rows]


def writers(db: str, gid: str) -> list[tuple[str, int]]:
    """(process, epoch) that stored each action of the game, in seq order."""
    with psycopg.connect(db) as conn:
        rows = conn.execute("SELECT owner, epoch FROM action_writers WHERE game_id = %s "
                            "ORDER BY seq", (gid,)).fetchall()
    return [(str(o).split("/")[0], int(e)) for o, e in rows]


def owner_of(db: str, gid: str) -> str | None:
    with psycopg.connect(db) as conn:
        row = conn.execute("SELECT owner FROM leases WHERE game_id = %s", (gid,)).fetchone()
    return None if row is None else str(row[0]).split("/")[0]


def assert_one_writer_at_a_time(db: str, gid: str) -> list[tuple[str, int]]:
    """Epochs only grow along the game, and each epoch is one process's: so no two
    processes ever both applied actions to the game."""
    rows = writers(db, gid)
    assert len(rows) == len(stored(db, gid)), "every stored action names its writer"
    epochs = [e for _, e in rows]
    assert epochs == sorted(epochs), f"game {gid}: an older owner wrote after a newer one"
    by_epoch: dict[int, set[str]] = {}
    for owner, epoch in rows:
        by_epoch.setdefault(epoch, set()).add(owner)
    assert all(len(o) == 1 for o in by_epoch.values()), by_epoch
    return rows


def check_games(db: str, games: list[Game], allowed: tuple[str, ...] = (),
                cluster: bool = True) -> None:
    """Every game finished as the engine alone plays it, every client's log is the
    replay's, and no client saw an error (but the ``allowed`` codes)."""
    for g in games:
        actions = stored(db, g.id)
        assert actions == expected_actions(g.game, g.seed), f"game {g.id} forked"
        for s in g.seats:
            assert s.done
            assert [e for e in s.errors if e["code"] not in allowed] == [], s.errors
            assert s.seq == len(actions)
            assert s.log == replay_log(g.game, g.seed, actions, s.seat)
        if cluster:
            assert_one_writer_at_a_time(db, g.id)
