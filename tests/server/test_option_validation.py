"""Issue #22: a new game's options are checked against the game's declared option
specification before anything is built: a clear 422 ``bad-option`` naming the option and
its range, ``rules`` must name a rule set, and a game whose options leave its rule set
(variants aside) is marked unrated ("custom") and never rated."""

from __future__ import annotations

import time
from typing import Any

import pytest

from elfenland.server.background import BackgroundServer

from .conftest import ServerFactory
from .helpers import HTTP, create, post

REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"options": {"rounds": 2**32 + 1}}, "rounds must be an integer from 1 to 1000"),
    ({"options": {"counter_draws": 2**63}}, "counter_draws"),
    ({"options": {"caravan_cards": 2}}, "caravan_cards must be an integer from 3 to 3"),
    ({"options": {"boatmen": "no"}}, "boatmen must be true or false"),
    ({"options": {"destination": 1}}, "destination must be true or false"),
    ({"options": {"name": "moon"}}, "'name' is not an option"),
    ({"options": {"colour": "red"}}, "unknown option 'colour'"),
    ({"rules": "house"}, "amigo, moon"),
    ({"game": "king-of-the-elves", "options": {"land_transport_cards": 2**32 + 9}},
     "land_transport_cards must be an integer from 0 to 1000"),
    ({"game": "king-of-the-elves", "options": {"starting_gold": 2**31}}, "starting_gold"),
    ({"game": "king-of-the-elves", "rules": "amigo"}, "standard"),
]


@pytest.mark.parametrize(("body", "says"), REFUSED, ids=[str(b) for b, _ in REFUSED])
def test_options_outside_the_spec_are_a_422_naming_them(server: BackgroundServer,
                                                        body: dict[str, Any],
                                                        says: str) -> None:
    r = post(server.url, "/api/games", {"players": 2, **body})
    assert r.status_code == 422, r.text
    error = r.json()
    assert error["code"] == "bad-option" and says in error["message"], error


def test_standard_rule_sets_and_variants_stay_rated(server: BackgroundServer) -> None:
    base = server.url
    for body in ({}, {"rules": "moon"}, {"options": {"destination": True}},
                 {"rules": "moon", "options": {"final_keep": True}},
                 {"game": "king-of-the-elves", "options": {"magic_spell": True}}):
        summary = create(base, players=2, name="Ann", **body)["game"]
        assert summary["custom_rules"] is False and summary["unrated"] is False, body


def test_custom_options_make_a_playable_unrated_game(server: BackgroundServer) -> None:
    base = server.url
    for body in ({"options": {"rounds": 2}}, {"rules": "moon", "options": {"boatmen": False}},
                 {"game": "king-of-the-elves", "options": {"starting_gold": 20}}):
        made = create(base, players=2, name="Ann", **body)
        summary = made["game"]
        assert summary["custom_rules"] is True and summary["unrated"] is True, body
        assert summary["seed_chosen"] is False and "seed" not in summary
        listed = post(base, f"/api/games/{summary['id']}/start", {"token": made["token"]})
        assert listed.is_success and listed.json()["unrated"] is True


def test_a_custom_game_is_never_rated(make_server: ServerFactory) -> None:
    server = make_server()
    base = server.url
    made = create(base, players=2, options={"rounds": 1},
                  seats=[{"kind": "bot", "level": "random"}] * 2)
    gid = made["game"]["id"]
    assert made["game"]["unrated"] is True
    assert post(base, f"/api/games/{gid}/start", {}).is_success
    deadline = time.monotonic() + 60
    while HTTP.get(f"{base}/api/games/{gid}").json()["game"]["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.1)
    time.sleep(0.3)
    assert HTTP.get(f"{base}/api/games/{gid}/events").json()["events"] == []
    assert HTTP.get(f"{base}/api/ratings", params={"game": "elfenland"}
                    ).json()["ratings"] == []
