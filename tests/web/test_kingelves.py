"""King of the Elves in Chromium: a person plays a whole game against bots by clicking."""

from __future__ import annotations

import random

import httpx
import pytest
from playwright.sync_api import Page

from .helpers import (
    SCREENSHOTS,
    create_game,
    log_sentences,
    play_to_end,
    raw_log_lines,
    start_game,
    table_changes,
    watch_table,
)

pytestmark = pytest.mark.browser
SEED = 7


def test_king_of_the_elves_against_three_bots_to_the_final_gold(page: Page, server: str) -> None:
    # A chosen deal (the game is then unrated): with a drawn one, now and then the
    # cards never allowed this player a visit.
    gid = create_game(page, server, game="king-of-the-elves", players=4, bots=3, seed=SEED)
    assert httpx.get(f"{server}/api/games/{gid}").json()["game"]["seed"] == SEED
    start_game(page)
    assert page.locator(".kingdom").count() == 4
    watch_table(page)
    shots = {"building": "king-of-the-elves-1-building.png",
             "journey": "king-of-the-elves-2-journey.png"}
    # This player keeps cards for the journey (passing while building) and travels whenever
    # they allow: the beginner bots seldom do.
    actions = play_to_end(page, random.Random(5), shots, max_turns=900,
                          prefer=("visit ", "pass"))
    assert any(a.startswith("play ") for a in actions)
    assert any(a.startswith("visit ") for a in actions)
    assert "journey" not in shots, "never saw my own journey"
    assert page.locator(".scores tbody tr").count() == 4
    assert page.locator(".scores tr.win").count() >= 1
    page.screenshot(path=str(SCREENSHOTS / "king-of-the-elves-3-final.png"))
    # The others' towns played, cards laid and journey steps were each highlighted.
    changes = table_changes(page)
    assert changes["fresh"] > 10 and changes["arrive"] > 0 and changes["gain"] > 0, changes
    # The log reads as sentences.
    assert not raw_log_lines(page)
    log = "\n".join(log_sentences(page))
    assert " visited " in log and " played " in log and " ended the journey" in log
