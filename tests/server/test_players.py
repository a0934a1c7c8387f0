"""Players kept across games: a device token, a "your turn" webhook called once per
turn (a real HTTP server on loopback receives it), their games, and OpenSkill ratings
for players and bots."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from elfenland.server.config import Guard
from elfenland.server.players import ranks

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, play_seat, post, wait_until


class Hooks(BaseHTTPRequestHandler):
    got: ClassVar[list[JSON]] = []

    def do_POST(self) -> None:
        size = int(self.headers["Content-Length"])
        Hooks.got.append(json.loads(self.rfile.read(size)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hook_url() -> Iterator[str]:
    Hooks.got = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hooks)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/hook"
    httpd.shutdown()
    httpd.server_close()


def test_a_turn_notice_links_to_the_game_at_the_public_url(make_server: ServerFactory,
                                                           hook_url: str) -> None:
    """With ``--public-url`` the notice's link is whole: a receiver that forwards it (a
    chat message, a mail) need not know where the server is."""
    server = make_server(guard=Guard(webhook_allow=("127.0.0.1/32",)),
                         public_url="https://elfenland.example.org/play")
    ann = post(server.url, "/api/players", {"name": "Ann", "webhook": hook_url}).json()
    made = create(server.url, players=2, player=ann["token"],
                  seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}])
    gid = made["game"]["id"]
    Hooks.got.clear()
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    wait_until(lambda: bool(Hooks.got), "no turn notice came")
    assert Hooks.got[0]["url"] == f"https://elfenland.example.org/play/#/game/{gid}"


def test_ranks() -> None:
    assert ranks([10, 12, 12, 3], [1, 2]) == [2, 1, 1, 3]
    assert ranks([5, 5], [0]) == [1, 2]  # a tie broken by the rules


def test_webhook_once_per_turn_and_ratings(make_server: ServerFactory, hook_url: str) -> None:
    # The listener is on loopback, which only an operator's allow-list opens (issue 23).
    server = make_server(guard=Guard(webhook_allow=("127.0.0.1/32",)))
    r = post(server.url, "/api/players", {"name": "Ann", "webhook": hook_url})
    assert r.status_code == 201
    ann = r.json()
    assert ann["player"]["name"] == "Ann" and ann["player"]["webhook"] == hook_url
    me = HTTP.get(f"{server.url}/api/players/me", params={"token": ann["token"]}).json()
    assert me["id"] == ann["player"]["id"]
    cy = post(server.url, "/api/players", {"name": "Cy"}).json()
    made = create(server.url, players=3, player=ann["token"],
                  seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "random"}])
    gid = made["game"]["id"]
    assert made["game"]["seats"][0]["name"] == "Ann"  # the player's name
    cy_seat = post(server.url, f"/api/games/{gid}/join", {"player": cy["token"]}).json()
    mine = HTTP.get(f"{server.url}/api/players/me/games", params={"token": ann["token"]})
    assert [(g["id"], g["seat"], g["waiting"]) for g in mine.json()["games"]] == [
        (gid, 0, False)]
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success

    async def both() -> list[JSON]:
        mine, _ = await asyncio.gather(
            play_seat(server.ws_url, gid, made["token"], 0),
            play_seat(server.ws_url, gid, cy_seat["token"], 1))
        return mine

    got = asyncio.run(both())
    updates = [m for m in got if m["type"] == "update"]
    turns = [m["seq"] for i, m in enumerate(updates) if m["view"]["current_player"] == 0
             and (i == 0 or updates[i - 1]["view"]["current_player"] != 0)]
    assert len(turns) > 3
    # A notice still waiting when Ann's next turn begins is replaced by that turn's
    # (webhooks.py: one per game waits; its turn passed).  So every turn is either
    # notified once or counted as replaced, and the last one is always notified.
    sender = server.app.state.hub.players.webhooks
    deadline = time.monotonic() + 60  # a hang guard: the loop ends when all came
    while len(Hooks.got) + sender.replaced < len(turns) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # and no more come
    notified = [h["seq"] for h in Hooks.got]
    assert len(notified) == len(set(notified)) and set(notified) <= set(turns)
    assert turns[-1] in notified
    assert len(notified) + sender.replaced == len(turns)
    assert {(h["type"], h["game"], h["seat"], h["player"]) for h in Hooks.got} == {
        ("your-turn", gid, 0, ann["player"]["id"])}
    # The game is rated (two humans): Ann, Cy and the random bot.  The rating is stored
    # after the last move is shown.
    wait_until(lambda: HTTP.get(f"{server.url}/api/ratings", params={"game": "elfenland"})
               .json()["ratings"] != [], "the game was never rated")
    board = HTTP.get(f"{server.url}/api/ratings", params={"game": "elfenland"}).json()
    rated = {r["player"]: r for r in board["ratings"]}
    assert set(rated) == {ann["player"]["id"], cy["player"]["id"], "bot:random"}
    assert all(r["games"] == 1 for r in rated.values())
    winners = updates[-1]["view"]["winners"]
    mu = rated[ann["player"]["id"]]["mu"]
    # The deal is drawn (a chosen seed would leave the game unrated): a win moves Ann up,
    # a place behind both others moves her down.
    if winners == [0]:
        assert mu > 25
    scores = updates[-1]["view"].get("scores")
    if 0 not in winners and scores is not None and scores[0] < min(scores[1:]):
        assert mu < 25
    assert [r["rating"] for r in board["ratings"]] == sorted(
        (r["rating"] for r in board["ratings"]), reverse=True)
    events = HTTP.get(f"{server.url}/api/games/{gid}/events").json()["events"]
    assert [e["kind"] for e in events] == ["rated"]
    assert HTTP.get(f"{server.url}/api/players/me/games",
                    params={"token": ann["token"]}).json()["games"] == []


def _bots_game_to_the_end(base: str, **options: Any) -> str:
    made = create(base, players=3, **options,
                  seats=[{"kind": "bot", "level": "random"}, {"kind": "bot", "level": "greedy"},
                         {"kind": "bot", "level": "random"}])
    gid = str(made["game"]["id"])
    assert post(base, f"/api/games/{gid}/start", {}).is_success
    deadline = time.monotonic() + 60
    while HTTP.get(f"{base}/api/games/{gid}").json()["game"]["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(0.3)
    return gid


def test_bot_games_are_unrated_and_players_are_checked(make_server: ServerFactory) -> None:
    server = make_server(guard=Guard(webhook_allow=("localhost",)))
    # A chosen seed predicts every hand: the game is unrated (#12), nobody's rating moves.
    seeded = _bots_game_to_the_end(server.url, seed=2)
    assert HTTP.get(f"{server.url}/api/ratings", params={"game": "elfenland"}
                    ).json()["ratings"] == []
    assert HTTP.get(f"{server.url}/api/games/{seeded}/events").json()["events"] == []
    # Bots are rated only beside two humans (ratings.py): a game of bots alone moves
    # nothing either.
    drawn = _bots_game_to_the_end(server.url)
    assert HTTP.get(f"{server.url}/api/ratings", params={"game": "elfenland"}
                    ).json()["ratings"] == []
    assert HTTP.get(f"{server.url}/api/games/{drawn}/events").json()["events"] == []
    # Refusals.
    assert HTTP.get(f"{server.url}/api/players/me", params={"token": "x"}).status_code == 403
    assert post(server.url, "/api/players", {"name": "Bo", "webhook": "ftp://x"}
                ).status_code == 400
    assert post(server.url, "/api/players", {"name": ""}).status_code == 400
    r = post(server.url, "/api/games", {"player": "nobody"})
    assert r.status_code == 403 and r.json()["code"] == "bad-token"
    bo = post(server.url, "/api/players", {"name": "Bo"}).json()
    changed = post(server.url, "/api/players/me", {"token": bo["token"], "name": "Bob",
                                                   "webhook": "http://localhost:9/h"})
    assert changed.json()["name"] == "Bob" and changed.json()["webhook"] == "http://localhost:9/h"
    cleared = post(server.url, "/api/players/me", {"token": bo["token"], "webhook": ""})
    assert cleared.json()["webhook"] is None
