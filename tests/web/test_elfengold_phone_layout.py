"""Elfengold on a phone held upright: the hand is a bar fixed at the foot of the screen,
over the page.  In the auction, "Yours:" (what the player owns: coins and items) lay under
that bar, so a bidder could not see what they already had; the other phases' controls
(the items to hide, the cards to draw, the items to keep) did too on a small phone, or
when a round's summary stood above them.  On each turn, what the phase needs is on screen
above the bar, not covered by it, and the board's zoom buttons stay uncovered; at a desk
nothing changes."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from .helpers import confirm_if_asked, create_game, is_over, my_turn, seq, wait_for_news

pytestmark = pytest.mark.browser

#: What each phase needs to be seen on the player's turn (CSS selectors, each of which
#: must match at least one element; every match is checked).
NEEDED = {
    "draw-items": ["#hide-items", "#my-items"],
    "auction": ["#auction [data-auction-item]", "#bid-amount", "#bid-btn", "#pass-btn",
                "#auction-bidders", "#auction [data-bidder-coins]", "#my-items", "#my-coins"],
    "place": ["#controls .row.choose", "#place-pass", "#my-items"],
    "move": ["#end-move", "#my-items"],
    "move-draw": ["#display", "#my-items"],
    "draw-cards": ["#display", "#my-items"],
    "settle": ["#settle", "#my-items"],
    "keep": ["#keep-items", "#my-items"],
}
#: The button each phase is passed with (as a cautious newcomer plays).
PASS = {"draw-items": "#hide-items [data-action]", "auction": "#pass-btn",
        "place": "#place-pass", "move": "#end-move", "settle": "#cards-btn",
        "draw-cards": "#display [data-action]", "move-draw": "#display [data-action]",
        "keep": "#keep-items [data-action]", "discard": ".hand.discarding [data-action]"}

#: For each element matching a selector, why it is not seen (empty when it is): off
#: screen, its box overlapping the hand bar's, or something else on top at its centre.
HIDDEN = """([sels, zoom]) => {
    const bar = document.querySelector('#controls .hand').getBoundingClientRect();
    const problems = [];
    const check = (sel, el, mayTouchBar) => {
        const r = el.getBoundingClientRect();
        const name = `${sel} [${Math.round(r.top)}-${Math.round(r.bottom)}]`;
        if (r.width <= 0 || r.height <= 0) { problems.push(`${name}: not shown`); return; }
        if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) {
            problems.push(`${name}: off screen`); return; }
        if (!mayTouchBar && Math.min(r.right, bar.right) > Math.max(r.left, bar.left)
                && Math.min(r.bottom, bar.bottom) > Math.max(r.top, bar.top)) {
            problems.push(`${name}: under the hand bar [${Math.round(bar.top)}-]`); return; }
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!top || !(top === el || el.contains(top))) {
            problems.push(`${name}: covered by ${top ? (top.id || top.className.baseVal
                                                        || top.className || top.tagName) : '?'}`);
        }
    };
    for (const sel of sels) {
        const els = [...document.querySelectorAll(sel)];
        if (!els.length) problems.push(`${sel}: missing`);
        for (const el of els) check(sel, el, false);
    }
    for (const el of document.querySelectorAll(zoom)) check('zoom ' + el.dataset.zoom, el, true);
    return problems;
}"""


def view(page: Page) -> dict[str, Any]:
    return dict(page.evaluate("() => window.__elfenland.page.view"))


def settled(page: Page) -> None:
    """The page's render and what runs on the frame after it (the scroll that brings the
    controls above the bar) are done."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.wait_for_timeout(150)


def play_through_phases(page: Page, limit: int = 120) -> dict[str, list[str]]:
    """Pass through two rounds as a cautious newcomer does; on the first turn of each
    phase, what it needs that is not seen."""
    found: dict[str, list[str]] = {}
    for _ in range(limit):
        if is_over(page) or set(NEEDED) <= set(found):
            break
        if not my_turn(page):
            wait_for_news((page,))
            continue
        v = view(page)
        if v["round"] > 2:
            break
        phase = "discard" if v.get("discarding") else v["phase"]
        if phase in NEEDED and phase not in found:
            settled(page)
            found[phase] = page.evaluate(HIDDEN, [NEEDED[phase], "[data-zoom]"])
        before = seq(page)
        page.locator(PASS[phase]).first.click()
        confirm_if_asked(page)
        page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    return found


PHONES: list[ViewportSize] = [{"width": 390, "height": 844}, {"width": 360, "height": 640}]


@pytest.mark.parametrize("size", PHONES, ids=["390x844", "360x640"])
def test_each_phase_shows_what_it_needs_above_the_hand_bar(browser: Browser, server: str,
                                                           size: ViewportSize) -> None:
    ctx = browser.new_context(viewport=size, locale="en-GB", has_touch=True, is_mobile=True)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
        create_game(page, server, game="elfengold", players=4, bots=3, level="greedy", seed=21)
        page.wait_for_selector(".game .panel")
        found = play_through_phases(page)
    finally:
        ctx.close()
    assert not errors, errors
    # The auction and the other phases a first game passes through were all checked.
    assert {"draw-items", "auction", "place", "move", "draw-cards", "keep"} <= set(found), found
    hidden = {phase: problems for phase, problems in found.items() if problems}
    assert not hidden, hidden


def test_at_a_desk_the_auction_is_laid_out_as_before(page: Page, server: str) -> None:
    """At 1280x800 the hand is in the side column's flow: the page does not scroll and the
    auction box keeps its rows' spacing."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
    create_game(page, server, game="elfengold", players=4, bots=3, level="greedy", seed=21)
    page.wait_for_selector(".game .panel")
    for _ in range(40):
        if my_turn(page) and view(page)["phase"] == "auction":
            break
        if my_turn(page):
            before = seq(page)
            page.locator(PASS[view(page)["phase"]]).first.click()
            page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
        else:
            wait_for_news((page,))
    assert view(page)["phase"] == "auction" and my_turn(page)
    settled(page)
    assert page.evaluate("scrollY") == 0
    assert page.evaluate("getComputedStyle(document.querySelector('#controls .hand')).position") \
        == "static"
    assert page.evaluate("getComputedStyle(document.querySelector('.auction-head')).marginTop") \
        == "6px"
