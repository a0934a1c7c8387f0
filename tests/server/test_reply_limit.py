"""Replies that carry a game's log (a socket's first update, a ``sync``) are rationed
per client address, over all its sockets: each costs the server a view and the log for
a message of a few bytes, so the per-connection rate alone let a dozen sockets from
one address keep a core busy."""

from __future__ import annotations

import asyncio
import json

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from elfenland.server.config import Limits
from elfenland.server.ratelimit import TokenBucket
from elfenland.server.routes_play import reply_cost

from .conftest import ServerFactory
from .helpers import create, post, recv_until

#: Messages are not what is limited here: plenty of them.
FREE = dict(absent_after=0.0, games_per_host=1000, messages_per_second=1000, burst=1000)


def test_sockets_and_syncs_from_one_address_share_one_ration(
        make_server: ServerFactory) -> None:
    # The bot never moves (an hour's delay): every update below answers a socket or a sync.
    server = make_server(bot_delay=3600.0, limits=Limits(
        **FREE, replies_per_address=0.01, reply_address_burst=4))  # type: ignore[arg-type]
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "bot",
                                                                     "level": "random"}])
    gid, token = made["game"]["id"], made["token"]
    assert post(server.url, f"/api/games/{gid}/start", {"token": token}).is_success
    url = f"{server.ws_url}/ws/games/{gid}"

    async def run() -> None:
        async with connect(f"{url}?token={token}") as mine, connect(url) as watcher:
            await recv_until(mine, lambda m: m["type"] == "update")     # ration: 4 -> 3
            await recv_until(watcher, lambda m: m["type"] == "update")  # 3 -> 2
            await watcher.send(json.dumps({"type": "sync", "since": 0, "ref": 1}))
            synced = await recv_until(watcher, lambda m: m.get("ref") == 1 or
                                      m["type"] == "update")
            assert synced["type"] == "update"                  # 2 -> 1
            await mine.send(json.dumps({"type": "sync", "since": 0, "ref": 2}))
            assert (await recv_until(mine, lambda m: m["type"] == "update"))["type"] \
                == "update"                                    # 1 -> 0
            await watcher.send(json.dumps({"type": "sync", "since": 0, "ref": 3}))
            refused = await recv_until(watcher, lambda m: m.get("ref") == 3)
            assert refused["type"] == "error" and refused["code"] == "rate-limited"
            # A new socket from the same address is told to come back later (1013, which
            # the browser client's reconnect backs off from).
            async with connect(url) as third:
                said = await recv_until(third, lambda m: m["type"] != "hello")
                assert said["type"] == "error" and said["code"] == "rate-limited"
                try:
                    await asyncio.wait_for(third.recv(), 10)
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None and closed.rcvd.code == 1013
                else:
                    raise AssertionError("the refused socket stayed open")
            # The sockets already open play on: an action is no reply of this kind.
            await mine.send(json.dumps({"type": "ping"}))
            assert (await recv_until(mine, lambda m: m["type"] == "pong"))["type"] == "pong"

    asyncio.run(run())


def test_a_reply_costs_more_the_more_of_the_log_it_carries() -> None:
    """A reconnect asks for what it missed (one unit); the whole log of a long game from
    its start costs a unit more for every ``reply_entries`` entries."""
    per = Limits().reply_entries
    assert reply_cost(0, per) == reply_cost(per - 1, per) == 1.0
    assert reply_cost(300, per) == 1.0 + 300 // per
    assert reply_cost(-5, per) == 1.0  # a client ahead of the game (after an undo)
    bucket = TokenBucket(rate=0.0, burst=10, clock=lambda: 0.0)
    assert bucket.take(7.0) and not bucket.take(7.0) and bucket.take(3.0)
    assert not bucket.take()
    # A cost above the burst spends the whole burst (else it could never be paid).
    assert TokenBucket(rate=0.0, burst=4, clock=lambda: 0.0).take(99.0)
