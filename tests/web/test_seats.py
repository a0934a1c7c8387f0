"""A player leaves, the other hands the seat to a bot and plays on; the first comes back
and takes the seat back, all by clicking."""

from __future__ import annotations

import random

import httpx
import pytest
from playwright.sync_api import Browser, Page

from .conftest import ABSENT_AFTER
from .helpers import create_game, is_over, my_turn, seq, start_game, take_turn, wait_for_news

pytestmark = pytest.mark.browser

SEAT_KIND = "s => window.__elfenland && window.__elfenland.page.summary.seats[s].kind"


def play_until(pg: Page, rng: random.Random, done: str, arg: object, turns: int = 200) -> None:
    """Take this page's turns until the JavaScript predicate ``done(arg)`` holds."""
    for _ in range(turns):
        if pg.evaluate(done, arg):
            return
        assert not is_over(pg), "the game ended first"
        if my_turn(pg):
            take_turn(pg, rng)
        else:
            wait_for_news((pg,))
    raise AssertionError(f"not reached after {turns} turns: {done}")


def test_absent_players_seat_goes_to_a_bot_and_back(browser: Browser, server: str) -> None:
    a_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    b_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        create_game(a, server, players=2, bots=0, name="Ann")
        link = a.locator("#share-link").input_value()
        b.goto(link)
        b.wait_for_selector("[data-join]")
        b.fill("#join-name", "Bob")
        b.click("[data-join]")
        b.wait_for_selector(".game .panel")  # full: it starts
        start_game(a)
        b.wait_for_selector(".game .panel")
        rng = random.Random(8)
        for _ in range(200):  # a few turns each before Bob leaves
            if int(seq(a) or 0) >= 4:
                break
            acted = False
            for pg in (a, b):
                if my_turn(pg):
                    take_turn(pg, rng)
                    acted = True
            if not acted:
                wait_for_news((a, b))
        assert int(seq(a)) >= 4
        # Bob closes his page: Ann sees him gone and, once he counts as absent, hands his
        # seat to a bot.
        b.close()
        a.wait_for_selector(".panel[data-seat='1'] [data-tobot='1']")
        assert a.locator(".panel[data-seat='1'] .dot.off").count() == 1
        a.wait_for_timeout(int(ABSENT_AFTER * 1000) + 300)
        a.click("[data-tobot='1']")
        a.wait_for_function(f"() => ({SEAT_KIND})(1) === 'bot'")
        assert "Bob" in a.locator(".panel[data-seat='1'] .nm").inner_text()
        handed = int(seq(a) or 0)
        # The game goes on: Ann plays her turns, the bot Bob's.
        bot_played = ("n => window.__elfenland.page.log.filter(e => e.player === 1 && e.seq > n)"
                      ".length >= 3")
        play_until(a, rng, bot_played, handed)
        # Bob comes back (his seat token is still in this browser) and takes his seat back.
        b = b_ctx.new_page()
        b.goto(link)
        b.wait_for_selector(".panel[data-seat='1'] [data-takeback='1']")
        assert not my_turn(b)  # the bot still plays for him
        b.click("[data-takeback='1']")
        for pg in (a, b):
            pg.wait_for_function(f"() => ({SEAT_KIND})(1) === 'human'")
        assert b.locator("[data-takeback]").count() == 0
        # And he plays again himself.
        back = int(seq(b) or 0)
        bob_played = ("n => window.__elfenland.page.log.filter(e => e.player === 1 && e.seq > n)"
                      ".length >= 2")
        for _ in range(300):
            if b.evaluate(bob_played, back):
                break
            acted = False
            for pg in (a, b):
                if my_turn(pg):
                    take_turn(pg, rng)
                    acted = True
            if not acted:
                wait_for_news((a, b))
        assert b.evaluate(bob_played, back)
        assert a.evaluate(f"() => ({SEAT_KIND})(1)") == "human"
    finally:
        a_ctx.close()
        b_ctx.close()


def test_a_name_being_typed_in_the_waiting_room_survives_its_redrawing(
        browser: Browser, server: str) -> None:
    """The waiting room is drawn again whenever its seats change (and on a 3 s poll): a
    visitor halfway through typing a name keeps the name, the focus and the caret."""
    a_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    b_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        a, b = a_ctx.new_page(), b_ctx.new_page()
        gid = create_game(a, server, players=3, bots=0, name="Ann")
        b.goto(a.locator("#share-link").input_value())
        b.wait_for_selector("[data-join]")
        b.fill("#join-name", "Bobb")
        b.focus("#join-name")
        b.press("#join-name", "ArrowLeft")  # the caret before the last letter
        b.evaluate("() => { window.__room = document.querySelector('.waiting'); }")
        # Someone else takes a seat: every page in the room is drawn again.
        joined = httpx.post(f"{server}/api/games/{gid}/join", json={"name": "Cid"})
        assert joined.status_code == 200, joined.text
        b.wait_for_function("() => document.querySelector('.waiting') !== window.__room"
                            " && document.querySelector('.waiting').textContent"
                            ".includes('Cid')")
        assert b.input_value("#join-name") == "Bobb"
        assert b.evaluate("() => [document.activeElement.id,"
                          " document.activeElement.selectionStart]") == ["join-name", 3]
        b.keyboard.press("Backspace")  # typing goes on where it was: "Bob"
        b.click("[data-join]")
        b.wait_for_selector(".game .panel")  # the last seat taken: it starts
        names = httpx.get(f"{server}/api/games/{gid}").json()["game"]["seats"]
        assert [s.get("name") for s in names] == ["Ann", "Cid", "Bob"]
    finally:
        a_ctx.close()
        b_ctx.close()
