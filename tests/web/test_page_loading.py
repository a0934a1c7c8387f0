"""What a page asks the server for as it opens: nothing it does not use (Chromium warns
in the console about a preload left unused), and the board once for a table that draws
it."""

from __future__ import annotations

from playwright.sync_api import Browser, ConsoleMessage, Request

from .conftest import checked_page
from .helpers import create_game

#: Chromium reports an unused preload some seconds after the page's load event.
UNUSED_PRELOAD_AFTER_MS = 4500


def _watch(page: object, warnings: list[str], maps: list[str]) -> None:
    def console(msg: ConsoleMessage) -> None:
        if msg.type in ("warning", "error"):
            warnings.append(msg.text)

    def request(req: Request) -> None:
        if "/api/maps/" in req.url:
            maps.append(req.url)

    page.on("console", console)  # type: ignore[attr-defined]
    page.on("request", request)  # type: ignore[attr-defined]


def test_the_lobby_and_a_king_of_the_elves_table_fetch_no_board(
        browser: Browser, server: str) -> None:
    with checked_page(browser) as page:
        warnings: list[str] = []
        maps: list[str] = []
        _watch(page, warnings, maps)
        page.goto(f"{server}/")
        page.wait_for_selector("body[data-ready='1']")
        page.wait_for_timeout(UNUSED_PRELOAD_AFTER_MS)
        assert maps == []
        assert not [w for w in warnings if "preload" in w], warnings
        create_game(page, server, game="king-of-the-elves", players=2, bots=1)
        page.wait_for_selector(".game .panel")
        page.wait_for_timeout(UNUSED_PRELOAD_AFTER_MS)
        assert not [w for w in warnings if "preload" in w], warnings


def test_an_elfenland_table_fetches_the_board_once(browser: Browser, server: str) -> None:
    with checked_page(browser) as page:
        warnings: list[str] = []
        maps: list[str] = []
        _watch(page, warnings, maps)
        create_game(page, server, players=2, bots=1)
        page.wait_for_selector(".game .panel")
        page.wait_for_selector("#board svg")
        page.reload()
        page.wait_for_selector("#board svg")
        page.evaluate("location.hash = '#/'")
        page.wait_for_selector("body[data-ready='1']")
        page.go_back()
        page.wait_for_selector("#board svg")
        # Once per document: the reload is a new one; going back within it asks no more.
        assert len(maps) == 2, maps
        assert not [w for w in warnings if "preload" in w], warnings
