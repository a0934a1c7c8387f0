"""The table talk says how a finished game counted for the ratings: the server's
``rated`` and ``unrated`` events (docs/protocol.md, Ratings) are lines in words, not
their bare kinds."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .helpers import create_game

pytestmark = pytest.mark.browser

EVENTS = [
    {"n": 901, "kind": "rated", "seat": None, "seq": 5, "ratings": []},
    {"n": 902, "kind": "unrated", "seat": None, "seq": 5, "reason": "unrated-table",
     "left_out": []},
    {"n": 903, "kind": "unrated", "seat": None, "seq": 5, "reason": "too-few-players",
     "left_out": [{"seat": 1, "why": "bot-played"}]},
]


def test_rating_decisions_are_told_in_words(page: Page, server: str) -> None:
    create_game(page, server, players=2, bots=1)
    page.wait_for_selector(".game .panel")
    page.wait_for_function("() => window.__elfenland && window.__elfenland.page.chat")
    for e in EVENTS:
        page.evaluate("(e) => window.__elfenland.page.chat.add(e)", e)
    lines = {n: page.locator(f".chat-list li[data-n='{n}']").inner_text()
             for n in (901, 902, 903)}
    assert "ratings" in lines[901] and lines[901] != "rated"
    assert "not rated" in lines[902] and "seed" in lines[902]
    assert "not rated" in lines[903] and "fewer than two" in lines[903]
