"""The route hint: the movement planner run by the server for the seat to move at a
table created with it (an unrated one), and refused to everyone else, in every other
phase and at every table created without it (every rated table)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from elfenland.bots.planner import plan_journey
from elfenland.core.transport import Transport
from elfenland.games.elfenland.state import ElfenlandState
from elfenland.server.background import BackgroundServer

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, pick, post, recv_until, replay, stored_actions

SEED = 21


def hint(base: str, gid: str, token: str | None) -> httpx.Response:
    params = {} if token is None else {"token": token}
    return HTTP.get(f"{base}/api/games/{gid}/hint", params=params)


def refused(r: httpx.Response, code: str, status: int) -> None:
    assert r.status_code == status, r.text
    assert r.json()["code"] == code, r.text


def counts(cards: tuple[int, ...]) -> dict[str, int]:
    return {Transport(k).slug: n for k, n in enumerate(cards) if n}


def expected_hint(state: ElfenlandState, seat: int) -> dict[str, Any]:
    """What the planner says on the engine's own copy of the game."""
    journey = plan_journey(state, seat)
    towns = [state.board.towns[state.boots[seat]].id] + [
        state.board.towns[t].id for t in journey.towns]
    return {"route": [{"action": s.text, "from": towns[i], "to": towns[i + 1],
                       "paid": counts(s.paid)} for i, s in enumerate(journey.steps)],
            "new_towns": journey.new_towns, "cards_left": counts(journey.hand)}


async def next_views(socks: dict[int, ClientConnection]) -> dict[int, JSON]:
    out = {}
    for seat, ws in socks.items():
        out[seat] = (await recv_until(ws, lambda m: m["type"] == "update"))["view"]
    return out


def test_hint_is_the_planners_route_for_the_seat_to_move(
        server: BackgroundServer, db_url: str) -> None:
    base, ws_base = server.url, server.ws_url
    made = create(base, players=2, seed=SEED, name="Ann", options={"route_hint": True})
    gid, ann = made["game"]["id"], made["token"]
    assert made["game"]["route_hint"] and made["game"]["unrated"]
    bob = post(base, f"/api/games/{gid}/join", {"name": "Bob"}).json()["token"]
    tokens = {0: ann, 1: bob}
    refused(hint(base, gid, ann), "not-started", 409)
    assert post(base, f"/api/games/{gid}/start", {"token": ann}).is_success
    summary = HTTP.get(f"{base}/api/games/{gid}").json()["game"]
    checked = 0
    steps_seen = 0

    async def run() -> None:
        nonlocal checked, steps_seen
        url = f"{ws_base}/ws/games/{gid}"
        async with connect(f"{url}?token={ann}") as a, connect(f"{url}?token={bob}") as b:
            socks = {0: a, 1: b}
            first = True
            while checked < 4:
                views = await next_views(socks)
                mover = views[0]["current_player"]
                assert mover is not None, "the game ended before four moves were checked"
                other = 1 - mover
                if first:
                    # Drawing the secret counter: no route to plan; and never with a
                    # token that is not a seat's.
                    refused(hint(base, gid, tokens[mover]), "wrong-phase", 409)
                    refused(hint(base, gid, "x" * 43), "bad-token", 403)
                    refused(hint(base, gid, None), "bad-token", 403)
                    first = False
                view = views[mover]
                if view["phase"] == "move" and not view["discarding"]:
                    got = hint(base, gid, tokens[mover])
                    assert got.status_code == 200, got.text
                    answer = got.json()
                    state = replay(summary, SEED, stored_actions(db_url, gid))
                    assert isinstance(state, ElfenlandState)
                    assert answer["seq"] == len(state.history) == view["seq"]
                    want = expected_hint(state, mover)
                    steps = [{k: v for k, v in s.items() if k != "route"}
                             for s in answer["route"]]
                    assert {**answer, "route": steps, "seq": None} == {**want, "seq": None}
                    assert [s["route"] for s in answer["route"]] == [
                        state.board.routes[s.action.route].id  # type: ignore[index]
                        for s in plan_journey(state, mover).steps]
                    if answer["route"]:
                        assert answer["route"][0]["action"] in view["legal"]
                    # The other seat may not ask while this one moves.
                    refused(hint(base, gid, tokens[other]), "not-your-turn", 400)
                    checked += 1
                    steps_seen += len(answer["route"])
                    # Follow the hint: each step's answer must still be the planner's.
                    action = answer["route"][0]["action"] if answer["route"] else "end"
                else:
                    action = pick(view)
                await socks[mover].send(json.dumps({"type": "action", "action": action,
                                                    "seq": view["seq"]}))

    asyncio.run(run())
    assert checked == 4 and steps_seen > 0


def test_hint_is_refused_in_king_of_the_elves_and_for_unknown_games(
        server: BackgroundServer) -> None:
    base = server.url
    r = HTTP.post(f"{base}/api/games", json={"game": "king-of-the-elves", "players": 2,
                                             "options": {"route_hint": True}})
    refused(r, "bad-request", 400)  # an Elfenland table option
    made = create(base, game="king-of-the-elves", players=2, seed=3, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}])
    gid = made["game"]["id"]
    assert post(base, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    refused(hint(base, gid, made["token"]), "bad-request", 400)  # no King's table has it
    refused(hint(base, "nosuchgame", made["token"]), "not-found", 404)
    assert "/api/games/{game_id}/hint" in HTTP.get(f"{base}/openapi.json").json()["paths"]


def test_hint_is_a_table_option_off_and_refused_at_rated_tables(
        server: BackgroundServer) -> None:
    base = server.url
    seats = [{"kind": "human"}, {"kind": "bot", "level": "random"}]
    # No seed chosen, no hint asked for: a rated table, and the hint is refused there
    # even in the move phase.
    made = create(base, players=2, name="Ann", seats=seats)
    game = made["game"]
    assert not game["route_hint"] and not game["unrated"]
    assert "route_hint" not in game["options"]
    gid, ann = game["id"], made["token"]
    assert post(base, f"/api/games/{gid}/start", {"token": ann}).is_success
    r = hint(base, gid, ann)
    refused(r, "bad-request", 400)
    assert "without route hints" in r.json()["message"]
    # Asked for at creation: the table says so and is unrated.
    made = create(base, players=2, name="Ann", seats=seats, options={"route_hint": True})
    assert made["game"]["route_hint"] and made["game"]["unrated"]
    assert "route_hint" not in made["game"]["options"]  # not an engine option
    refused(HTTP.post(f"{base}/api/games", json={"players": 2,
                                                 "options": {"route_hint": "yes"}}),
            "bad-request", 400)


def test_a_table_with_the_route_hint_is_not_rated(make_server: ServerFactory) -> None:
    server = make_server()
    base = server.url
    made = create(base, players=2, options={"route_hint": True},
                  seats=[{"kind": "bot", "level": "random"}, {"kind": "bot", "level": "greedy"}])
    gid = made["game"]["id"]
    assert post(base, f"/api/games/{gid}/start", {}).is_success
    deadline = time.monotonic() + 60
    while HTTP.get(f"{base}/api/games/{gid}").json()["game"]["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(0.3)
    assert HTTP.get(f"{base}/api/ratings", params={"game": "elfenland"}).json()["ratings"] == []
