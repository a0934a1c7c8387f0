"""A person plays whole games in Chromium by clicking only."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page

from .helpers import (
    SCREENSHOTS,
    create_game,
    is_over,
    my_turn,
    play_to_end,
    raw_log_lines,
    seq,
    start_game,
    take_turn,
    wait_for_news,
    wait_turn_or_end,
)

pytestmark = pytest.mark.browser


def test_lobby_shows_the_form_and_the_open_games(page: Page, server: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    create_game(page, server, players=3, bots=1)  # leaves one seat open
    page.goto(f"{server}/#/")
    page.wait_for_selector(".game-row")
    assert page.locator("#create-form").is_visible()
    assert page.locator(".game-row").count() >= 1
    page.screenshot(path=str(SCREENSHOTS / "lobby.png"))


def test_elfenland_against_three_bots_to_the_final_scores(page: Page, server: str) -> None:
    gid = create_game(page, server, players=4, bots=3, level="random")
    start_game(page)
    # The board is drawn from the map data: 21 towns, 48 routes, two lakes.
    assert page.locator(".board .town").count() == 21
    assert page.locator(".board [data-route]").count() == 48
    assert page.locator(".board .lakes path").count() == 2
    shots = {"draw-secret": "elfenland-1-draw-secret.png",
             "draw-counters": "elfenland-2-draw-counters.png",
             "place": "elfenland-3-place.png", "move": "elfenland-4-move.png",
             "discard": "elfenland-5-discard.png", "keep": "elfenland-6-keep.png"}
    actions = play_to_end(page, random.Random(7), shots)
    assert any(a.startswith("move ") for a in actions)
    assert any(a.startswith("place ") for a in actions)
    final = page.locator(".final")
    assert final.is_visible()
    assert page.locator(".scores tbody tr").count() == 4
    assert page.locator(".scores tr.win").count() >= 1
    assert page.locator("#replay-link").get_attribute("href") == f"#/replay/{gid}"
    assert page.locator("#log li").count() > 50
    assert not raw_log_lines(page)
    page.screenshot(path=str(SCREENSHOTS / "elfenland-7-final.png"))
    # The replay steps through the finished game on the same board.
    page.click("#replay-link")
    page.wait_for_selector(".replay .board")
    page.click("[data-go=first]")
    page.wait_for_function("() => document.querySelector('#step').value === '0'")
    page.click("[data-go=next]")
    page.wait_for_function("() => document.querySelector('#step').value === '1'")


def test_two_players_in_two_browsers(browser: Browser, server: str) -> None:
    a_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    b_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        gid = create_game(a, server, players=2, bots=0, name="Ann")
        link = a.locator("#share-link").input_value()
        b.goto(link)
        b.wait_for_selector("[data-join]")
        b.fill("#join-name", "Bob")
        b.click("[data-join]")
        b.wait_for_selector(".game .panel")  # full: it starts
        # The table was full: it started by itself, with Bob in his seat for Ann too.
        a.wait_for_selector(".panel[data-seat='1'] .nm:has-text('Bob')")
        start_game(a)
        b.wait_for_selector(".game .panel")
        assert gid in b.url
        rng = random.Random(3)
        for _ in range(900):
            if is_over(a) and is_over(b):
                break
            acted = False
            for pg in (a, b):
                if not is_over(pg) and my_turn(pg):
                    take_turn(pg, rng)
                    acted = True
            if not acted:
                wait_for_news((a, b))
        assert is_over(a) and is_over(b)
        names = a.locator(".scores tbody").inner_text()
        assert "Ann" in names and "Bob" in names
        assert seq(a) == seq(b)
    finally:
        a_ctx.close()
        b_ctx.close()


def test_reload_and_lost_connection_resume_the_game(page: Page, server: str) -> None:
    create_game(page, server, players=3, bots=2)
    start_game(page)
    rng = random.Random(11)
    for _ in range(6):
        wait_turn_or_end(page)
        take_turn(page, rng)
    wait_turn_or_end(page)
    before = seq(page)
    log_before = page.locator("#log li").count()
    page.reload()
    page.wait_for_selector(".game .panel")
    page.wait_for_function("s => document.body.dataset.seq === s", arg=before)
    assert page.locator("#log li").count() == log_before
    assert my_turn(page)
    take_turn(page, rng)
    # The socket drops: the page says so, reconnects by itself and plays on.
    page.evaluate("window.__elfenland.conn.drop()")
    page.wait_for_function("() => document.querySelector('#conn').dataset.state !== 'online'")
    page.wait_for_function("() => document.querySelector('#conn').dataset.state === 'online'"
                           " && document.querySelector('#conn').hidden")
    wait_turn_or_end(page)
    take_turn(page, rng)
    assert int(seq(page)) > int(before)


def test_phone_in_landscape_shows_board_and_controls(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport={"width": 844, "height": 390}, is_mobile=True,
                              has_touch=True, device_scale_factor=2)
    try:
        pg = ctx.new_page()
        create_game(pg, server, players=3, bots=2)
        start_game(pg)
        wait_turn_or_end(pg)
        board = pg.locator(".board").bounding_box()
        assert board is not None and board["width"] > 450 and board["height"] > 300
        assert pg.locator("[data-action]").first.is_visible()
        pg.screenshot(path=str(SCREENSHOTS / "elfenland-phone.png"))
        # Zoom in with the button: the view box narrows.
        before = pg.locator(".board").get_attribute("viewBox")
        pg.click("[data-zoom=in]")
        assert pg.locator(".board").get_attribute("viewBox") != before
    finally:
        ctx.close()


def test_illegal_or_stale_actions_are_shown_plainly(page: Page, server: str) -> None:
    create_game(page, server, players=3, bots=2)
    start_game(page)
    wait_turn_or_end(page)
    # Sending an action the rules forbid: the server refuses, the page says why.
    page.evaluate("window.__elfenland.conn.act('move elvenhold-beata')")
    page.wait_for_selector(".toast")
    assert page.locator(".toast").inner_text().strip() != ""
    assert my_turn(page)
