"""Being told it is one's turn: a browser notification when the tab is hidden
(notifications allowed in the test's browser context), the lobby's "games waiting for
you", and the leaderboard where bots are rated too."""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Browser
from tests.server.helpers import play_seat

from .helpers import create_game, my_turn, start_game, take_turn

pytestmark = pytest.mark.browser

#: Lets the test hide the tab (headless Chromium keeps every tab visible) and records the
#: notifications the page makes, while still making them.
HIDE_AND_RECORD = """
(() => {
  window.__hidden = false;
  Object.defineProperty(Document.prototype, 'hidden', { get: () => window.__hidden });
  Object.defineProperty(Document.prototype, 'visibilityState',
                        { get: () => (window.__hidden ? 'hidden' : 'visible') });
  window.__notes = [];
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notes.push([title, options && options.body]);
    }
  };
  Object.defineProperty(window.Notification, 'permission', { get: () => Real.permission });
  window.Notification.requestPermission = (...a) => Real.requestPermission(...a);
})();
"""


def test_a_hidden_tab_is_notified_of_its_turn(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
    ctx.grant_permissions(["notifications"], origin=server)
    ctx.add_init_script(HIDE_AND_RECORD)
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        create_game(page, server, players=2, bots=1, level="random")
        start_game(page)
        assert page.evaluate("Notification.permission") == "granted"
        assert page.locator("#notify-ask").count() == 0  # already allowed: nothing to ask
        rng = random.Random(2)
        page.wait_for_selector("#turn.mine")
        assert page.evaluate("window.__notes") == []  # visible: no notification
        page.evaluate("window.__hidden = true")
        take_turn(page, rng)  # the bot answers; the turn comes back to the hidden tab
        page.wait_for_function(
            "() => window.__notes.length > 0 || document.querySelector('.final')")
        notes = page.evaluate("window.__notes")
        assert notes and notes[0][0] == "Your turn" and "Elfenland" in notes[0][1]
        assert page.title().startswith("(1) ")  # the badge counts the turn missed
        page.evaluate("window.__hidden = false; "
                      "document.dispatchEvent(new Event('visibilitychange'))")
        assert not page.title().startswith("(")
        assert not errors, errors
    finally:
        ctx.close()


def test_the_lobby_lists_games_waiting_for_me(browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
    try:
        page = ctx.new_page()
        page.goto(f"{server}/")
        page.wait_for_selector("body[data-ready='1']")
        # One name field (under "New game"); the settings panel saves it.
        assert page.locator("input[name=pname]").count() == 0
        page.fill("input[name=name]", "Ann the player")
        page.click("#player-panel > summary")
        page.click("#player-save")
        page.wait_for_selector(".toast:has-text('Saved')")
        player = page.evaluate("JSON.parse(localStorage.getItem('elfenland.player'))")
        assert player["name"] == "Ann the player" and player["token"]
        gid = create_game(page, server, players=2, bots=1, level="random", name="")
        start_game(page)
        page.wait_for_selector("#turn.mine")
        assert "Ann the player" in page.locator(".panel[data-seat='0'] .nm").inner_text()
        page.goto(f"{server}/#/")
        page.wait_for_selector(f".waiting-row[data-game='{gid}']")
        page.click(f".waiting-row[data-game='{gid}'] a")
        page.wait_for_selector("#turn.mine")
        assert my_turn(page)
    finally:
        ctx.close()


def _post(url: str, body: dict[str, object]) -> dict[str, object]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return dict(json.loads(r.read()))


def test_the_leaderboard_rates_players_and_bots(browser: Browser, server: str) -> None:
    # Rated: a game of two players (and a bot) with a drawn seed; games against bots
    # alone are not (docs/server.md, "Ratings").
    ann = _post(f"{server}/api/players", {"name": "Ann"})
    cy = _post(f"{server}/api/players", {"name": "Cy"})
    made = _post(f"{server}/api/games", {
        "game": "king-of-the-elves", "players": 3, "player": ann["token"],
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "greedy"}]})
    gid = made["game"]["id"]  # type: ignore[index]
    joined = _post(f"{server}/api/games/{gid}/join", {"player": cy["token"]})
    _post(f"{server}/api/games/{gid}/start", {"token": made["token"]})
    ws = server.replace("http://", "ws://")

    async def both() -> None:
        await asyncio.gather(play_seat(ws, str(gid), str(made["token"]), 0),
                             play_seat(ws, str(gid), str(joined["token"]), 1))

    # Playwright's sync API runs an event loop in this thread: play in another one.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, both()).result(timeout=120)
    deadline = time.monotonic() + 60
    while True:
        with urllib.request.urlopen(f"{server}/api/games/{gid}", timeout=10) as r:
            if json.loads(r.read())["game"]["status"] == "finished":
                break
        assert time.monotonic() < deadline
        time.sleep(0.2)
    # The rating is stored after the game ends, away from its play: wait for both
    # players' rows (a bot's row may be there already from another test's game).
    rated = {ann["player"]["id"], cy["player"]["id"]}  # type: ignore[index]
    while True:
        with urllib.request.urlopen(
                f"{server}/api/ratings?game=king-of-the-elves", timeout=10) as r:
            if rated <= {row["player"] for row in json.loads(r.read())["ratings"]}:
                break
        assert time.monotonic() < deadline
        time.sleep(0.2)
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
    try:
        page = ctx.new_page()
        page.goto(f"{server}/#/leaderboard")
        page.wait_for_selector("[data-board='king-of-the-elves']")
        page.click("[data-board='king-of-the-elves']")
        # The board shown first (another game's) may hold a greedy bot's row too: wait
        # for the rows of this game's two players, which only this board has.
        for player in rated:
            page.wait_for_selector(f"#board tr[data-player='{player}']")
        page.wait_for_selector("#board tr[data-player='bot:greedy']")
        rows = page.locator("#board tbody tr")
        assert rows.count() >= 3
        assert "Medium" in page.locator("#board tr[data-player='bot:greedy']").inner_text()
        ratings = [float(x) for x in page.eval_on_selector_all(
            "#board tbody tr td.num:nth-child(3)", "els => els.map(e => e.textContent)")]
        assert ratings == sorted(ratings, reverse=True)
    finally:
        ctx.close()
