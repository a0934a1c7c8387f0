"""Async play in the browser: a turn-based clock that runs out (a bot plays the turn,
everyone is told), and table talk between two browsers where a message holding markup
stays text."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Browser, Page

from elfenland.core.transport import Transport

from .helpers import more_options, my_turn, phase_key, seq, start_game, take_turn, wait_for_news

pytestmark = pytest.mark.browser

#: The actions taking a counter from the face-up row (not "draw blind", not "draw secret").
FACE_UP = tuple(f"draw {t.slug}" for t in Transport if t is not Transport.RAFT)
INJECTION = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'


def create_with_tempo(page: Page, base: str, players: int, bots: int, tempo: str,
                      per_move: str, unit: str, max_timeouts: str = "3") -> str:
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-ready='1']")
    page.fill("input[name=name]", "Ann")
    page.select_option("select[name=players]", str(players))
    for i in range(players):
        kind = "human" if i == 0 else ("bot" if i <= bots else "open")
        page.select_option(f"select[name=kind-{i}]", kind)
        if kind == "bot":
            page.select_option(f"select[name=level-{i}]", "random")
    more_options(page)
    page.select_option("select[name=tempo]", tempo)
    page.fill("input[name=per_move]", per_move)
    page.select_option("select[name=per_move_unit]", unit)
    page.fill("input[name=max_timeouts]", max_timeouts)
    page.click("#create-btn")
    page.wait_for_selector(".waiting, .game .panel")
    return page.url.rsplit("/", 1)[-1]


def test_a_turn_based_clock_runs_out_and_a_bot_plays(page: Page, server: str) -> None:
    create_with_tempo(page, server, players=2, bots=1, tempo="turn", per_move="2", unit="s")
    start_game(page)
    clock = page.locator("#clock")
    clock.wait_for(state="visible")
    assert "Turn-based" in clock.inner_text()
    page.wait_for_selector("#clock .clock-left:has-text('Ann')")
    # Ann does nothing: after 2 s a bot plays her turn and everyone is told.
    page.wait_for_selector(".chat-list li.timeout")
    line = page.locator(".chat-list li.timeout").first.inner_text()
    assert line.startswith("Ann") and "ran out of time" in line and "timeout 1" in line
    page.wait_for_function(
        "() => window.__elfenland.page.log.some(e => e.player === 0)")
    assert page.locator(".panel[data-seat='0']").count() == 1
    assert re.search(r"Timeouts: Ann \(you\) [123]/3", clock.inner_text())


def test_chat_between_two_browsers_shows_markup_as_text(browser: Browser, server: str
                                                         ) -> None:
    a_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    b_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        errors: list[str] = []
        for pg in (a, b):
            pg.on("pageerror", lambda e: errors.append(str(e)))
        _create_plain(a, server)
        link = a.locator("#share-link").input_value()
        b.goto(link)
        b.wait_for_selector("[data-join]")
        b.fill("#join-name", "Bob")
        b.click("[data-join]")
        b.wait_for_selector(".game .panel")  # full: it starts
        start_game(a)
        b.wait_for_selector(".game .panel")
        a.fill(".chat-input", INJECTION)
        a.click(".chat-send")
        b.wait_for_selector(".chat-list li.chat")
        assert b.locator(".chat-list li.chat b").inner_text() == "Ann"
        assert b.locator(".chat-list li.chat .chat-text").inner_text() == INJECTION
        assert b.locator(".chat-list img, .chat-list script").count() == 0
        b.fill(".chat-input", "bonjour Ann")
        b.press(".chat-input", "Enter")
        a.wait_for_selector(".chat-list li.chat:has-text('bonjour Ann')")
        assert a.locator(".chat-list li.chat").count() == 2
        a.wait_for_timeout(300)
        for pg in (a, b):
            assert pg.evaluate("window.__pwned") is None
        # A reload brings the table talk back from the store.
        b.reload()
        b.wait_for_selector(".chat-list li.chat:has-text('bonjour Ann')")
        assert b.locator(".chat-list li.chat").count() == 2
        assert not errors, errors
    finally:
        a_ctx.close()
        b_ctx.close()


def _create_plain(page: Page, base: str) -> str:
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-ready='1']")
    page.fill("input[name=name]", "Ann")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=kind-0]", "human")
    page.select_option("select[name=kind-1]", "open")
    page.click("#create-btn")
    page.wait_for_selector(".waiting")
    return page.url.rsplit("/", 1)[-1]


def _two_players(browser: Browser, server: str) -> tuple[object, object, Page, Page]:
    a_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    b_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    a, b = a_ctx.new_page(), b_ctx.new_page()
    _create_plain(a, server)
    link = a.locator("#share-link").input_value()
    b.goto(link)
    b.wait_for_selector("[data-join]")
    b.fill("#join-name", "Bob")
    b.click("[data-join]")
    b.wait_for_selector(".game .panel")  # full: it starts
    start_game(a)
    b.wait_for_selector(".game .panel")
    return a_ctx, b_ctx, a, b


def test_undo_takes_back_a_placement_but_not_a_draw(browser: Browser, server: str) -> None:
    a_ctx, b_ctx, a, b = _two_players(browser, server)
    try:
        rng = random.Random(3)
        # The limit: a face-up draw (the row refills at random) cannot be taken back,
        # so the button is not offered after it (nor to the other player ever).
        face_up = ""
        for _ in range(60):
            if my_turn(a) and phase_key(a) == "draw-counters":
                face_up = take_turn(a, rng, prefer=FACE_UP)
                if face_up.startswith(FACE_UP):
                    break
            elif my_turn(a) or my_turn(b):
                take_turn(a if my_turn(a) else b, rng)
            else:
                wait_for_news((a, b))
        assert face_up.startswith(FACE_UP), "Ann never took a face-up counter"
        after_draw = seq(a)
        b.wait_for_function("s => document.body.dataset.seq === s", arg=after_draw)
        assert a.evaluate("window.__elfenland.page.view.take_back") is None
        assert a.locator("#undo-btn").is_hidden() and b.locator("#undo-btn").is_hidden()
        # Play on until Ann places a counter; that she may take back.
        placed = ""
        for _ in range(200):
            if my_turn(b):
                take_turn(b, rng)
            elif my_turn(a):
                action = take_turn(a, rng, prefer=("place",))
                if action.startswith("place"):
                    placed = action
                    break
            else:
                wait_for_news((a, b))
        assert placed, "Ann never placed a counter"
        after = seq(a)
        b.wait_for_function("s => document.body.dataset.seq === s", arg=after)
        # A plain step: offered to Ann, not to Bob.
        a.wait_for_selector("#undo-btn:not([hidden])")
        assert b.locator("#undo-btn").is_hidden()
        a.click("#undo-btn")
        a.wait_for_function("s => document.body.dataset.seq === String(Number(s) - 1)",
                            arg=after)
        b.wait_for_function("s => document.body.dataset.seq === String(Number(s) - 1)",
                            arg=after)
        b.wait_for_selector(".chat-list li.undo:has-text('Ann took back')")
        assert a.locator(f"#log li[data-seq='{after}']").count() == 0
        assert my_turn(a) and placed in a.evaluate("window.__elfenland.page.view.legal")
        # The replay lists the take-back and goes to its step.
        gid = b.url.rsplit("/", 1)[-1]
        b.goto(f"{server}/#/replay/{gid}")
        b.wait_for_selector(".replay-events li.undo")
        assert "Ann" in b.locator(".replay-events li.undo").inner_text()
        step = int(after) - 1
        assert b.locator(".replay-events li.undo button").get_attribute("data-step") == str(step)
        b.click(".replay-events li.undo button")
        b.wait_for_function("s => document.querySelector('#step').value === s", arg=str(step))
    finally:
        a_ctx.close()
        b_ctx.close()
