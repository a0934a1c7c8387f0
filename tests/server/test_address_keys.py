"""Every per-address limit counts a client by one key (``addresses.address_key``): an
IPv4 address as it is, an IPv6 address by its /64 (one subscriber's usual share, so a
host cannot multiply a limit by changing the low bits of its address).  Before, only the
HTTP work ration did: the unfinished games per host, the reply ration and chat counted
each IPv6 address alone.  Each client below stands for an address through a trusted
proxy's ``X-Forwarded-For``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from websockets.asyncio.client import connect

from elfenland.server.addresses import address_key
from elfenland.server.chat import ChatLimiter
from elfenland.server.config import Guard, Limits
from elfenland.server.errors import ServerError

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, recv_until

FREE: dict[str, Any] = dict(absent_after=0.0, games_per_host=1000, messages_per_second=1000,
                            burst=1000)
PROXIED = Guard(trusted_proxies=("127.0.0.1/32",))
#: Two addresses of one /64, a third of it, and one of the next /64.
SAME, SAME_TOO, SAME_THIRD = "2001:db8::1", "2001:db8::ffff:2", "2001:db8::3"
OTHER = "2001:db8:0:1::1"


def _as(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def test_the_key_of_an_address() -> None:
    assert address_key(SAME) == address_key(SAME_TOO) == address_key(SAME_THIRD)
    assert address_key(OTHER) != address_key(SAME)
    assert address_key("::ffff:198.51.100.7") == address_key("198.51.100.7")
    assert address_key("198.51.100.7") != address_key("198.51.100.8")


def test_one_64_shares_the_unfinished_games_limit(make_server: ServerFactory) -> None:
    server = make_server(limits=Limits(**FREE | {"games_per_host": 1}), guard=PROXIED)
    open_game = {"players": 2, "seats": [{"kind": "human"}, {"kind": "open"}]}

    def new_game(address: str) -> httpx.Response:
        return HTTP.post(f"{server.url}/api/games", json=open_game, headers=_as(address))

    assert new_game(SAME).status_code == 201
    refused = new_game(SAME_TOO)
    assert (refused.status_code, refused.json()["code"]) == (429, "too-many-games"), \
        refused.text
    assert "2001:db8::/64" in refused.json()["message"]
    assert new_game(OTHER).status_code == 201
    assert new_game("198.51.100.7").status_code == 201
    assert new_game("198.51.100.8").status_code == 201  # IPv4 addresses are each their own


def test_one_64_shares_the_chat_limit(make_server: ServerFactory) -> None:
    server = make_server(limits=Limits(**FREE, chat_per_second=1000,
                                       chat_burst=1000, chat_per_address=0.01,
                                       chat_address_burst=2), guard=PROXIED)
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    url = f"{server.ws_url}/ws/games/{made['game']['id']}"

    async def say(address: str) -> str:
        async with connect(url, additional_headers=_as(address)) as ws:
            await recv_until(ws, lambda m: m["type"] == "events")
            await ws.send(json.dumps({"type": "chat", "text": "hi", "name": "Zed"}))
            got = await recv_until(ws, lambda m: m["type"] in ("event", "error"))
            return str(got.get("code", got["type"]))

    async def run() -> list[str]:
        return [await say(a) for a in (SAME, SAME_TOO, SAME_THIRD, OTHER)]

    assert asyncio.run(run()) == ["event", "event", "rate-limited", "event"]


def test_one_64_shares_the_reply_ration(make_server: ServerFactory) -> None:
    server = make_server(limits=Limits(**FREE, replies_per_address=0.01,
                                       reply_address_burst=2), guard=PROXIED)
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    url = f"{server.ws_url}/ws/games/{made['game']['id']}"

    async def first(address: str) -> JSON:
        async with connect(url, additional_headers=_as(address)) as ws:
            return await recv_until(ws, lambda m: m["type"] != "hello")

    async def run() -> list[str]:
        said = [await first(a) for a in (SAME, SAME_TOO, SAME_THIRD, OTHER)]
        return [str(m.get("code", "answered") if m["type"] == "error" else "answered")
                for m in said]

    assert asyncio.run(run()) == ["answered", "answered", "rate-limited", "answered"]


def test_the_chat_limiter_counts_an_address_by_its_key() -> None:
    """A spectator's own bucket is its address's in the game, by the same key."""
    limiter = ChatLimiter(Limits(chat_per_second=0.0, chat_burst=1, chat_per_address=1000,
                                 chat_address_burst=1000))
    limiter.admit("g", None, SAME)
    for address in (SAME_TOO, SAME_THIRD):
        try:
            limiter.admit("g", None, address)
        except ServerError as exc:
            assert exc.code == "rate-limited"
        else:
            raise AssertionError(f"{address} chatted on {SAME}'s spectator bucket")
    limiter.admit("g", None, OTHER)
    limiter.admit("g", 0, SAME)  # a seat has its own
