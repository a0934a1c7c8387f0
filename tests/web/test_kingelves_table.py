"""King of the Elves at the table: the hand grouped by kind with names and counts, the
payments labelled in words, the journey's order drawn on the towns, a real end screen
(the kingdoms as they ended, no bank or price noise) and one colour per seat."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page

from .helpers import create_game, is_over, my_turn, start_game, take_turn, wait_turn_or_end

pytestmark = pytest.mark.browser

DESK = {"width": 1280, "height": 800}
VIEW = "window.__elfenland.page.view"


def _check_hand(page: Page) -> None:
    hand = page.evaluate(f"{VIEW}.players[{VIEW}.viewer].hand")
    groups = page.locator(".hand-groups li[data-kind]")
    kinds = [groups.nth(i).get_attribute("data-kind") for i in range(groups.count())]
    assert sorted(kinds) == sorted(set(hand))
    total = 0
    for i in range(groups.count()):
        g = groups.nth(i)
        name = g.locator(".gname").inner_text()
        count = int(g.locator(".gcount").inner_text().lstrip("×"))
        assert name and count == hand.count(kinds[i]), (name, count)
        total += count
    assert total == len(hand)


def _check_journey(page: Page) -> bool:
    """On the player's journey turn: words on every payment, the order on the towns."""
    j = page.evaluate(f"{VIEW}.journey")
    combos = page.locator(".opt.combo")
    if not j or not j["next"] or not combos.count():
        return False
    for i in range(combos.count()):
        assert "×" in combos.nth(i).locator(".combo-text").inner_text()
    towns = page.locator(".ktown").count()
    steps = page.locator(".jstep")
    assert steps.count() == towns
    assert page.locator(f".ktown[data-ref='{j['next']}'] .jstep [aria-hidden]").inner_text() == "1"
    return True


@pytest.mark.parametrize("seed", [4])
def test_the_king_of_the_elves_table(browser: Browser, server: str, seed: int) -> None:
    ctx = browser.new_context(viewport=DESK, locale="en-GB")
    try:
        page = ctx.new_page()
        page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
        create_game(page, server, game="king-of-the-elves", players=2, bots=1,
                    level="random", seed=seed)
        start_game(page)
        rng = random.Random(seed)
        hands = journeys = 0
        for _ in range(900):
            wait_turn_or_end(page)
            if is_over(page):
                break
            if my_turn(page):
                if hands < 3:
                    _check_hand(page)
                    hands += 1
                if journeys < 3 and _check_journey(page):
                    journeys += 1
            take_turn(page, rng)
        assert is_over(page) and hands and journeys
        page.wait_for_selector(".final")
        page.keyboard.press("Escape")
        table = page.locator(".koe-table").inner_text()
        assert "Bank" not in table
        assert "No town yet" not in table
        assert page.locator(".koe-end").inner_text() == "The kingdoms as the last round ended"
        assert page.locator(".kingdom .ktown").count() > 0
        assert "Next card costs" not in page.locator("#controls").inner_text()
        # One colour per seat: the final table's swatch is the panel's colour.
        page.evaluate("window.__elfenland.page.showFinal()")
        for seat in (0, 1):
            swatch = page.evaluate(
                f"getComputedStyle(document.querySelector('[data-final-seat=\"{seat}\"] "
                ".swatch')).backgroundColor")
            panel = page.evaluate(
                f"getComputedStyle(document.querySelector('.panel[data-seat=\"{seat}\"]'))"
                ".borderLeftColor")
            kingdom = page.evaluate(
                f"getComputedStyle(document.querySelector('.kingdom[data-kingdom=\"{seat}\"]'))"
                ".borderTopColor")
            assert swatch == panel == kingdom, (seat, swatch, panel, kingdom)
        # No "68 · 68 gold": the score column says it once.
        details = page.locator(".final td.muted.small")
        assert all(not details.nth(i).inner_text().strip() for i in range(details.count()))
    finally:
        ctx.close()
