"""A game whose creator chose the seed shows it to everyone in the lobby (issue #12)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def test_the_lobby_shows_a_chosen_seed_and_hides_a_drawn_one(page: Page, server: str) -> None:
    chosen = httpx.post(f"{server}/api/games", json={"players": 3, "seed": 4242, "name": "Ann"},
                        timeout=30).json()["game"]["id"]
    drawn = httpx.post(f"{server}/api/games", json={"players": 3, "name": "Bob"},
                       timeout=30).json()["game"]["id"]
    page.goto(f"{server}/")
    row = page.locator(f"#open-games [data-game='{chosen}']")
    row.wait_for()
    assert "Chosen seed 4242 (unrated)" in row.inner_text()
    other = page.locator(f"#open-games [data-game='{drawn}']")
    other.wait_for()
    assert "seed" not in other.inner_text().lower()


def test_the_lobby_marks_custom_rules_unrated(page: Page, server: str) -> None:
    """Options that leave the rule set make the game custom and unrated (issue #22)."""
    custom = httpx.post(f"{server}/api/games",
                        json={"players": 3, "name": "Cy", "options": {"rounds": 2}},
                        timeout=30).json()["game"]
    assert custom["custom_rules"] and custom["unrated"]
    page.goto(f"{server}/")
    row = page.locator(f"#open-games [data-game='{custom['id']}']")
    row.wait_for()
    assert "Custom rules (unrated)" in row.inner_text()
