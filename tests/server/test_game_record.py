"""A finished game's record (``GET /api/games/{id}/record``): the engine's own saved
game, which ``deserialize`` loads back to the same end; refused before the end, when
its seed would give away every hidden card.  The final scores' download link gave the
last public view, which nothing could load or replay."""

from __future__ import annotations

import time

import pytest

from elfenland.games.registry import deserialize

from .conftest import ServerFactory
from .helpers import HTTP, create, post


def _bot_game(base: str, game: str, seed: int) -> str:
    r = HTTP.post(f"{base}/api/games", json={
        "game": game, "players": 2, "seed": seed,
        "seats": [{"kind": "bot", "level": "random"}] * 2})
    assert r.status_code == 201, r.text
    gid = str(r.json()["game"]["id"])
    assert post(base, f"/api/games/{gid}/start", {}).status_code == 200
    deadline = time.monotonic() + 120
    while HTTP.get(f"{base}/api/games/{gid}").json()["game"]["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.1)
    return gid


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves", "elfengold"])
def test_a_finished_games_record_loads_back_to_the_same_end(
        make_server: ServerFactory, game: str) -> None:
    server = make_server()
    gid = _bot_game(server.url, game, seed=31)
    r = HTTP.get(f"{server.url}/api/games/{gid}/record")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == f'attachment; filename="{game}-{gid}.json"'
    state = deserialize(r.text)
    assert state.is_terminal()
    shown = HTTP.get(f"{server.url}/api/games/{gid}").json()["view"]
    mine = state.view(None)
    assert (mine["scores"], mine["winners"]) == (shown["scores"], shown["winners"])
    steps = HTTP.get(f"{server.url}/api/games/{gid}/replay").json()["steps"]
    assert state.history_length() == steps


def test_no_record_before_the_end(make_server: ServerFactory) -> None:
    server = make_server()
    made = create(server.url, players=2, seats=[{"kind": "human"}, {"kind": "bot",
                                                                     "level": "random"}])
    gid = made["game"]["id"]
    r = HTTP.get(f"{server.url}/api/games/{gid}/record")
    assert r.status_code == 409 and r.json()["code"] == "not-over"
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    r = HTTP.get(f"{server.url}/api/games/{gid}/record")
    assert r.status_code == 409 and r.json()["code"] == "not-over"
    assert "\"seed\"" not in r.text
    assert HTTP.get(f"{server.url}/api/games/nosuchgame/record").status_code == 404
