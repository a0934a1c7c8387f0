"""The game in view at a desk: a discard says how many cards are left to pick and asks
once for all of them; the log keeps its share of the side column; a round's summary
closes itself when the next round begins; a table with bots starts at a readable pace,
which the player may change and which is remembered for their next tables."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page

from .helpers import (
    confirm_if_asked,
    create_game,
    my_turn,
    phase_key,
    start_game,
    take_turn,
    wait_for_news,
    wait_turn_or_end,
)

pytestmark = pytest.mark.browser

DESK = {"width": 1280, "height": 800}


def _until_my_move(page: Page, rng: random.Random) -> None:
    """Play (placing or passing) until it is this player's move phase."""
    for _ in range(200):
        if my_turn(page) and phase_key(page) == "move":
            return
        if my_turn(page):
            take_turn(page, rng, prefer=("pass",))
        else:
            wait_for_news((page,))
    raise AssertionError("never reached the move phase")


def test_discard_counts_down_and_asks_once(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport=DESK, locale="en-GB")
    try:
        page = ctx.new_page()
        create_game(page, server, players=2, bots=1, level="random", seed=5)
        start_game(page)
        rng = random.Random(5)
        _until_my_move(page, rng)
        hand = page.evaluate("window.__elfenland.page.view.players["
                             "window.__elfenland.page.view.viewer].hand.length")
        assert hand > 4, "the deal leaves more than 4 cards to end the move with"
        page.click("[data-action='end']")
        confirm_if_asked(page)
        page.wait_for_selector("#discard-need")
        need = hand - 4
        label = page.locator("#discard-need")
        assert label.inner_text() == (f"Discard {need} more cards: pick them" if need > 1
                                      else "Discard 1 more card: pick it")
        asked = []
        for i in range(need):
            page.locator(f"[data-dpick='{i}']").click()
            left = need - i - 1
            if left > 1:
                assert label.inner_text() == f"Discard {left} more cards: pick them"
            elif left == 1:
                assert label.inner_text() == "Discard 1 more card: pick it"
        assert label.inner_text() == "Cards picked to discard"
        # No more than asked can be picked.
        assert page.locator("[data-dpick]:not([disabled])").count() == need
        page.click("#discard-go")
        # One question for all of them.
        page.wait_for_selector(".confirm #confirm-ok")
        asked.append(page.locator("#confirm-text").inner_text())
        page.click(".confirm #confirm-ok")
        page.wait_for_function("""() => { const v = window.__elfenland.page.view;
            return !v.discarding && v.players[v.viewer].hand.length === 4; }""")
        assert page.locator(".confirm").count() == 0
        assert len(asked) == 1 and (f"{need} cards" in asked[0] or need == 1), asked
        log = page.evaluate("window.__elfenland.page.log.filter(e => e.player === "
                            "window.__elfenland.page.seat && e.action.startsWith('discard'))"
                            ".length")
        assert log == need
    finally:
        ctx.close()


def test_the_log_keeps_its_share_and_a_readable_pace(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport=DESK, locale="en-GB")
    try:
        page = ctx.new_page()
        # A first visit: nothing chosen yet, so the page's own default pace.
        page.goto(f"{server}/")
        page.evaluate("localStorage.setItem('elfenland.pace', 'default')")
        create_game(page, server, players=4, bots=3, level="random")
        start_game(page)
        wait_turn_or_end(page)
        take_turn(page, random.Random(2))
        page.wait_for_selector("#log li")
        side = page.locator(".side").bounding_box()
        log = page.locator("#log").bounding_box()
        assert side and log
        # The log is on the first screen and holds at least a quarter of the column.
        assert log["y"] + log["height"] <= DESK["height"]
        assert log["height"] >= 0.25 * side["height"], (log, side)
        assert page.locator("#log li").first.is_visible()
        # The others' moves come at the readable pace; changing it is remembered for the
        # player's next tables.
        page.locator("#prefs summary").click()
        assert page.locator("#pace-pref").input_value() == "slow"
        page.select_option("#pace-pref", "slower")
        create_game(page, server, players=2, bots=1, level="random")
        start_game(page)
        page.locator("#prefs summary").click()
        assert page.locator("#pace-pref").input_value() == "slower"
    finally:
        ctx.close()
