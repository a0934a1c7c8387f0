"""Elfengold at the server: created from the lobby with its declared options (bad ones
refused), bots in seats, a seat handed to a bot and taken back, an action taken back
(the engine's ``take_back_seat``), and the web lobby offering it."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from pathlib import Path

from websockets.asyncio.client import connect

import elfenland
from elfenland.server.background import BackgroundServer

from .helpers import HTTP, JSON, create, pick, play_seat, post, recv_until, replay, stored_actions

LOBBY_JS = Path(elfenland.__file__).parent / "web" / "static" / "js" / "lobby.js"


def test_seats_asked_for_a_level_without_an_elfengold_bot_get_one_that_plays(
        server: BackgroundServer) -> None:
    made = create(server.url, game="elfengold", players=3, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "bot", "level": "learned"},
                         {"kind": "bot", "level": "quick"}])
    levels = [s.get("level") for s in made["game"]["seats"]]
    assert levels[1:] == ["search", "search"]


def test_created_with_its_variants_and_refused_with_bad_options(
        server: BackgroundServer) -> None:
    base = server.url
    made = create(base, game="elfengold", players=4, name="Ann",
                  options={"witch": True, "random_gold": True},
                  seats=[{"kind": "human"}, {"kind": "bot", "level": "greedy"},
                         {"kind": "bot", "level": "search"}, {"kind": "open"}])
    game = made["game"]
    assert game["game"] == "elfengold" and game["title"] == "Elfengold"
    assert game["rules"] == "elfengold"
    assert game["options"] == {"witch": True, "random_gold": True}
    # Variants keep the named rule set: rated.  A section-2 option makes it custom.
    assert not game["custom_rules"] and not game["unrated"]
    custom = create(base, game="elfengold", players=3, options={"eg_overbid": "capped"})
    assert custom["game"]["custom_rules"] and custom["game"]["unrated"]
    before = HTTP.get(f"{base}/api/games").json()["games"]
    for body, named in ((({"witch": "yes"}), "witch"), ({"eg_overbid": "never"}, "eg_overbid"),
                        ({"rounds": 0}, "rounds"), ({"destination_town": 1}, "destination")):
        r = post(base, "/api/games", {"game": "elfengold", "players": 4, "options": body})
        assert r.status_code == 422, (body, r.text)
        assert r.json()["code"] == "bad-option" and named in r.json()["message"]
    r = post(base, "/api/games", {"game": "elfengold", "players": 4, "rules": "amigo"})
    assert r.status_code == 422 and r.json()["code"] == "bad-option"
    r = post(base, "/api/games", {"game": "elfengold", "players": 4,
                                  "options": {"route_hint": True}})
    assert r.status_code == 400, r.text
    assert HTTP.get(f"{base}/api/games").json()["games"] == before
    # The started game's view is the engine's: gold values, coins, the witch's rules.
    started = post(base, f"/api/games/{game['id']}/start", {"token": made["token"],
                                                            "fill": "greedy"})
    assert started.status_code == 200, started.text
    view = HTTP.get(f"{base}/api/games/{game['id']}").json()["view"]
    assert view["game"] == "elfengold" and view["options"]["witch"] is True
    assert sorted(view["gold_values"].values()) == [0, 2, 2, *[3] * 6, *[4] * 6, *[5] * 4, 6, 7]
    assert all(p["coins"] == 12 for p in view["players"])


def test_bots_play_a_handed_over_seat_and_it_is_taken_back(server: BackgroundServer,
                                                           db_url: str) -> None:
    base, ws_base = server.url, server.ws_url
    made = create(base, game="elfengold", players=3, seed=8, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "open"},
                         {"kind": "bot", "level": "greedy"}])
    gid = made["game"]["id"]
    bob = post(base, f"/api/games/{gid}/join", {"name": "Bob"}).json()
    assert post(base, f"/api/games/{gid}/start", {"token": made["token"]}).is_success

    async def run() -> JSON:
        async with connect(f"{ws_base}/ws/games/{gid}?token={made['token']}") as ann:
            r = post(base, f"/api/games/{gid}/seats/1/bot", {"token": made["token"],
                                                            "level": "greedy"})
            assert r.status_code == 200, r.text
            assert r.json()["seats"][1]["human"] == "Bob"
            msg: JSON = {}
            while msg.get("seq", 0) < 60:
                msg = await recv_until(ann, lambda m: m["type"] == "update")
                view = msg["view"]
                if view["current_player"] == 0 and view.get("legal"):
                    await ann.send(json.dumps({"type": "action", "seq": msg["seq"],
                                               "action": pick(view)}))
            r = post(base, f"/api/games/{gid}/seats/1/take", {"token": bob["token"]})
            assert r.json()["seats"][1] == {"seat": 1, "kind": "human", "name": "Bob",
                                            "connected": False}
            return msg

    asyncio.run(run())
    actions = stored_actions(db_url, gid)
    state = replay(made["game"], 8, actions)
    players = {e["player"] for e in state.view(None)["log"]}
    assert players == {0, 1, 2}  # the bot played Bob's seat
    summary = HTTP.get(f"{base}/api/games/{gid}").json()["game"]
    assert summary["seats"][1]["kind"] == "human"


def test_a_bid_is_taken_back_but_a_hidden_item_is_not(server: BackgroundServer) -> None:
    base, ws_base = server.url, server.ws_url
    made = create(base, game="elfengold", players=2, seed=3, name="Ann",
                  seats=[{"kind": "human"}, {"kind": "open"}])
    gid = made["game"]["id"]
    bob = post(base, f"/api/games/{gid}/join", {"name": "Bob"}).json()
    assert post(base, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    tokens = {0: made["token"], 1: bob["token"]}

    async def run() -> list[JSON]:
        socks = {s: await connect(f"{ws_base}/ws/games/{gid}?token={tok}")
                 for s, tok in tokens.items()}
        got: list[JSON] = []
        try:
            msgs = {s: await recv_until(ws, lambda m: m["type"] == "update")
                    for s, ws in socks.items()}
            # Phase 3: each hides an item (the next draw is random: no taking back).
            while "hide" in " ".join(msgs[0]["view"].get("legal") or
                                     msgs[1]["view"].get("legal") or []):
                seat = msgs[0]["view"]["current_player"]
                hide = msgs[seat]["view"]["legal"][0]
                await socks[seat].send(json.dumps({"type": "action", "action": hide,
                                                   "seq": msgs[seat]["seq"]}))
                msgs = {s: await recv_until(ws, lambda m: m["type"] == "update")
                        for s, ws in socks.items()}
            assert msgs[0]["view"]["phase"] == "auction"
            last = 1 - msgs[0]["view"]["current_player"]
            await socks[last].send(json.dumps({"type": "undo", "seq": msgs[0]["seq"]}))
            got.append(await recv_until(socks[last], lambda m: m["type"] == "error"))
            seat = msgs[0]["view"]["current_player"]
            seq = msgs[0]["seq"]
            await socks[seat].send(json.dumps({"type": "action", "action": "bid 3",
                                               "seq": seq}))
            bid = await recv_until(socks[seat], lambda m: m["type"] == "update")
            assert bid["view"]["auction"]["high_bid"] == 3 and bid["view"]["take_back"] == seat
            await socks[seat].send(json.dumps({"type": "undo", "seq": seq + 1}))
            got.append(await recv_until(socks[seat], lambda m: m["type"] == "update"
                                        and m["seq"] == seq))
        finally:
            for ws in socks.values():
                await ws.close()
        return got

    refused, undone = asyncio.run(run())
    assert refused["code"] == "cannot-undo"
    assert undone["view"]["auction"]["high_bid"] == 0


def test_web_lobby_offers_every_game_the_server_creates() -> None:
    listed = set(re.findall(r'\{ id: "([a-z-]+)"', LOBBY_JS.read_text()))
    assert listed == set(elfenland.GAMES)


def _small_bids(view: JSON) -> str:
    """A legal action, with bids kept small (random bids up to 500 make long games)."""
    legal = [a for a in view["legal"] if not a.startswith("bid ") or int(a.split()[1]) <= 4]
    return str(legal[random.Random(view["seq"]).randrange(len(legal))])


def test_a_turn_based_game_between_two_players_is_rated(server: BackgroundServer) -> None:
    base = server.url
    ann = post(base, "/api/players", {"name": "Ann"}).json()
    cy = post(base, "/api/players", {"name": "Cy"}).json()
    made = create(base, game="elfengold", players=3, player=ann["token"],
                  options={"rounds": 6, "witch": True}, tempo={"kind": "turn"},
                  seats=[{"kind": "human"}, {"kind": "open"},
                         {"kind": "bot", "level": "greedy"}])
    assert not made["game"]["unrated"]
    gid = made["game"]["id"]
    joined = post(base, f"/api/games/{gid}/join", {"player": cy["token"]}).json()
    assert post(base, f"/api/games/{gid}/start", {"token": made["token"]}).is_success

    async def both() -> list[JSON]:
        a, _ = await asyncio.gather(
            play_seat(server.ws_url, gid, made["token"], 0, chooser=_small_bids),
            play_seat(server.ws_url, gid, joined["token"], 1, chooser=_small_bids))
        return a

    got = asyncio.run(both())
    # The turn-based clock ran with the game: every update told whose turn it is until when.
    clocks = [m["clock"] for m in got if m["type"] == "update" and m.get("clock")]
    assert clocks and all(c["tempo"] == "turn" for c in clocks)
    assert any(c["deadline"] is not None for c in clocks)
    deadline = time.monotonic() + 60
    while True:
        ratings = HTTP.get(f"{base}/api/ratings", params={"game": "elfengold"}).json()
        if ratings["ratings"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    rated = {r["name"] for r in ratings["ratings"]}
    assert {"Ann", "Cy"} <= rated, ratings
    # Elfengold's ratings are its own: Elfenland's list did not move.
    assert HTTP.get(f"{base}/api/ratings").json()["ratings"] == []


def test_every_games_option_specification_is_served(server: BackgroundServer) -> None:
    for game in elfenland.GAMES:
        r = HTTP.get(f"{server.url}/api/options/{game}")
        assert r.status_code == 200, r.text
        assert r.json() == elfenland.option_spec(game).to_json()
    spec = HTTP.get(f"{server.url}/api/options/elfengold").json()
    assert "witch" in spec["variants"] and {o["name"] for o in spec["options"]} >= {
        "eg_overbid", "eg_hand_limit", "rounds"}
    r = HTTP.get(f"{server.url}/api/options/chess")
    assert r.status_code == 404 and r.json()["code"] == "not-found"
