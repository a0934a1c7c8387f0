"""A small real client for the server's tests: HTTP through httpx, play through a real
WebSocket, and the engine to check what the server said."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

import elfenland
from elfenland.core.game import GameState
from elfenland.server.store import open_store

JSON = dict[str, Any]
#: One client for all requests: a new httpx client costs ~0.1 s (its SSL context).
HTTP = httpx.Client(timeout=30)
#: Seconds a test waits for a message it expects before it calls the server hung.  Only a
#: hang guard: the message comes at once on a quiet machine, but on CI's 2 shared cores a
#: bot's move or a store write can be seconds late, and a late message is not a bug.
HANG_GUARD = 60.0


def wait_until(check: Callable[[], bool], what: str, timeout: float = HANG_GUARD) -> None:
    """Poll ``check`` until it holds: for what the server does after it answered (a
    rating stored after the last move is shown, a webhook called), which a loaded machine
    may delay by seconds; fails naming ``what`` when it never happens."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {timeout:g} s"
        time.sleep(0.05)


def create(base: str, **body: Any) -> JSON:
    r = HTTP.post(f"{base}/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def post(base: str, path: str, body: JSON) -> httpx.Response:
    return HTTP.post(f"{base}{path}", json=body)


def pick(view: JSON) -> str:
    """A legal action that depends only on the position, so runs can be repeated."""
    legal = view["legal"]
    return str(legal[random.Random(view["seq"] * 7919 + len(legal)).randrange(len(legal))])


async def recv(ws: ClientConnection, timeout: float = HANG_GUARD) -> JSON:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))  # type: ignore[no-any-return]


async def recv_until(ws: ClientConnection, want: Callable[[JSON], bool],
                     timeout: float = HANG_GUARD, into: list[JSON] | None = None) -> JSON:
    while True:
        msg = await recv(ws, timeout)
        if into is not None:
            into.append(msg)
        if want(msg):
            return msg


async def play_seat(ws_base: str, game_id: str, token: str, seat: int,
                    stop_at: int | None = None, since: int = 0,
                    chooser: Callable[[JSON], str] = pick) -> list[JSON]:
    """Play one seat until the game ends (or its seq reaches ``stop_at``); returns every
    message the seat received."""
    got: list[JSON] = []
    url = f"{ws_base}/ws/games/{game_id}?token={token}&since={since}"
    async with connect(url) as ws:
        acted = -1
        while True:
            msg = await recv(ws)
            got.append(msg)
            if msg["type"] == "error":
                await ws.send(json.dumps({"type": "sync", "since": 0}))
                continue
            if msg["type"] != "update":
                continue
            view = msg["view"]
            if view["current_player"] is None:
                return got
            if stop_at is not None and msg["seq"] >= stop_at:
                return got
            if view["current_player"] == seat and view.get("legal") and msg["seq"] > acted:
                acted = msg["seq"]
                await ws.send(json.dumps({"type": "action", "action": chooser(view),
                                          "seq": msg["seq"]}))


def stored_actions(db_url: str, game_id: str) -> list[str]:
    store = open_store(db_url)
    try:
        return store.actions(game_id)
    finally:
        store.close()


def engine_game(summary: JSON, seed: int) -> GameState:
    kwargs: JSON = dict(summary["options"])
    if summary["rules"] is not None:
        kwargs["rules"] = summary["rules"]
    return elfenland.new_game(game=summary["game"], players=summary["players"], seed=seed,
                              **kwargs)


def replay(summary: JSON, seed: int, actions: list[str]) -> GameState:
    state = engine_game(summary, seed)
    for a in actions:
        state.apply_action(a)
    return state
