"""Elfengold is played by the engine and the bots, but the browser client cannot draw it
yet: the server refuses to create it, and the web lobby does not offer it."""

from __future__ import annotations

import re
from pathlib import Path

import elfenland
from elfenland.server.background import BackgroundServer
from elfenland.server.lobby import NOT_IN_BROWSER

from .helpers import HTTP, post

LOBBY_JS = Path(elfenland.__file__).parent / "web" / "static" / "js" / "lobby.js"


def test_create_elfengold_is_refused_and_creates_nothing(server: BackgroundServer) -> None:
    base = server.url
    before = HTTP.get(f"{base}/api/games").json()["games"]
    r = post(base, "/api/games", {"game": "elfengold", "players": 4})
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["code"] == "bad-request"
    assert body["message"] == "Elfengold is not playable in the browser yet"
    assert HTTP.get(f"{base}/api/games").json()["games"] == before


def test_the_other_games_are_still_created(server: BackgroundServer) -> None:
    for game in sorted(set(elfenland.GAMES) - set(NOT_IN_BROWSER)):
        r = post(server.url, "/api/games", {"game": game, "players": 2})
        assert r.status_code == 201, r.text


def test_web_lobby_lists_only_games_the_server_creates() -> None:
    listed = set(re.findall(r'\{ id: "([a-z-]+)"', LOBBY_JS.read_text()))
    assert listed, "the lobby's game list was not found"
    assert "elfengold" not in listed
    assert listed <= set(elfenland.GAMES) - set(NOT_IN_BROWSER)
