"""A first visit at a desk (1280×800): "New game" comes first with a "How to play" link,
the create button is on the first screen, empty lists are folded, the player's settings
have their own panel, the name is asked once, and each game is listed once."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from .axe import serious_violations

pytestmark = pytest.mark.browser

DESK = {"width": 1280, "height": 800}


def test_new_game_first_and_above_the_fold(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport=DESK, locale="en-GB")
    try:
        page = ctx.new_page()
        page.goto(f"{server}/")
        page.wait_for_selector("body[data-ready='1']")
        create = page.locator("#create-btn").bounding_box()
        howto = page.locator("#howto-btn").bounding_box()
        title = page.locator("h1").bounding_box()
        assert create and howto and title
        assert create["y"] + create["height"] <= DESK["height"], create
        assert title["y"] < howto["y"] < create["y"]
        assert page.locator("h1").count() == 1
        assert page.locator("h1").inner_text() == "New game"
        # "How to play" opens the rules aid.
        page.click("#howto-btn")
        page.wait_for_selector(".aid[role=dialog]")
        page.keyboard.press("Escape")
        page.wait_for_selector(".aid[role=dialog]", state="detached")
        # One name field; the settings (webhook, notifications) are a panel of their own,
        # folded until asked for.
        assert page.locator("input[name=name]").count() == 1
        assert page.locator("input[name=pname]").count() == 0
        panel = page.locator("#player-panel")
        assert panel.evaluate("d => d.tagName") == "DETAILS" and not panel.evaluate("d => d.open")
        assert page.locator("#player-panel input[name=webhook]").count() == 1
        assert page.locator("#player-panel #notify-state").count() == 1
        # Nothing of the player's yet: no "Your games" heading over an empty list.
        assert page.locator("#mine-box").is_hidden()
        # The open games fold away while there are none, and open when one appears.
        page.wait_for_selector(".lobby[data-feed]")
        if page.locator("#open-games .game-row").count() == 0:
            assert not page.evaluate("document.querySelector('#open-box').open")
        assert serious_violations(page) == []
    finally:
        ctx.close()


def test_each_game_listed_once(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport=DESK, locale="en-GB")
    try:
        page = ctx.new_page()
        page.goto(f"{server}/")
        page.wait_for_selector("body[data-ready='1']")
        page.fill("input[name=name]", "Una")
        page.click("#player-panel > summary")
        page.click("#player-save")
        page.wait_for_selector(".toast:has-text('Saved')")
        page.select_option("select[name=players]", "2")
        page.select_option("select[name=kind-1]", "bot")
        page.click("#create-btn")
        page.wait_for_selector(".game .panel")
        gid = page.url.rsplit("/", 1)[-1]
        page.wait_for_selector("#turn.mine")
        page.goto(f"{server}/#/")
        # Both the player's games (server) and this browser's seats know it: shown once,
        # marked as waiting for the player, with "Play".
        row = f"[data-game='{gid}']"
        page.wait_for_selector(f"#my-games {row}.waiting-row")
        page.wait_for_timeout(300)
        assert page.locator(row).count() == 1
        assert page.locator(f"{row} a").inner_text() == "Play"
        assert page.locator(f"{row} .turn-tag").inner_text() == "Your turn"
        assert page.locator("#mine-box").is_visible()
    finally:
        ctx.close()
