"""Hotseat in the browser: two named players share one page, the table starts at once
(nobody to wait for), a cover hides the table while the device changes hands, and the
game is played to its end."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page

from .helpers import is_over, more_options, my_turn, page_state, start_game, take_turn

pytestmark = pytest.mark.browser


def test_a_hotseat_game_to_the_end(page: Page, server: str) -> None:
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready='1']")
    page.fill("input[name=name]", "Ann")
    page.select_option("select[name=game]", "king-of-the-elves")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=kind-0]", "human")
    page.select_option("select[name=kind-1]", "open")
    more_options(page)
    page.check("input[name=hotseat]")
    # Every local seat gets a name.
    page.fill("input[name=seatname-1]", "Bea")
    page.click("#create-btn")
    # No open seat: no share link, no bots to add, no Start; the table starts at once.
    page.wait_for_selector(".game .panel")
    assert page.locator("#share-link, #start-btn, #fill-level").count() == 0
    start_game(page)
    gid = page.url.rsplit("/", 1)[-1]
    saved = page.evaluate(f"JSON.parse(localStorage.getItem('elfenland.hotseat'))['{gid}']")
    assert [s["seat"] for s in saved] == [0, 1]
    rng = random.Random(11)
    seats_played = set()
    switches = 0
    for _ in range(800):
        if is_over(page):
            break
        if page.locator("#hotseat-go").count():
            # The table is covered while the device changes hands.
            assert page.locator(".hotseat-cover").is_visible()
            page.click("#hotseat-go")
            switches += 1
            page.wait_for_selector("#turn.mine, .final")
            continue
        if my_turn(page):
            seats_played.add(page.evaluate("window.__elfenland.page.seat"))
            take_turn(page, rng)
        else:
            page.wait_for_timeout(30)
    assert is_over(page), f"the game did not end: {page_state(page)}"
    assert seats_played == {0, 1} and switches > 2
    names = page.eval_on_selector_all(".final tbody tr td:nth-child(2)",
                                      "els => els.map(e => e.textContent.trim())")
    assert any("Ann" in n for n in names) and any("Bea" in n for n in names)
