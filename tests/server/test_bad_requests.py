"""Every kind of bad request gets the protocol's error and changes nothing."""

from __future__ import annotations

import asyncio
import json

import httpx
from websockets.asyncio.client import ClientConnection, connect

from elfenland.server.background import BackgroundServer
from elfenland.server.config import Limits

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, post, recv, recv_until


def _two_humans(base: str) -> tuple[str, JSON, JSON]:
    made = create(base, players=2, seed=3, name="Ann")
    gid = made["game"]["id"]
    bob = post(base, f"/api/games/{gid}/join", {"name": "Bob"}).json()
    return gid, made, bob


async def _error(ws: ClientConnection, message: str | bytes) -> JSON:
    await ws.send(message)
    return await recv_until(ws, lambda m: m["type"] in ("error", "update"))


def test_socket_refusals_change_nothing(server: BackgroundServer) -> None:
    base = server.url
    gid, ann, bob = _two_humans(base)
    before = HTTP.get(f"{base}/api/games/{gid}").json()

    async def run() -> dict[str, JSON]:
        out: dict[str, JSON] = {}
        url = f"{server.ws_url}/ws/games/{gid}"
        async with connect(f"{url}?token=not-a-token") as ws:
            out["wrong token"] = await recv(ws)
        async with connect(f"{server.ws_url}/ws/games/nosuchgame") as ws:
            out["no game"] = await recv(ws)
        async with connect(f"{url}?token={ann['token']}") as a, \
                connect(f"{url}?token={bob['token']}") as b, connect(url) as spectator:
            for ws in (a, b, spectator):
                await recv_until(ws, lambda m: m["type"] == "update")
            view = json.loads(json.dumps(before["view"]))
            legal0 = HTTP.get(f"{base}/api/games/{gid}/replay",
                               params={"seat": 0, "token": ann["token"]}).json()["view"]["legal"]
            out["before start"] = await _error(
                a, json.dumps({"type": "action", "action": legal0[0], "seq": 0}))
            assert post(base, f"/api/games/{gid}/start", {"token": bob["token"]}).is_success
            await recv_until(a, lambda m: m["type"] == "lobby" and
                             m["game"]["status"] == "running")
            # The start sends every connection its view again, now with the choices.
            started = [await recv_until(ws, lambda m: m["type"] == "update")
                       for ws in (a, b, spectator)]
            assert started[0]["view"]["legal"] == legal0
            assert "legal" not in started[1]["view"] and "legal" not in started[2]["view"]
            assert view["current_player"] == 0
            out["spectator acts"] = await _error(
                spectator, json.dumps({"type": "action", "action": legal0[0], "seq": 0}))
            out["not your turn"] = await _error(
                b, json.dumps({"type": "action", "action": legal0[0], "seq": 0}))
            out["stale"] = await _error(
                a, json.dumps({"type": "action", "action": legal0[0], "seq": 5, "ref": "r1"}))
            illegal = next(t for t in ("pass", "end", "draw blind", "draw dragon")
                           if t not in legal0)
            out["illegal"] = await _error(
                a, json.dumps({"type": "action", "action": illegal, "seq": 0}))
            out["parse"] = await _error(
                a, json.dumps({"type": "action", "action": "fly to the moon", "seq": 0}))
            out["bad id"] = await _error(
                a, json.dumps({"type": "action", "action": 10**9, "seq": 0}))
            out["malformed"] = await _error(a, "{not json")
            out["not an object"] = await _error(a, "[1, 2]")
            out["wrong types"] = await _error(
                a, json.dumps({"type": "action", "action": [1], "seq": 0}))
            out["no seq"] = await _error(a, json.dumps({"type": "action", "action": legal0[0]}))
            out["unknown type"] = await _error(a, json.dumps({"type": "dance"}))
            out["oversized"] = await _error(
                a, json.dumps({"type": "ping", "pad": "x" * (17 * 1024)}))
            await a.send(json.dumps({"type": "ping"}))
            out["ping"] = await recv_until(a, lambda m: m["type"] == "pong")
        return out

    out = asyncio.run(run())
    codes = {k: v.get("code") for k, v in out.items()}
    assert codes == {
        "wrong token": "bad-token", "no game": "not-found", "before start": "not-started",
        "spectator acts": "bad-token", "not your turn": "not-your-turn", "stale": "stale",
        "illegal": "illegal", "parse": "parse", "bad id": "parse",
        "malformed": "bad-request", "not an object": "bad-request",
        "wrong types": "bad-request", "no seq": "bad-request", "unknown type": "bad-request",
        "oversized": "too-large", "ping": None,
    }
    assert out["stale"]["ref"] == "r1"
    assert out["illegal"]["message"]
    after = HTTP.get(f"{base}/api/games/{gid}").json()
    assert after["view"] == before["view"] and after["game"]["seq"] == 0


def test_rate_limit(make_server: ServerFactory) -> None:
    server = make_server(limits=Limits(messages_per_second=2, burst=5))
    gid, ann, _ = _two_humans(server.url)

    async def run() -> list[JSON]:
        async with connect(f"{server.ws_url}/ws/games/{gid}?token={ann['token']}") as ws:
            await recv_until(ws, lambda m: m["type"] == "update")
            for _ in range(12):
                await ws.send(json.dumps({"type": "ping"}))
            return [await recv_until(ws, lambda m: m["type"] in ("pong", "error"))
                    for _ in range(12)]

    replies = asyncio.run(run())
    limited = [r for r in replies if r["type"] == "error"]
    assert {r["code"] for r in limited} == {"rate-limited"}
    assert 5 <= len(replies) - len(limited) <= 7
    assert HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]["seq"] == 0


def test_http_refusals(make_server: ServerFactory) -> None:
    server = make_server(limits=Limits(games_per_host=3, absent_after=60))
    base = server.url
    gid, ann, _ = _two_humans(base)

    def code(r: httpx.Response) -> tuple[int, str]:
        return r.status_code, r.json()["code"]

    assert code(HTTP.post(f"{base}/api/games", json={"game": "chess"})) == (400, "bad-request")
    assert code(HTTP.post(f"{base}/api/games", json={"players": 9})) == (400, "bad-request")
    # An option the game does not declare (issue #22): 422, naming it.
    assert code(HTTP.post(f"{base}/api/games", json={"options": {"no_such_rule": 1}})) == (
        422, "bad-option")
    assert code(HTTP.post(f"{base}/api/games", json={"players": 2, "seats": [{}]})) == (
        400, "bad-request")
    assert code(HTTP.post(f"{base}/api/games", content=b"{oops",
                           headers={"content-type": "application/json"})) == (400, "bad-request")
    assert code(HTTP.post(f"{base}/api/games", json={"name": "x" * 20000})) == (413, "too-large")
    assert code(post(base, "/api/games/nosuchgame/join", {})) == (404, "not-found")
    assert code(HTTP.get(f"{base}/api/games/nosuchgame")) == (404, "not-found")
    assert code(post(base, f"/api/games/{gid}/join", {"seat": 1})) == (409, "seat-taken")
    assert code(post(base, f"/api/games/{gid}/join", {"seat": 7})) == (404, "not-found")
    assert code(post(base, f"/api/games/{gid}/start", {"token": "wrong"})) == (403, "bad-token")
    # The wrong seat: Ann's token does not take Bob's seat.
    assert code(post(base, f"/api/games/{gid}/seats/1/take", {"token": ann["token"]})) == (
        403, "bad-token")
    # Bob is not absent yet (60 s), so Ann may not hand his seat to a bot.
    assert code(post(base, f"/api/games/{gid}/seats/1/bot", {"token": ann["token"]})) == (
        403, "bad-token")
    assert code(HTTP.get(f"{base}/api/games/{gid}/replay", params={"seat": 1})) == (
        403, "bad-token")
    assert code(HTTP.get(f"{base}/api/games/{gid}/replay",
                          params={"seat": 1, "token": ann["token"]})) == (403, "bad-token")
    assert post(base, f"/api/games/{gid}/start", {"token": ann["token"]}).status_code == 200
    assert code(post(base, f"/api/games/{gid}/start", {"token": ann["token"]})) == (
        409, "already-started")
    assert code(post(base, f"/api/games/{gid}/join", {})) == (409, "already-started")
    # Three unfinished games per host: this is the second, the third fits, the fourth not.
    create(base, players=2)
    create(base, players=2)
    assert code(HTTP.post(f"{base}/api/games", json={"players": 2})) == (429, "too-many-games")
    summary = HTTP.get(f"{base}/api/games/{gid}").json()["game"]
    assert [s["kind"] for s in summary["seats"]] == ["human", "human"]
    assert summary["seq"] == 0 and summary["status"] == "running"
