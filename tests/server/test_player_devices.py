"""A player's token opens the seats linked to that player, on any device: the WebSocket
(its ``token.<t>`` subprotocol), the route hint, a running game's replay as a seat,
handing one's seat to a bot and taking it back.  Another player's token, a spectator
and a seat taken without a player stay as they were; the links come back with the game
after a restart."""

from __future__ import annotations

import asyncio
import json

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, post, recv, recv_until

SEED = 5


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def player(base: str, name: str) -> str:
    r = post(base, "/api/players", {"name": name})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def open_ws(ws_base: str, gid: str, token: str | None, seat: int | None = None
            ) -> connect:
    url = f"{ws_base}/ws/games/{gid}" + ("" if seat is None else f"?seat={seat}")
    protocols = ["elfenland"] + ([f"token.{token}"] if token else [])
    return connect(url, subprotocols=protocols)  # type: ignore[arg-type]


async def refused(ws_base: str, gid: str, token: str, seat: int | None = None) -> JSON:
    """The socket's error before it is closed with 4403."""
    async with open_ws(ws_base, gid, token, seat) as ws:
        msg = await recv(ws)
        assert msg["type"] == "error" and msg["code"] == "bad-token", msg
        try:
            await recv(ws)
        except ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code == 4403
        else:
            raise AssertionError("the socket stayed open")
        return msg


async def first_update(ws: ClientConnection) -> tuple[JSON, JSON]:
    hello = await recv_until(ws, lambda m: m["type"] == "hello")
    update = await recv_until(ws, lambda m: m["type"] == "update")
    return hello, update


def hint(base: str, gid: str, token: str, seat: int | None = None) -> httpx.Response:
    params = {} if seat is None else {"seat": seat}
    return HTTP.get(f"{base}/api/games/{gid}/hint", params=params, headers=bearer(token))


def replay(base: str, gid: str, token: str | None, seat: int) -> httpx.Response:
    return HTTP.get(f"{base}/api/games/{gid}/replay", params={"seat": seat},
                    headers=bearer(token) if token else {})


def test_a_linked_seat_opens_with_its_players_token(make_server: ServerFactory) -> None:
    server = make_server()
    base, ws_base = server.url, server.ws_url
    ann, bob, cy = player(base, "Ann"), player(base, "Bob"), player(base, "Cy")
    made = create(base, players=3, seed=SEED, player=ann, options={"route_hint": True},
                  seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
    gid = made["game"]["id"]
    joined = post(base, f"/api/games/{gid}/join", {"player": bob}).json()
    assert joined["seat"] == 1
    guest = post(base, f"/api/games/{gid}/join", {"name": "Gus"}).json()  # no player
    assert guest["seat"] == 2
    seat_tokens = {0: made["token"], 1: joined["token"], 2: guest["token"]}
    players = {0: ann, 1: bob}

    # Before the start: the player token starts the game as its seat would.
    r = post(base, f"/api/games/{gid}/start", {"token": cy})
    assert r.status_code == 403 and r.json()["code"] == "bad-token"
    assert post(base, f"/api/games/{gid}/start", {"token": bob}).is_success

    async def run() -> None:
        # The player token is the linked seat's credential: hello names the seat, and the
        # view is the seat's own (its hand), the same as its seat token gets.
        for seat, token in players.items():
            async with open_ws(ws_base, gid, token) as ws, \
                    open_ws(ws_base, gid, seat_tokens[seat]) as own:
                hello, update = await first_update(ws)
                _, same = await first_update(own)
                assert hello["seat"] == seat and ws.subprotocol == "elfenland"
                assert "hand" in update["view"]["players"][seat]
                assert update["view"] == same["view"]
        # Another player's token, an unlinked seat asked with a player token, a seat of
        # another player: refused as a wrong token is.
        await refused(ws_base, gid, cy)
        await refused(ws_base, gid, ann, seat=2)
        await refused(ws_base, gid, ann, seat=1)
        await refused(ws_base, gid, bob, seat=0)
        # A spectator stays a spectator and cannot act.
        async with open_ws(ws_base, gid, None) as spectator:
            hello, update = await first_update(spectator)
            assert hello["seat"] is None
            assert all("hand" not in p for p in update["view"]["players"])
            await spectator.send(json.dumps({"type": "action", "action": 0,
                                             "seq": update["seq"]}))
            err = await recv_until(spectator, lambda m: m["type"] == "error")
            assert err["code"] == "bad-token"
        # Each linked seat acts through its player's token (the guest through its seat).
        acted: set[int] = set()
        for _ in range(12):
            async with open_ws(ws_base, gid, None) as look:
                _, update = await first_update(look)
            mover = update["view"]["current_player"]
            credential = str(players[mover] if mover in players else seat_tokens[mover])
            async with open_ws(ws_base, gid, credential) as ws:
                _, mine = await first_update(ws)
                assert mine["view"]["legal"]
                await ws.send(json.dumps({"type": "action", "action": mine["view"]["legal"][0],
                                          "seq": mine["seq"]}))
                after = await recv_until(ws, lambda m: m["type"] in ("update", "error"))
                assert after["type"] == "update" and after["seq"] == mine["seq"] + 1, after
            if mover in players:
                acted.add(mover)
            if acted == {0, 1}:
                break
        assert acted == {0, 1}

    asyncio.run(run())

    # HTTP: the route hint and the replay as a seat take the player token too.
    mover = HTTP.get(f"{base}/api/games/{gid}").json()["game"]["to_act"]
    for seat, token in players.items():
        got = hint(base, gid, token)
        assert got.json().get("code") != "bad-token", got.text
        assert got.json().get("code") == ("not-your-turn" if seat != mover else "wrong-phase") \
            or "route" in got.json()
        assert replay(base, gid, token, seat).status_code == 200
        assert "hand" in replay(base, gid, token, seat).json()["view"]["players"][seat]
    assert hint(base, gid, cy).json()["code"] == "bad-token"
    assert hint(base, gid, ann, seat=1).json()["code"] == "bad-token"
    assert replay(base, gid, ann, 1).status_code == 403
    assert replay(base, gid, ann, 2).status_code == 403
    assert replay(base, gid, cy, 0).status_code == 403
    assert replay(base, gid, None, 0).status_code == 403

    # Hand one's own seat to a bot with the player token, and take it back with it.
    r = post(base, f"/api/games/{gid}/seats/0/bot", {"token": ann, "level": "random"})
    assert r.is_success, r.text
    assert r.json()["seats"][0]["kind"] == "bot"
    r = post(base, f"/api/games/{gid}/seats/0/take", {"token": cy})
    assert r.status_code == 403 and r.json()["code"] == "bad-token"
    r = post(base, f"/api/games/{gid}/seats/0/take", {"token": ann})
    assert r.is_success and r.json()["seats"][0]["kind"] == "human", r.text
    r = post(base, f"/api/games/{gid}/seats/2/take", {"token": ann})
    assert r.status_code == 403 and r.json()["code"] == "bad-token"


def test_the_links_come_back_after_a_restart(make_server: ServerFactory) -> None:
    server = make_server()
    base = server.url
    ann, bob = player(base, "Ann"), player(base, "Bob")
    made = create(base, players=2, seed=SEED, player=ann,
                  seats=[{"kind": "human"}, {"kind": "open"}])
    gid = made["game"]["id"]
    assert post(base, f"/api/games/{gid}/join", {"player": bob}).json()["seat"] == 1
    assert post(base, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    server.stop()

    again = make_server()
    players = {0: ann, 1: bob}

    async def run() -> None:
        for seat, token in players.items():
            async with open_ws(again.ws_url, gid, token) as ws:
                hello, update = await first_update(ws)
                assert hello["seat"] == seat
                assert "hand" in update["view"]["players"][seat]
        mover = update["view"]["current_player"]
        async with open_ws(again.ws_url, gid, players[mover]) as ws:
            _, mine = await first_update(ws)
            await ws.send(json.dumps({"type": "action", "action": mine["view"]["legal"][0],
                                      "seq": mine["seq"]}))
            after = await recv_until(ws, lambda m: m["type"] in ("update", "error"))
            assert after["type"] == "update" and after["seq"] == mine["seq"] + 1, after

    asyncio.run(run())
    games = HTTP.get(f"{again.url}/api/players/me/games", headers=bearer(bob)).json()["games"]
    assert [(g["id"], g["seat"]) for g in games] == [(gid, 1)]


def test_a_player_in_two_seats_names_the_seat(make_server: ServerFactory) -> None:
    """One player token may hold two seats of a game (it may join its own game): without
    ``seat`` the socket is refused as ambiguous, with it the named seat opens."""
    server = make_server()
    base, ws_base = server.url, server.ws_url
    ann = player(base, "Ann")
    made = create(base, players=2, seed=SEED, player=ann,
                  seats=[{"kind": "human"}, {"kind": "open"}])
    gid = made["game"]["id"]
    assert post(base, f"/api/games/{gid}/join", {"player": ann}).json()["seat"] == 1
    assert post(base, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    games = HTTP.get(f"{base}/api/players/me/games", headers=bearer(ann)).json()["games"]
    assert sorted(g["seat"] for g in games) == [0, 1]

    async def run() -> None:
        err = await refused(ws_base, gid, ann)
        assert "seat" in err["message"]
        for seat in (0, 1):
            async with open_ws(ws_base, gid, ann, seat=seat) as ws:
                hello, update = await first_update(ws)
                assert hello["seat"] == seat and "hand" in update["view"]["players"][seat]

    asyncio.run(run())
    assert replay(base, gid, ann, 1).status_code == 200
