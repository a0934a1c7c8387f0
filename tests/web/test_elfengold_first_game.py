"""A first game of Elfengold as a new player plays it, by clicking only: what got in the
way (2 and 4 players at a desk, and a phone)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from .helpers import confirm_if_asked, create_game, is_over, my_turn, seq, wait_for_news

pytestmark = pytest.mark.browser


def view(page: Page) -> dict[str, Any]:
    return dict(page.evaluate("() => window.__elfenland.page.view"))


def pass_until(page: Page, phase: str, limit: int = 80) -> None:
    """Play as a cautious newcomer does (the first item face down, pass, end the move at
    once, the first card offered, the first item kept) until this player is to act in
    ``phase``."""
    for _ in range(limit):
        assert not is_over(page)
        if not my_turn(page):
            wait_for_news((page,))
            continue
        v = view(page)
        if v["phase"] == phase:
            return
        before = seq(page)
        button = {"draw-items": "#hide-items [data-action]", "auction": "#pass-btn",
                  "place": "#place-pass", "move": "#end-move", "settle": "#cards-btn",
                  "draw-cards": "#display [data-action]", "move-draw": "#display [data-action]",
                  "keep": "#keep-items [data-action]",
                  "discard": ".hand.discarding [data-action]"}[v["phase"]]
        page.locator(button).first.click()
        confirm_if_asked(page)
        page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    raise AssertionError(f"never my turn to play {phase}")


def test_the_gold_deck_shows_its_count_on_itself(page: Page, server: str) -> None:
    """The gold deck button carries how many gold cards it holds in its corner, as the
    pile beside it does; the count was placed against the page instead, a stray badge in
    the window's bottom corner."""
    create_game(page, server, game="elfengold", players=2, bots=1, level="greedy", seed=21)
    page.wait_for_selector(".game .panel")
    pass_until(page, "move-draw")  # a move ended at once: two cards are drawn
    deck = page.locator("#gold-deck").bounding_box()
    count = page.locator("#gold-deck .count").bounding_box()
    assert deck and count
    assert page.locator("#gold-deck .count").inner_text() == str(view(page)["gold_deck"])
    # The badge sits on the deck's corner (it may stick out by a few pixels).
    assert deck["x"] - 8 <= count["x"] <= deck["x"] + deck["width"] + 8, (deck, count)
    assert deck["y"] - 8 <= count["y"] <= deck["y"] + deck["height"] + 8, (deck, count)


def test_the_gold_values_are_not_under_the_town_names(page: Page, server: str) -> None:
    """Each town's gold value is a coin beside the town; it lay half under the town's
    name (drawn over it), so that Rivinia's 3 or Feodor's 4 was hard to read."""
    page.set_viewport_size({"width": 1280, "height": 800})
    create_game(page, server, game="elfengold", players=2, bots=1, level="greedy", seed=21)
    page.wait_for_selector(".gold-value")
    covered = page.evaluate("""() => [...document.querySelectorAll('.gold-value')].filter(g => {
        const c = g.querySelector('circle').getBoundingClientRect();
        const l = document.querySelector(`.town[data-town='${g.dataset.goldValue}'] .town-label`)
            .getBoundingClientRect();
        return Math.min(c.right, l.right) > Math.max(c.left, l.left)
            && Math.min(c.bottom, l.bottom) > Math.max(c.top, l.top);
    }).map(g => g.dataset.goldValue)""")
    assert covered == []
    assert page.locator(".gold-value").count() == 20


PHONE = {"width": 390, "height": 844}
VIEWBOX = "() => document.querySelector('svg.board').getAttribute('viewBox').split(' ').map(Number)"
#: The points the page offers on the map now (road targets, towns to travel to), in
#: board units.
OFFERED = """() => {
    const ui = window.__elfenland.page.ui;
    const roads = [...document.querySelectorAll('.road-target')]
        .map(c => [+c.getAttribute('cx'), +c.getAttribute('cy')]);
    const towns = [...document.querySelectorAll('.town[data-action], .town[data-menu]')]
        .map(g => ui.board.pos(g.dataset.town));
    return [...roads, ...towns];
}"""


def test_on_a_phone_the_items_stay_readable_and_the_map_zooms_to_the_action(
        browser: Browser, server: str) -> None:
    """On a phone the whole map is 370 px wide: Elfengold's items on the roads were 8 px
    squares (Elfenland's counters keep at least 24 px), and the map never zoomed to where
    the player was to place or travel, as Elfenland's does."""
    ctx = browser.new_context(viewport=PHONE, locale="en-GB", has_touch=True, is_mobile=True)
    try:
        page = ctx.new_page()
        page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
        create_game(page, server, game="elfengold", players=2, bots=1, level="greedy", seed=21)
        page.wait_for_selector(".game .panel")
        pass_until(page, "place")
        page.wait_for_timeout(300)  # the view settles
        x, y, w, h = page.evaluate(VIEWBOX)
        assert w < 1000, "the map did not zoom to the roads to place on"
        points = page.evaluate(OFFERED)
        assert points
        assert all(x - 1 <= px <= x + w + 1 and y - 1 <= py <= y + h + 1 for px, py in points)
        # An item of one's own on a road, then the whole map: it stays big enough to see.
        before = seq(page)
        page.locator(".road-target[data-action]").first.click()
        page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
        page.click("[data-zoom=reset]")
        page.wait_for_timeout(300)
        sizes = page.evaluate("() => [...document.querySelectorAll('.eg-items [data-item]')]"
                              ".map(e => e.getBoundingClientRect().width)")
        assert sizes and min(sizes) >= 18, sizes
        pass_until(page, "move")
        page.wait_for_timeout(300)
        x, y, w, h = page.evaluate(VIEWBOX)
        points = page.evaluate(OFFERED)
        if points:  # the boot can go somewhere: the view shows the boot and those towns
            assert w < 1000, "the map did not zoom to the boot's move"
            boot = page.evaluate("() => window.__elfenland.page.ui.board.pos("
                                 "window.__elfenland.page.ui.me().boot)")
            assert all(x - 1 <= px <= x + w + 1 and y - 1 <= py <= y + h + 1
                       for px, py in [*points, boot])
    finally:
        ctx.close()


DESK = {"width": 1280, "height": 800}
#: Whether an element is on screen and on top at its centre (not under the phone's hand
#: bar, not scrolled out of the side column): what a player sees without scrolling.
SEEN = """el => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (r.width <= 0 || x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
    const top = document.elementFromPoint(x, y);
    return !!top && (el === top || el.contains(top));
}"""


def rivals_coins_seen(page: Page) -> None:
    """Each player's coins show in the auction box, on screen, as the view has them."""
    v = view(page)
    for p in v["players"]:
        coins = page.locator(f"#auction [data-bidder='{p['seat']}'] [data-bidder-coins]")
        assert coins.count() == 1, f"no coins of seat {p['seat']} in the auction box"
        assert coins.inner_text().split()[-1] == str(p["coins"])
        assert coins.evaluate(SEEN), f"seat {p['seat']}'s coins are off screen"


def test_the_auction_shows_every_players_coins_without_scrolling(page: Page,
                                                                 server: str) -> None:
    """Bidding for a counter, a player wants to know what the others can pay: their coins
    were only in the players' panels, below the auction box and out of sight at 1280x800
    (in the side column's scrolled part) and on a phone. The auction box lists every
    player's coins and where they stand in the sale (the high bid, passed)."""
    page.set_viewport_size(DESK)
    page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
    create_game(page, server, game="elfengold", players=4, bots=3, level="greedy", seed=21)
    page.wait_for_selector(".game .panel")
    pass_until(page, "auction")
    rivals_coins_seen(page)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(300)
    rivals_coins_seen(page)
    page.set_viewport_size(DESK)
    # A bid, then the others' answers: the high bidder's row says the bid, a pass "passed".
    before = seq(page)
    page.click("#bid-btn")
    page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    for _ in range(40):
        if my_turn(page) or view(page)["phase"] != "auction":
            break
        wait_for_news((page,))
    a = view(page).get("auction")
    assert a and my_turn(page) and a["high_bidder"] is not None, a  # (the seed's story)
    page.wait_for_selector(f"#auction [data-bidder='{a['high_bidder']}'][data-state=high]")
    high = page.locator(f"#auction [data-bidder='{a['high_bidder']}']").inner_text()
    assert f"bid {a['high_bid']}" in high
    for s in a["passed"]:
        assert "passed" in page.locator(f"#auction [data-bidder='{s}']").inner_text()
    rivals_coins_seen(page)


def test_the_items_kept_show_apart_from_the_others(page: Page, server: str) -> None:
    """Keeping two items at the round's end, the first one kept only dropped out of the
    "Keep:" buttons: "Yours:" still listed it with the rest, so the player could not see
    which one they had kept. It shows apart, marked as kept."""
    page.set_viewport_size(DESK)
    page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
    create_game(page, server, game="elfengold", players=2, bots=1, level="greedy", seed=21)
    page.wait_for_selector(".game .panel")
    pass_until(page, "keep")
    before = seq(page)
    page.locator("#keep-items [data-action]").first.click()
    confirm_if_asked(page)
    page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    me = view(page)["players"][view(page)["viewer"]]
    kept = me["kept_items"] + me["kept_face_down"]
    assert len(kept) == 1, me  # one of two kept: the step goes on
    box = page.locator("#kept-items")
    assert box.count() == 1, "the item kept does not show apart"
    assert box.locator(".lbl").inner_text() == "Kept:"
    assert [box.locator("[data-kept]").nth(i).get_attribute("data-kept")
            for i in range(box.locator("[data-kept]").count())] == kept
    assert "(kept)" in str(box.locator("[data-kept]").first.get_attribute("title"))
    assert box.evaluate(SEEN)
    # "Yours:" holds the others only.
    yours = page.locator("#my-items .token").count()
    assert yours == len(me["items"]) + len(me["face_down"])
