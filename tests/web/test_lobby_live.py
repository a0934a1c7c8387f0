"""The lobby page follows the lobby feed (/ws/lobby): a game created, a player who opens
their game and "your turn" show up without reloading, changes are announced politely,
and after the feed drops the page reconnects and fetches the lists afresh."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from .axe import serious_violations
from .helpers import play_until

pytestmark = pytest.mark.browser


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return dict(json.loads(r.read()))


def _lobby(page: Page, server: str) -> None:
    page.goto(f"{server}/")
    page.wait_for_selector(".lobby[data-feed='live']")
    # The lists were fetched after the feed's hello.
    page.wait_for_selector("#open-games .game-row, #open-games .muted", state="attached")


def _no_polling(page: Page) -> list[str]:
    """Records the lobby's list requests from now on."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/games" in r.url else None)
    return asked


def test_the_lobby_updates_live(page: Page, server: str) -> None:
    _lobby(page, server)
    asked = _no_polling(page)
    made = _post(f"{server}/api/games", {
        "players": 2, "name": "Zed", "seats": [{"kind": "human"}, {"kind": "open"}]})
    gid = made["game"]["id"]
    row = page.locator(f"#open-games .game-row[data-game='{gid}']")
    row.wait_for()
    assert "Zed" in row.inner_text()
    assert row.locator("[data-connected]").count() == 0
    page.wait_for_function(
        "() => document.querySelector('#lobby-live').textContent.includes('waiting for players')")
    # Zed opens the game: the seat shows as online, in words for a screen reader too.
    ctx = page.context.browser.new_context() if page.context.browser else None
    assert ctx is not None
    try:
        zed = ctx.new_page()
        zed.goto(f"{server}/#/game/{gid}")
        zed.evaluate(f"localStorage.setItem('elfenland.seats', JSON.stringify("
                     f"{{'{gid}': {{seat: 0, token: '{made['token']}', name: 'Zed'}}}}))")
        zed.reload()
        page.wait_for_selector(f"#open-games [data-game='{gid}'] [data-seat='0'][data-connected]")
        chip = page.locator(f"#open-games [data-game='{gid}'] [data-seat='0']")
        assert "online" in chip.inner_text()
        assert serious_violations(page) == []
    finally:
        ctx.close()
    page.wait_for_selector(
        f"#open-games [data-game='{gid}'] [data-seat='0']:not([data-connected])")
    # No list was fetched for any of this: the feed brought it.
    assert asked == [], asked


def test_your_turn_arrives_live(page: Page, server: str) -> None:
    made = _post(f"{server}/api/games", {
        "players": 2, "name": "Ann", "seats": [{"kind": "human"}, {"kind": "open"}]})
    gid, token = made["game"]["id"], made["token"]
    page.goto(f"{server}/")
    page.evaluate(f"localStorage.setItem('elfenland.seats', JSON.stringify("
                  f"{{'{gid}': {{seat: 0, token: '{token}', name: 'Ann'}}}}))")
    _lobby(page, server)
    page.wait_for_selector(f"#my-games [data-game='{gid}']")
    assert page.locator(f".waiting-row[data-game='{gid}']").count() == 0
    joined = _post(f"{server}/api/games/{gid}/join", {"name": "Bob"})
    _post(f"{server}/api/games/{gid}/start", {"token": token})
    # Ann's turn (the start says so), Bob's (a "turn" event), Ann's again.
    waiting = f".waiting-row[data-game='{gid}']"
    page.wait_for_selector(waiting)
    ws = server.replace("http", "ws")
    assert play_until(ws, gid, token, 0, 1) > 0
    page.wait_for_selector(waiting, state="detached")
    assert play_until(ws, gid, joined["token"], 1, 0) > 0
    page.wait_for_selector(waiting)
    page.wait_for_function(
        "() => document.querySelector('#lobby-live').textContent.startsWith('Your turn')")
    # The feed drops (a process draining): the page reconnects and fetches the lists.
    # (It asks once the feed is back: waited for, as on a loaded machine that may take
    # longer than the half second this test once allowed.)
    with page.expect_response(lambda r: "/api/games" in r.url):
        page.evaluate("window.__elfenlandLobby.feed.drop()")
        page.wait_for_selector(".lobby[data-feed='offline']")
        page.wait_for_selector(".lobby[data-feed='live']")
    page.wait_for_timeout(500)  # the lists drawn again: the row is still there, once
    assert page.locator(f".waiting-row[data-game='{gid}']").count() == 1


def test_a_table_left_before_its_first_answer_does_not_draw_over_the_lobby(
        page: Page, server: str) -> None:
    """A table's first HTTP answer held until the player has gone back to the lobby (on
    a loaded machine the socket's hello draws the waiting room first, and the player
    may leave before the answer comes): the answer, when it comes, must not replace the
    lobby with the waiting room it was for (it once did, leaving a lobby that never
    showed its games)."""
    made = _post(f"{server}/api/games", {
        "players": 2, "name": "Ann", "seats": [{"kind": "human"}, {"kind": "open"}]})
    gid = made["game"]["id"]
    held: list[Any] = []
    page.route(f"**/api/games/{gid}", lambda route: held.append(route))
    page.goto(f"{server}/#/game/{gid}")
    page.wait_for_selector(".waiting")  # drawn from the socket's hello
    assert len(held) == 1  # the table's own question, not yet answered
    page.goto(f"{server}/#/")
    page.wait_for_selector(f"#open-games .game-row[data-game='{gid}']")
    with page.expect_response(lambda r: r.url.endswith(f"/api/games/{gid}")):
        held[0].continue_()
    page.unroute(f"**/api/games/{gid}")
    page.wait_for_timeout(1000)  # the answer read and acted on (microseconds)
    assert page.locator(".waiting").count() == 0
    assert page.locator(f"#open-games .game-row[data-game='{gid}']").is_visible()
    assert page.locator("#create-form").is_visible()


def test_the_lobby_with_the_feed_is_accessible(browser: Browser, server: str) -> None:
    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 720})
    try:
        page = ctx.new_page()
        _lobby(page, server)
        _post(f"{server}/api/games", {"players": 2, "name": "Léa",
                                      "seats": [{"kind": "human"}, {"kind": "open"}]})
        page.wait_for_function(
            "() => document.querySelector('#lobby-live').textContent.includes('attend')")
        assert serious_violations(page) == []
    finally:
        ctx.close()
