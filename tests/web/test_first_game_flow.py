"""A first game as a new player plays it, by clicking only: what got in the way.

On a phone (390×844) the map follows the boot: after each step the towns it can reach
from its new town are in the view, not only at the start of the move."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page

from .helpers import (
    create_game,
    is_over,
    my_turn,
    phase_key,
    seq,
    start_game,
    take_turn,
    wait_for_news,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
VIEWBOX = "() => document.querySelector('svg.board').getAttribute('viewBox')"
#: The boot and the towns it can reach, in board units.
TARGETS = """() => {
    const ui = window.__elfenland.page.ui;
    return [ui.me().boot, ...ui.movesByTown().keys()].map(t => [t, ...ui.board.pos(t)]);
}"""
#: The town with a one-click step (a fixed price) farthest from the boot.
FARTHEST = """() => {
    const ui = window.__elfenland.page.ui;
    const [bx, by] = ui.board.pos(ui.me().boot);
    const towns = [...document.querySelectorAll('.town[data-action]')].map(g => g.dataset.town);
    const d = (t) => { const [x, y] = ui.board.pos(t); return Math.hypot(x - bx, y - by); };
    return towns.sort((a, b) => d(b) - d(a))[0];
}"""


def test_on_a_phone_the_map_follows_the_boot_step_by_step(browser: Browser,
                                                          server: str) -> None:
    ctx = browser.new_context(viewport=PHONE, locale="en-GB", has_touch=True, is_mobile=True)
    try:
        page = ctx.new_page()
        page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
        create_game(page, server, players=2, bots=1, level="random", seed=1)
        start_game(page)
        rng = random.Random(1)
        steps = 0
        for _ in range(200):
            if is_over(page) or steps >= 4:
                break
            if not my_turn(page):
                wait_for_news((page,))
                continue
            moving = phase_key(page) == "move" and page.locator(".town[data-action]").count()
            if moving:
                page.wait_for_timeout(300)  # the view settles
                x, y, w, h = (float(v) for v in page.evaluate(VIEWBOX).split())
                outside = [t for t, tx, ty in page.evaluate(TARGETS)
                           if not (x <= tx <= x + w and y <= ty <= y + h)]
                assert not outside, f"after {steps} steps, off the map's view: {outside}"
                before = seq(page)
                # The farthest town it can reach: from there, other towns are far too.
                far = page.evaluate(FARTHEST)
                page.click(f".town[data-town='{far}']")
                steps += 1
                page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
                continue
            take_turn(page, rng, prefer=("place", "draw"))
        assert steps >= 2, "too few steps to check"
    finally:
        ctx.close()


#: The road targets (or towns) whose centre on screen is under something else: the map's
#: zoom buttons, the top bar.
COVERED = """(sel) => [...document.querySelectorAll(sel)].filter(e => {
    const r = e.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const top = document.elementFromPoint(x, y);
    return !(top === e || e.contains(top));
}).map(e => (e.dataset.route || e.dataset.town) + ' under ' + document.elementFromPoint(
    e.getBoundingClientRect().left + e.getBoundingClientRect().width / 2,
    e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2).outerHTML.slice(0, 60))"""


def test_on_a_phone_no_road_to_plan_is_under_the_zoom_buttons(browser: Browser,
                                                              server: str) -> None:
    ctx = browser.new_context(viewport=PHONE, locale="en-GB", has_touch=True, is_mobile=True)
    try:
        page = ctx.new_page()
        page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
        create_game(page, server, players=2, bots=1, level="random", seed=3)
        start_game(page)
        rng = random.Random(3)
        for _ in range(30):
            if my_turn(page) and phase_key(page) == "place":
                break
            if my_turn(page):
                take_turn(page, rng)
            else:
                wait_for_news((page,))
        assert phase_key(page) == "place"
        page.evaluate("window.scrollTo(0, 0)")
        page.click("[data-zoom=reset]")  # the whole map, as it first shows
        page.wait_for_timeout(300)
        assert page.locator(".road-target").count() > 20
        assert page.evaluate(COVERED, ".road-target") == []
        assert page.evaluate(COVERED, ".board .town") == []
    finally:
        ctx.close()


def test_a_spectator_is_not_offered_turn_alerts(browser: Browser, server: str) -> None:
    """"Tell me when it is my turn" said to someone without a seat (or, the same, after the
    game's end) asks for the browser's permission for alerts that never come."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-GB")
    try:
        player = ctx.new_page()
        gid = create_game(player, server, players=2, bots=1, seed=2)
        start_game(player)
        assert player.locator("#notify-ask").is_visible()  # the player's own turns
        other = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-GB")
        try:
            watcher = other.new_page()
            watcher.goto(f"{server}/#/game/{gid}")
            watcher.wait_for_selector(".game .panel")
            watcher.wait_for_function("() => document.body.dataset.seq !== undefined"
                                      " && document.body.dataset.seq !== ''")
            assert not watcher.locator("#notify-ask").is_visible()
        finally:
            other.close()
    finally:
        ctx.close()


def test_the_discard_help_says_how_the_page_discards(page: Page, server: str) -> None:
    """Over the hand limit, a click on a card only picks it: the help says to pick the
    cards, then press the button that discards them."""
    page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
    create_game(page, server, players=2, bots=1, level="random", seed=4)
    start_game(page)
    rng = random.Random(4)
    for _ in range(60):
        if my_turn(page) and phase_key(page) == "discard":
            break
        if my_turn(page):
            take_turn(page, rng, prefer=("pass", "end"))
        else:
            wait_for_news((page,))
    assert phase_key(page) == "discard"
    need = int(page.locator("#discard-need").get_attribute("data-need") or "0")
    assert need >= 1
    help_text = page.locator("#help").inner_text()
    assert "pick" in help_text and "button" in help_text, help_text
    page.locator("[data-dpick]").first.click()  # as the help says: the card is picked
    assert page.locator("[data-dpick].on").count() == 1
    assert phase_key(page) == "discard"
