"""One player on two devices, in a real Chromium: device A becomes a player and starts a
game against a bot; device B (already another player) opens A's "another device" link,
is asked before the player is replaced, then opens the game from "Your games" and sits
at A's seat: its own hand, and it plays its turn."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page

from .helpers import create_game, my_turn, seq, take_turn

pytestmark = pytest.mark.browser


def become_player(page: Page, base: str, name: str) -> None:
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-ready='1']")
    page.fill("input[name=name]", name)
    page.click("#player-panel > summary")
    page.click("#player-save")
    page.wait_for_function(
        "(n) => (JSON.parse(localStorage.getItem('elfenland.player') || 'null') || {}).name === n",
        arg=name)


def saved_player(page: Page) -> dict[str, str] | None:
    return page.evaluate(  # type: ignore[no-any-return]
        "JSON.parse(localStorage.getItem('elfenland.player') || 'null')")


def test_another_device_sits_at_the_players_seat(browser: Browser, server: str) -> None:
    a_ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
    b_ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
    errors: list[str] = []
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        for pg in (a, b):
            pg.on("pageerror", lambda e: errors.append(str(e)))
        # Device A: a player, at a table with a bot.
        become_player(a, server, "Ann")
        ann = saved_player(a)
        assert ann is not None
        gid = create_game(a, server, players=2, bots=1, name="Ann")
        a.wait_for_selector(".game .panel")
        # The link for another device, in the player panel.
        a.goto(f"{server}/#/")
        a.wait_for_selector("#device-box:not([hidden]) #device-link", state="attached")
        a.click("#player-panel > summary")
        a.click("#device-fold > summary")
        link = a.locator("#device-link").input_value()
        assert link.endswith(f"#/player/{ann['token']}")
        a.click("#device-copy")
        a.wait_for_selector(".toast:has-text('Link copied')")

        # Device B is another player already: it is asked before becoming Ann.
        become_player(b, server, "Zed")
        b.goto(link)
        b.wait_for_selector("#device-question")
        assert "Zed" in b.inner_text("#device-question")
        assert "Ann" in b.inner_text("#device-question")
        assert ann["token"] not in b.url  # out of the address bar and the history
        b.click("#device-replace")
        b.wait_for_selector("#mine-box:not([hidden])")
        assert (saved_player(b) or {}).get("token") == ann["token"]
        assert (saved_player(b) or {}).get("name") == "Ann"
        assert b.evaluate("localStorage.getItem('elfenland.seats') || '{}'").find(gid) == -1

        # "Your games" on B opens the table as Ann's seat, not as a spectator.
        b.click(f"#my-games [data-game='{gid}'] a")
        b.wait_for_selector(".game .panel")
        b.wait_for_function(
            "() => window.__elfenland && window.__elfenland.page.seat === 0"
            " && window.__elfenland.page.view && window.__elfenland.page.view.viewer === 0")
        assert b.evaluate("!!window.__elfenland.page.view.players[0].hand")
        assert b.evaluate("window.__elfenland.page.view.players[1].hand") is None
        # B plays Ann's turns.
        rng = random.Random(3)
        played = 0
        for _ in range(40):
            b.wait_for_function(
                "() => document.querySelector('#turn.mine') || document.querySelector('.final')")
            if not my_turn(b):
                break
            before = seq(b)
            take_turn(b, rng)
            b.wait_for_function("(s) => (document.body.dataset.seq || '') !== s", arg=before)
            played += 1
            if played >= 2:
                break
        assert played >= 1
        # A's table (the seat token) saw B's moves.
        a.goto(f"{server}/#/game/{gid}")
        a.wait_for_function(
            "(n) => window.__elfenland && window.__elfenland.page.view"
            " && window.__elfenland.page.view.seq >= n", arg=played)

        # The game's own link (a turn notice's) opens it as the seat too.
        b.goto(f"{server}/#/")
        b.wait_for_selector("body[data-ready='1']")
        b.goto(f"{server}/#/game/{gid}")
        b.wait_for_function("() => window.__elfenland && window.__elfenland.page.seat === 0"
                            " && window.__elfenland.page.view"
                            " && window.__elfenland.page.view.viewer === 0")
    finally:
        a_ctx.close()
        b_ctx.close()
    assert not errors, errors


def test_a_link_naming_no_player_changes_nothing(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
    try:
        b = ctx.new_page()
        become_player(b, server, "Zed")
        before = saved_player(b)
        b.goto(f"{server}/#/player/{'x' * 43}")
        b.wait_for_selector("#device-error")
        assert saved_player(b) == before
    finally:
        ctx.close()
