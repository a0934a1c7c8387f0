"""Accessibility through whole games (axe-core, failing on critical or serious): every
phase of every game's table as the player meets it, the final dialog (named, focused on
open, closed by Escape) and the replay; one h1 on every page."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page

from .axe import serious_violations
from .helpers import create_game, is_over, phase_key, start_game, take_turn, wait_turn_or_end

pytestmark = pytest.mark.browser

DESK = {"width": 1280, "height": 800}
#: The phases each game's player meets (the page's phase, or "discard").
PHASES = {
    "elfenland": {"draw-secret", "draw-counters", "place", "move"},
    "king-of-the-elves": {"building", "journey"},
    "elfengold": {"draw-items", "auction", "place", "move", "settle"},
}


def _checked(page: Page, where: str, seen: dict[str, list[object]]) -> None:
    assert page.locator("h1").count() == 1, f"{where}: h1 count {page.locator('h1').count()}"
    seen[where] = serious_violations(page)


def _play_checking(page: Page, game: str, rng: random.Random) -> dict[str, list[object]]:
    seen: dict[str, list[object]] = {}
    for _ in range(900):
        wait_turn_or_end(page)
        if is_over(page):
            break
        key = phase_key(page)
        if key not in seen:
            page.wait_for_timeout(300)
            _checked(page, key, seen)
        take_turn(page, rng)
    else:
        raise AssertionError("the game did not end")
    assert PHASES[game] <= set(seen), set(seen)
    return seen


def _final_and_replay(page: Page, server: str, seen: dict[str, list[object]]) -> None:
    final = page.locator(".final")
    final.wait_for()
    # Named by its title, focused on open.
    label = final.get_attribute("aria-labelledby")
    assert final.get_attribute("role") == "dialog" and label
    assert page.locator(f"#{label}").inner_text().strip()
    assert page.evaluate("document.querySelector('.final').contains(document.activeElement)")
    _checked(page, "final", seen)
    page.keyboard.press("Escape")
    assert page.locator(".final").count() == 0
    gid = page.url.rsplit("/", 1)[-1]
    page.goto(f"{server}/#/replay/{gid}")
    page.wait_for_selector("#step")
    page.wait_for_timeout(300)
    assert page.locator("label[for=step]").count() == 1
    for go in ("first", "prev", "next", "last"):
        button = page.locator(f"[data-go={go}]")
        assert button.get_attribute("aria-label"), go
        assert button.locator("svg").count() == 1, go
    _checked(page, "replay", seen)


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves", "elfengold"])
def test_every_phase_the_final_dialog_and_the_replay(browser: Browser, server: str,
                                                     game: str) -> None:
    ctx = browser.new_context(viewport=DESK, locale="en-GB")
    try:
        page = ctx.new_page()
        page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
        create_game(page, server, game=game, players=2, bots=1, level="random", seed=3)
        start_game(page)
        seen = _play_checking(page, game, random.Random(3))
        _final_and_replay(page, server, seen)
        bad = {where: found for where, found in seen.items() if found}
        assert bad == {}, bad
    finally:
        ctx.close()
