"""The "Suggest a route" button: the server's planner answers, the page draws the route on
the board step by step and keeps the rest of it once a step is taken."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Page

from .helpers import (
    SCREENSHOTS,
    confirm_if_asked,
    create_game,
    is_over,
    phase_key,
    seq,
    start_game,
    take_turn,
    wait_turn_or_end,
)

pytestmark = pytest.mark.browser

SERVER_HINT = """async () => {
  const p = window.__elfenland.page;
  const r = await fetch(`/api/games/${p.id}/hint?token=${encodeURIComponent(p.mine.token)}`);
  return await r.json();
}"""


def drawn_steps(page: Page) -> list[str]:
    return list(page.eval_on_selector_all(
        ".board .hint-step", "els => els.map(e => e.dataset.hintStep)"))


def test_suggest_a_route_draws_the_servers_route(page: Page, server: str) -> None:
    # A seeded deal (the bot's choices follow from it): an unseeded one once ended with no
    # route of two steps ever to suggest.
    create_game(page, server, players=2, bots=1, level="random", route_hint=True, seed=7)
    # The table says it has route hints and is unrated.
    summary = page.evaluate("window.__elfenland.page.summary")
    assert summary["route_hint"] and summary["unrated"]
    start_game(page)
    rng = random.Random(2)
    seen: dict[str, Any] | None = None
    for _ in range(400):
        wait_turn_or_end(page)
        assert not is_over(page), "the game ended before a route could be suggested"
        if phase_key(page) == "move" and page.locator("[data-hint]").count():
            page.click("[data-hint]")
            page.wait_for_selector("#hint")
            answer = page.evaluate(SERVER_HINT)
            steps = answer["route"]
            # A first step by caravan (or the boatmen) is paid by picking cards, not from
            # the town's menu: this test takes the first step from the menu.
            picked = steps and steps[0]["action"].split()[-1].startswith(("caravan:",
                                                                           "boatmen:"))
            if len(steps) >= 2 and not picked:
                seen = answer
                break
            assert drawn_steps(page) == [str(i + 1) for i in range(len(steps))]
        take_turn(page, rng)
    assert seen is not None, "never had a route of two steps to suggest"
    steps = seen["route"]
    # Every step is traced on its road, numbered, with the cards it pays.
    assert drawn_steps(page) == [str(i + 1) for i in range(len(steps))]
    traced = page.eval_on_selector_all(".board path.hint-path", "els => els.length")
    assert traced == len(steps)
    assert page.locator(".board .hint-cards").count() == len(steps)
    assert page.locator("#hint li").count() == len(steps)
    names = page.evaluate("() => window.__elfenland.page.ui.index.townName"
                          f"({steps[-1]['to']!r})")
    assert names in page.locator("#hint").inner_text()
    page.screenshot(path=str(SCREENSHOTS / "elfenland-hint.png"))
    # Taking the first step by clicking its town keeps the rest of the route, renumbered on.
    before = seq(page)
    first = steps[0]
    page.click(f".board .town[data-town='{first['to']}']", force=True)
    if page.locator(".menu").count():
        page.click(f".menu [data-action='{first['action']}']")
    confirm_if_asked(page)
    page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    page.wait_for_function("n => document.querySelectorAll('.board .hint-step').length === n",
                           arg=len(steps) - 1)
    assert drawn_steps(page) == [str(i + 2) for i in range(len(steps) - 1)]
    log = page.locator("#log li").first.inner_text()
    assert page.evaluate(f"() => window.__elfenland.page.ui.index.townName({first['to']!r})") in log


def test_no_route_hint_at_a_table_created_without_it(page: Page, server: str) -> None:
    create_game(page, server, players=2, bots=1, level="random")
    start_game(page)
    assert not page.evaluate("window.__elfenland.page.summary.route_hint")
    rng = random.Random(4)
    for _ in range(300):
        wait_turn_or_end(page)
        assert not is_over(page)
        if phase_key(page) == "move":
            break
        take_turn(page, rng, prefer=("pass",))
    else:
        raise AssertionError("never reached the move phase")
    assert page.locator("[data-hint]").count() == 0
    answer = page.evaluate(SERVER_HINT)
    assert answer["code"] == "bad-request"
