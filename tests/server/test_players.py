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

from elfenland.server.players import ranks

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, play_seat, post


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


def test_ranks() -> None:
    assert ranks([10, 12, 12, 3], [1, 2]) == [2, 1, 1, 3]
    assert ranks([5, 5], [0]) == [1, 2]  # a tie broken by the rules


def test_webhook_once_per_turn_and_ratings(make_server: ServerFactory, hook_url: str) -> None:
    server = make_server()
    r = post(server.url, "/api/players", {"name": "Ann", "webhook": hook_url})
    assert r.status_code == 201
    ann = r.json()
    assert ann["player"]["name"] == "Ann" and ann["player"]["webhook"] == hook_url
    me = HTTP.get(f"{server.url}/api/players/me", params={"token": ann["token"]}).json()
    assert me["id"] == ann["player"]["id"]
    made = create(server.url, players=2, player=ann["token"],
                  seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}])
    gid = made["game"]["id"]
    assert made["game"]["seats"][0]["name"] == "Ann"  # the player's name
    mine = HTTP.get(f"{server.url}/api/players/me/games", params={"token": ann["token"]})
    assert [(g["id"], g["seat"], g["waiting"]) for g in mine.json()["games"]] == [
        (gid, 0, False)]
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    got = asyncio.run(play_seat(server.ws_url, gid, made["token"], 0))
    updates = [m for m in got if m["type"] == "update"]
    turns = [m["seq"] for i, m in enumerate(updates) if m["view"]["current_player"] == 0
             and (i == 0 or updates[i - 1]["view"]["current_player"] != 0)]
    assert len(turns) > 3
    deadline = time.monotonic() + 10
    while len(Hooks.got) < len(turns) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # and no more come
    assert sorted(h["seq"] for h in Hooks.got) == sorted(turns)
    assert {(h["type"], h["game"], h["seat"], h["player"]) for h in Hooks.got} == {
        ("your-turn", gid, 0, ann["player"]["id"])}
    # The game is rated: Ann and the random bot.
    board = HTTP.get(f"{server.url}/api/ratings", params={"game": "elfenland"}).json()
    rated = {r["player"]: r for r in board["ratings"]}
    assert set(rated) == {ann["player"]["id"], "bot:random"}
    assert all(r["games"] == 1 for r in rated.values())
    winners = updates[-1]["view"]["winners"]
    mu = rated[ann["player"]["id"]]["mu"]
    # The deal is drawn (a chosen seed would leave the game unrated): a win, a loss or a
    # tie, which leaves two equally rated players where they were.
    if winners == [0]:
        assert mu > 25
    elif 0 not in winners:
        assert mu < 25
    else:
        assert abs(mu - 25) < 0.5
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


def test_bots_are_rated_and_players_are_checked(make_server: ServerFactory) -> None:
    server = make_server()
    # A chosen seed predicts every hand: the game is unrated (#12), nobody's rating moves.
    seeded = _bots_game_to_the_end(server.url, seed=2)
    assert HTTP.get(f"{server.url}/api/ratings", params={"game": "elfenland"}
                    ).json()["ratings"] == []
    assert HTTP.get(f"{server.url}/api/games/{seeded}/events").json()["events"] == []
    _bots_game_to_the_end(server.url)
    board = HTTP.get(f"{server.url}/api/ratings", params={"game": "elfenland"}).json()
    rated = {r["player"]: r for r in board["ratings"]}
    assert set(rated) == {"bot:random", "bot:greedy"}
    assert rated["bot:random"]["games"] == 1 and rated["bot:random"]["bot"]
    assert rated["bot:greedy"]["name"] == "Greedy bot"
    # Refusals.
    assert HTTP.get(f"{server.url}/api/players/me", params={"token": "x"}).status_code == 403
    assert post(server.url, "/api/players", {"name": "Bo", "webhook": "ftp://x"}
                ).status_code == 400
    assert post(server.url, "/api/players", {"name": ""}).status_code == 400
    r = post(server.url, "/api/games", {"player": "nobody"})
    assert r.status_code == 403 and r.json()["code"] == "bad-token"
    bo = post(server.url, "/api/players", {"name": "Bo"}).json()
    changed = post(server.url, "/api/players/me", {"token": bo["token"], "name": "Bob",
                                                   "webhook": "https://example.org/h"})
    assert changed.json()["name"] == "Bob" and changed.json()["webhook"] == "https://example.org/h"
    cleared = post(server.url, "/api/players/me", {"token": bo["token"], "webhook": ""})
    assert cleared.json()["webhook"] is None
