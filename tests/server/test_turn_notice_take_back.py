"""A turn begun again after a take-back is a new notice, not a repeat: its key
``(game, seq, turn)`` differs from the first one's (``turn``, the store row of the action
that began it, is new), so a receiver that drops repeats by key still hears it, and a
restart knows whether it was settled.  Before, the key was ``(game, seq)`` and the
second notice looked like a repeat of the first."""

from __future__ import annotations

import asyncio
import json
import time

from websockets.asyncio.client import connect

from elfenland.server.config import Guard
from elfenland.server.store import NOTICE_DELIVERED, TurnNoticeRecord, open_store

from .conftest import ServerFactory
from .helpers import JSON, create, post, recv_until
from .test_turn_notices_restart import Receiver
from .test_undo import _drive, _place, _update


def test_a_turn_begun_again_after_a_take_back_is_a_new_notice(
        make_server: ServerFactory, db_url: str) -> None:
    server = make_server(guard=Guard(webhook_allow=("127.0.0.1/32",)))
    with Receiver() as hook:
        ann = post(server.url, "/api/players", {"name": "Ann"}).json()
        bob = post(server.url, "/api/players", {"name": "Bob", "webhook": hook.url}).json()
        made = create(server.url, players=2, seed=4, player=ann["token"],
                      seats=[{"kind": "human"}, {"kind": "open"}])
        gid = made["game"]["id"]
        bob_seat = post(server.url, f"/api/games/{gid}/join",
                        {"player": bob["token"]}).json()

        async def play() -> int:
            async with connect(f"{server.ws_url}/ws/games/{gid}?token={made['token']}") as a, \
                    connect(f"{server.ws_url}/ws/games/{gid}?token={bob_seat['token']}") as b:
                socks = {0: a, 1: b}
                latest: dict[int, JSON] = {s: await recv_until(ws, _update)
                                           for s, ws in socks.items()}
                assert post(server.url, f"/api/games/{gid}/start",
                            {"token": made["token"]}).is_success
                latest = {s: await recv_until(ws, _update) for s, ws in socks.items()}
                await _drive(socks, latest, lambda seat, v: seat == 0 and bool(_place(v)))
                seq = latest[0]["seq"]
                placed = _place(latest[0]["view"])
                await a.send(json.dumps({"type": "action", "seq": seq, "action": placed}))
                await recv_until(b, lambda m: _update(m) and m["seq"] == seq + 1)
                # The first notice delivered before the take-back: one still pending
                # when its turn is taken back is called off (a loaded machine's CI).
                until = time.monotonic() + 30
                while time.monotonic() < until and not any(
                        p["seq"] == seq + 1 for p, _ in hook.got):
                    await asyncio.sleep(0.05)
                await a.send(json.dumps({"type": "undo", "seq": seq + 1}))
                await recv_until(a, lambda m: _update(m) and m["seq"] == seq)
                await a.send(json.dumps({"type": "action", "seq": seq, "action": placed}))
                await recv_until(b, lambda m: _update(m) and m["seq"] == seq + 1)
                return seq + 1

        bobs_turn = asyncio.run(play())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and sum(
                p["seq"] == bobs_turn for p, _ in hook.got) < 2:
            time.sleep(0.05)
        again = [p for p, _ in hook.got if p["seq"] == bobs_turn]
        assert len(again) == 2, hook.got
        first, second = again
        assert first["seat"] == second["seat"] == 1
        assert second["turn"] > first["turn"] > 0  # a new row began the turn
        keys = {(p["game"], p["seq"], p["turn"]) for p, _ in hook.got}
        assert len(keys) == len(hook.got)  # no two notices share a key

    store = open_store(db_url)
    try:
        wait = time.monotonic() + 10
        while time.monotonic() < wait and not any(
                n.seq == bobs_turn and n.turn_row == second["turn"]
                for n in store.turn_notices(gid)):
            time.sleep(0.05)
        # The second turn's notice is settled: a restart does not send it again.
        assert not store.turn_notice_due(gid, bobs_turn, 1, second["turn"])
        # Had only the first turn's been settled (a restart between the replay and the
        # second notice's answer), the second turn's would still be due.
        store.record_turn_notice(TurnNoticeRecord(gid, bobs_turn, 1, bob["player"]["id"],
                                                  first["turn"], NOTICE_DELIVERED, 1, "t"))
        assert store.turn_notice_due(gid, bobs_turn, 1, second["turn"])
        assert not store.turn_notice_due(gid, bobs_turn, 1, first["turn"])
    finally:
        store.close()
