"""Every summary names its rules, and nothing is offered before the start."""

from __future__ import annotations

import asyncio

from websockets.asyncio.client import connect

from elfenland.server.background import BackgroundServer
from elfenland.server.lobby import summary
from elfenland.server.store import GameRecord, SeatRecord

from .helpers import HTTP, create, post, recv_until


def test_summary_rules_default_to_the_games_rule_set(server: BackgroundServer) -> None:
    base = server.url
    made = {
        "elfenland": create(base, players=3, name="Ann")["game"],
        "moon": create(base, players=3, rules="MOON", name="Ann")["game"],
        "king": create(base, game="king-of-the-elves", players=3, name="Ann")["game"],
    }
    assert made["elfenland"]["rules"] == "amigo"
    assert made["moon"]["rules"] == "moon"  # the engine's spelling
    assert made["king"]["rules"] == "standard"
    listed = {g["id"]: g["rules"] for g in HTTP.get(f"{base}/api/games").json()["games"]}
    assert {listed[g["id"]] for g in made.values()} == {"amigo", "moon", "standard"}
    # The stored rules rebuild the same game: a King of the Elves game with its rules named.
    assert HTTP.get(f"{base}/api/games/{made['king']['id']}").json()["view"]["rules"]


def test_a_record_stored_without_rules_shows_the_default() -> None:
    for game, rules in (("elfenland", "amigo"), ("king-of-the-elves", "standard")):
        record = GameRecord("abc", game, 2, None, {}, 1, "open", 0, "2026-01-01T00:00:00Z",
                            "127.0.0.1", (SeatRecord(0, "open"), SeatRecord(1, "open")))
        assert summary(record, set(), 0)["rules"] == rules


def test_views_before_the_start_offer_no_action(server: BackgroundServer) -> None:
    base, ws_base = server.url, server.ws_url
    made = create(base, players=2, seed=4, name="Ann")
    gid, token = made["game"]["id"], made["token"]

    async def run() -> None:
        async with connect(f"{ws_base}/ws/games/{gid}?token={token}") as ws:
            before = await recv_until(ws, lambda m: m["type"] == "update")
            assert before["view"]["viewer"] == 0 and "hand" in before["view"]["players"][0]
            assert "legal" not in before["view"]
            bob = post(base, f"/api/games/{gid}/join", {"name": "Bob"}).json()
            async with connect(f"{ws_base}/ws/games/{gid}?token={bob['token']}") as bws:
                early = await recv_until(bws, lambda m: m["type"] == "update")
                assert "legal" not in early["view"]
                assert post(base, f"/api/games/{gid}/start", {"token": token}).is_success
                # The start sends both seats their views; the seat to act gets its choices.
                views = [(await recv_until(w, lambda m: m["type"] == "update"))["view"]
                         for w in (ws, bws)]
            mover = views[0]["current_player"]
            assert views[mover]["legal"] == ["draw secret"]
            assert "legal" not in views[1 - mover]
            assert all(v["seq"] == 0 for v in views)

    asyncio.run(run())
