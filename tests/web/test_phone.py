"""On a phone (844×390, landscape): when the player's move begins the map zooms itself to
the boot and the towns it can reach, and the counters on the roads, the price badges and
the road targets are at least 24 px on screen."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page

from .helpers import (
    SCREENSHOTS,
    create_game,
    is_over,
    my_turn,
    phase_key,
    start_game,
    take_turn,
    wait_for_news,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 844, "height": 390}
VIEWBOX = "() => document.querySelector('svg.board').getAttribute('viewBox')"


def _sizes(page: Page, selector: str) -> list[float]:
    return list(page.eval_on_selector_all(selector, """els => els.map(e => {
        const r = e.getBoundingClientRect(); return Math.min(r.width, r.height); })"""))


def test_the_map_zooms_to_the_move_and_pieces_stay_touchable(browser: Browser,
                                                             server: str) -> None:
    ctx = browser.new_context(viewport=PHONE, locale="en-GB", has_touch=True)
    try:
        page = ctx.new_page()
        page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
        create_game(page, server, players=2, bots=1, level="random", seed=9)
        start_game(page)
        home = [float(x) for x in page.evaluate(VIEWBOX).split()]
        rng = random.Random(9)
        checked = False
        for _ in range(300):
            if is_over(page):
                break
            if not my_turn(page):
                wait_for_news((page,))
                continue
            if phase_key(page) == "move" and page.locator(".cost-badge").count():
                page.wait_for_timeout(900)  # a counter just placed has popped in
                box = [float(x) for x in page.evaluate(VIEWBOX).split()]
                assert box[2] < home[2], (box, home)  # zoomed in
                # The boot and every town it can reach are in the view.
                points = page.evaluate("""() => {
                    const ui = window.__elfenland.page.ui;
                    const me = ui.me();
                    return [me.boot, ...ui.movesByTown().keys()].map(t => ui.board.pos(t));
                }""")
                for x, y in points:
                    assert box[0] <= x <= box[0] + box[2] and box[1] <= y <= box[1] + box[3]
                assert min(_sizes(page, ".board .cost-badge")) >= 24.5
                counters = _sizes(page, ".board .counter-inner")
                assert counters and min(counters) >= 24, counters
                # The hand (needed to pay a caravan) is on screen without scrolling.
                hand = page.locator(".controls .hand").bounding_box()
                assert hand and hand["y"] >= 0 and hand["y"] + hand["height"] <= PHONE["height"]
                page.screenshot(path=str(SCREENSHOTS / "elfenland-phone-zoom.png"))
                checked = True
                break
            if phase_key(page) == "place" and page.locator(".road-target").count():
                targets = _sizes(page, ".board .road-target")
                assert min(targets) >= 24, min(targets)
            take_turn(page, rng, prefer=("place",))
        assert checked, "no move with a price to check"
    finally:
        ctx.close()


def test_king_of_the_elves_on_a_phone_has_no_scroll_box_in_the_page(browser: Browser,
                                                                     server: str) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB",
                              has_touch=True)
    try:
        page = ctx.new_page()
        create_game(page, server, game="king-of-the-elves", players=4, bots=3,
                    level="random", seed=4)
        start_game(page)
        page.wait_for_selector(".kingdom")
        inner = page.evaluate("""() => { const b = document.querySelector('.board-wrap');
            return [b.scrollHeight, b.clientHeight, getComputedStyle(b).overflowY]; }""")
        assert inner[2] == "visible" or inner[0] <= inner[1] + 1, inner
        # Nothing wider than the phone: no sideways scrolling; the title is not cut.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        cut = page.evaluate("(e => e.scrollWidth > e.clientWidth)"
                            "(document.getElementById('status'))")
        assert not cut
    finally:
        ctx.close()
