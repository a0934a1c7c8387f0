"""The game's seed predicts every hand and secret counter (issue #12): the server draws
it from ``secrets`` and shows it only once the game is over; a creator may choose one,
and then the game is unrated and everyone sees the seed in the lobby.  Also the options
the server gives new games (no keep step after Elfenland's last round)."""

from __future__ import annotations

import time

import elfenland
from elfenland.server.background import BackgroundServer
from elfenland.server.store import open_store

from .helpers import HTTP, create, post


def stored_seed(db_url: str, game_id: str) -> int:
    store = open_store(db_url)
    try:
        record = store.load_game(game_id)
        assert record is not None
        return record.seed
    finally:
        store.close()


def public_texts(base: str, gid: str) -> list[str]:
    """Everything a stranger can read about the game."""
    return [HTTP.get(f"{base}/api/games").text, HTTP.get(f"{base}/api/games/{gid}").text,
            HTTP.get(f"{base}/api/games/{gid}/replay").text,
            HTTP.get(f"{base}/api/games/{gid}/actions").text]


def test_a_drawn_seed_is_secret_until_the_game_is_over(server: BackgroundServer,
                                                       db_url: str) -> None:
    base = server.url
    games = [create(base, game="king-of-the-elves", players=2, name="Ann",
                    seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}])
             for _ in range(2)]
    seeds = [stored_seed(db_url, g["game"]["id"]) for g in games]
    assert seeds[0] != seeds[1] and all(s > 2**20 for s in seeds)
    gid = games[0]["game"]["id"]
    summary = games[0]["game"]
    assert summary["seed_chosen"] is False and summary["unrated"] is False
    assert "seed" not in summary
    assert all(str(seeds[0]) not in text for text in public_texts(base, gid))


def test_a_finished_game_shows_its_drawn_seed(server: BackgroundServer, db_url: str) -> None:
    base = server.url
    made = create(base, game="king-of-the-elves", players=2,
                  seats=[{"kind": "bot", "level": "random"}] * 2)
    gid = made["game"]["id"]
    assert post(base, f"/api/games/{gid}/start", {}).is_success
    deadline = time.monotonic() + 120
    while (game := HTTP.get(f"{base}/api/games/{gid}").json()["game"])["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.2)
    assert game["seed"] == stored_seed(db_url, gid) and game["seed_chosen"] is False


def test_a_chosen_seed_marks_the_game_unrated_and_is_shown_to_everyone(
        server: BackgroundServer) -> None:
    base = server.url
    made = create(base, players=3, seed=7, name="Ann")
    summary = made["game"]
    assert summary["seed_chosen"] is True and summary["unrated"] is True
    assert summary["seed"] == 7
    listed = {g["id"]: g for g in HTTP.get(f"{base}/api/games").json()["games"]}
    assert listed[summary["id"]]["seed"] == 7 and listed[summary["id"]]["unrated"] is True
    # The server's own key never reaches the options or the engine.
    assert "seed_chosen" not in summary["options"]
    view = HTTP.get(f"{base}/api/games/{summary['id']}").json()["view"]
    expected = elfenland.new_game(players=3, seed=7, **summary["options"]).view(None)
    assert view["players"] == expected["players"]


def test_the_servers_own_key_is_not_an_option(server: BackgroundServer) -> None:
    r = post(server.url, "/api/games", {"players": 2, "options": {"seed_chosen": False}})
    assert r.status_code == 400 and "seed_chosen" in r.text


def test_new_elfenland_games_skip_the_keep_step_after_the_last_round(
        server: BackgroundServer) -> None:
    base = server.url
    default = create(base, players=2, name="Ann")["game"]
    assert default["options"]["final_keep"] is False
    view = HTTP.get(f"{base}/api/games/{default['id']}").json()["view"]
    assert view["options"]["final_keep"] is False
    asked = create(base, players=2, name="Ann", options={"final_keep": True})["game"]
    assert asked["options"]["final_keep"] is True
    assert HTTP.get(f"{base}/api/games/{asked['id']}").json()["view"]["options"]["final_keep"]
    king = create(base, game="king-of-the-elves", players=2, name="Ann")["game"]
    assert "final_keep" not in king["options"]
