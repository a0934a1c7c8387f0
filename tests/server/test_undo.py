"""Taking back an action: only one's own last one, only when it showed nothing hidden,
kept as an event (nothing is deleted), and the same after a restart."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from websockets.asyncio.client import ClientConnection, connect

import elfenland
from elfenland.server.store import EventRecord, open_store
from elfenland.server.undo import effective_actions, undo_refusal

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, post, recv_until, stored_actions


def test_the_rule() -> None:
    state = elfenland.new_game(game="elfenland", players=2, seed=4)
    assert undo_refusal(state, "draw secret") is not None  # a random draw
    while not _place(state.view(state.current_player())):
        state.apply_action(state.legal_actions()[0])
    assert undo_refusal(state, _place(state.view(state.current_player()))) is None
    undo = EventRecord("undo", 0, 3, {"row": 2}, "t")
    assert effective_actions(["a", "b", "c"], [undo]) == (["a", "c"], [1, 3])


def _place(view: JSON) -> str:
    """A placing action offered to the seat, or ""."""
    return next((a for a in view.get("legal", []) if a.startswith("place")), "")


def _update(m: JSON) -> bool:
    return m["type"] == "update"


async def _drive(socks: dict[int, ClientConnection], latest: dict[int, JSON],
                 stop: Callable[[int, JSON], bool]) -> None:
    """Play the first legal action for whichever seat is to act until ``stop``."""
    while True:
        seat = latest[0]["view"]["current_player"]
        view = latest[seat]["view"]
        if stop(seat, view):
            return
        seq = latest[seat]["seq"]
        await socks[seat].send(json.dumps({"type": "action", "seq": seq,
                                           "action": view["legal"][0]}))
        for s, ws in socks.items():
            latest[s] = await recv_until(ws, lambda m, n=seq + 1: _update(m) and m["seq"] == n)


def test_undo_over_the_socket_and_after_a_restart(make_server: ServerFactory,
                                                  db_url: str) -> None:
    server = make_server()
    made = create(server.url, players=2, seed=4, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "open"}])
    gid, ann = made["game"]["id"], made["token"]
    bob = post(server.url, f"/api/games/{gid}/join", {"name": "Bob"}).json()["token"]

    async def play() -> tuple[int, list[JSON], list[JSON]]:
        async with connect(f"{server.ws_url}/ws/games/{gid}?token={ann}") as a, \
                connect(f"{server.ws_url}/ws/games/{gid}?token={bob}") as b:
            socks = {0: a, 1: b}
            latest = {s: await recv_until(ws, _update) for s, ws in socks.items()}
            assert post(server.url, f"/api/games/{gid}/start", {"token": ann}).is_success
            latest = {s: await recv_until(ws, _update) for s, ws in socks.items()}
            errors: list[JSON] = []
            # A random draw cannot be taken back.
            first = latest[0]["view"]["current_player"]
            await socks[first].send(json.dumps({"type": "action", "seq": 0,
                                                "action": "draw secret"}))
            for s, ws in socks.items():
                latest[s] = await recv_until(ws, lambda m: _update(m) and m["seq"] == 1)
            await socks[first].send(json.dumps({"type": "undo", "seq": 1}))
            errors.append(await recv_until(socks[first], lambda m: m["type"] == "error"))
            # Nor another player's action, nor one a spectator asks for.
            await socks[1 - first].send(json.dumps({"type": "undo", "seq": 1}))
            errors.append(await recv_until(socks[1 - first], lambda m: m["type"] == "error"))
            await _drive(socks, latest, lambda seat, v: seat == 0 and bool(_place(v)))
            seq = latest[0]["seq"]
            placed = _place(latest[0]["view"])
            await a.send(json.dumps({"type": "action", "seq": seq, "action": placed}))
            for s, ws in socks.items():
                latest[s] = await recv_until(ws, lambda m: _update(m) and m["seq"] == seq + 1)
            # Ann takes it back: everyone is told, and is back at the earlier seq.
            await a.send(json.dumps({"type": "undo", "seq": seq + 1}))
            told = [await recv_until(ws, lambda m: m["type"] == "event") for ws in (a, b)]
            backs = [await recv_until(ws, _update) for ws in (a, b)]
            assert [m["seq"] for m in backs] == [seq, seq]
            assert backs[0]["view"]["current_player"] == 0 and placed in backs[0]["view"]["legal"]
            assert backs[0]["log"] == []
            # The action before hers was not hers (or drew at random): no further back.
            await a.send(json.dumps({"type": "undo", "seq": seq}))
            errors.append(await recv_until(a, lambda m: m["type"] == "error"))
            # Played again, it is stored as a new row.
            await a.send(json.dumps({"type": "action", "seq": seq, "action": placed}))
            again = await recv_until(b, lambda m: _update(m) and m["seq"] == seq + 1)
            assert [e["action"] for e in again["log"]] == [placed]
            return seq, [m["event"] for m in told], errors

    seq, told, errors = asyncio.run(play())
    assert [e["code"] for e in errors] == ["cannot-undo"] * 3
    assert "random" in errors[0]["message"] and "not yours" in errors[1]["message"]
    assert all(e["kind"] == "undo" and e["seat"] == 0 and e["seq"] == seq + 1
               and e["row"] == seq + 1 for e in told)
    rows = stored_actions(db_url, gid)
    assert len(rows) == seq + 2 and rows[seq] == rows[seq + 1]  # nothing deleted
    server.stop()

    again = make_server()
    summary = HTTP.get(f"{again.url}/api/games/{gid}").json()["game"]
    assert summary["seq"] == seq + 1
    replay = HTTP.get(f"{again.url}/api/games/{gid}/replay").json()
    assert replay["steps"] == seq + 1
    events = HTTP.get(f"{again.url}/api/games/{gid}/events").json()["events"]
    assert [(e["kind"], e["row"]) for e in events] == [("undo", seq + 1)]
    again.stop()

    # A finished game is listed without being loaded: its seq still leaves out the
    # row taken back. (The status is set by hand: playing it out would take long.)
    store = open_store(db_url)
    try:
        with store._tx() as cur:
            cur.execute(store._q("UPDATE games SET status = ? WHERE id = ?"),
                        ("finished", gid))
        assert store.undo_counts([gid, "nope"]) == {gid: 1}
    finally:
        store.close()
    third = make_server()
    listed = HTTP.get(f"{third.url}/api/games", params={"status": "finished"}).json()
    games = listed["games"] if isinstance(listed, dict) else listed
    assert [g["seq"] for g in games if g["id"] == gid] == [seq + 1]

