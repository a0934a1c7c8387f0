"""Issue #17: a table a new player can use without misclicks. Choices that cannot be taken
back are confirmed (a preference), a caravan is paid by picking cards in the hand, Escape
closes menus and dialogs."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from .axe import serious_violations
from .helpers import (
    SCREENSHOTS,
    create_game,
    is_over,
    more_options,
    phase_key,
    seq,
    start_game,
    take_turn,
    wait_turn_or_end,
)

pytestmark = pytest.mark.browser

I18N = Path(__file__).resolve().parents[2] / "src" / "elfenland" / "web" / "static" / "i18n"
LEGAL = "() => window.__elfenland.page.view.legal || []"


def play_until_phase(page: Page, rng: random.Random, phase: str, turns: int = 300) -> None:
    for _ in range(turns):
        wait_turn_or_end(page)
        assert not is_over(page), f"the game ended before phase {phase}"
        if phase_key(page) == phase:
            return
        take_turn(page, rng)
    raise AssertionError(f"never reached {phase}")


def test_placing_and_ending_a_move_are_confirmed_and_the_preference_is_kept(
        page: Page, server: str) -> None:
    create_game(page, server, players=2, bots=1)
    start_game(page)
    rng = random.Random(4)
    play_until_phase(page, rng, "place")
    page.wait_for_selector(".road-target[data-action]")
    before = seq(page)
    target = page.locator(".road-target[data-action]").first
    action = target.get_attribute("data-action")
    assert action and action.startswith("place ")
    target.click(force=True)
    # A question, with the focus on its "yes", that names the counter and the road.
    dialog = page.locator(".confirm[role=alertdialog]")
    assert dialog.is_visible()
    assert page.evaluate("document.activeElement.id") == "confirm-ok"
    question = dialog.locator("p").inner_text()
    for town in action.split()[2].split("-"):
        name = page.evaluate("id => window.__elfenland.page.ui.index.townName(id)", town)
        assert name in question
    page.screenshot(path=str(SCREENSHOTS / "elfenland-confirm.png"))
    # Escape says no: nothing was sent.
    page.keyboard.press("Escape")
    assert page.locator(".confirm").count() == 0
    page.wait_for_timeout(300)
    assert seq(page) == before
    # Cancel says no too.
    target.click(force=True)
    page.click("#confirm-cancel")
    page.wait_for_timeout(300)
    assert seq(page) == before
    # Yes sends it.
    target.click(force=True)
    page.click("#confirm-ok")
    page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    # The preference: never ask. It is kept in this browser for every table.
    page.locator("#prefs summary").click()
    page.select_option("#confirm-pref", "off")
    assert page.evaluate("localStorage.getItem('elfenland.confirm')") == "off"
    for _ in range(300):
        wait_turn_or_end(page)
        assert not is_over(page)
        legal = page.evaluate(LEGAL)
        if any(a.startswith("place ") for a in legal):
            before = seq(page)
            page.locator(".road-target[data-action]").first.click(force=True)
            assert page.locator(".confirm").count() == 0
            page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
            break
        take_turn(page, rng)
    else:
        raise AssertionError("no second placement")
    page.evaluate("localStorage.setItem('elfenland.confirm', 'always')")


def test_a_caravan_is_paid_by_picking_cards_then_the_town(page: Page, server: str) -> None:
    create_game(page, server, players=2, bots=1)
    start_game(page)
    rng = random.Random(6)
    caravan = None
    for _ in range(400):
        wait_turn_or_end(page)
        assert not is_over(page), "no caravan was ever possible"
        legal = page.evaluate(LEGAL)
        caravans = [a for a in legal if " caravan:" in a
                    and len(set(a.split(":")[1].split("+"))) > 1]
        if phase_key(page) == "move" and caravans:
            caravan = caravans[0]
            break
        take_turn(page, rng, prefer=("place ",))
    assert caravan is not None
    town = caravan.split()[1].split("-")[1]
    cards = caravan.split(":")[1].split("+")
    # No list of every combination: a town only a caravan reaches shows its price on the
    # board and its menu explains the caravan; a town with a price pays that price.
    step = caravan.split()[1]
    direct = [a for a in legal if a.split()[:2] == ["move", step] and ":" not in a]
    page.click(f".board .town[data-town='{town}']", force=True)
    if len(direct) == 1:
        page.wait_for_selector(".confirm")
        page.keyboard.press("Escape")
    else:
        # Several fixed prices (a road and a river to the same town) or none: a menu
        # lists the fixed prices and explains the caravan, without its combinations.
        page.wait_for_selector(".menu")
        if not direct:
            assert page.locator(f".board .caravan-badge[data-badge='{town}']").count() == 1
        assert page.locator(".menu .opt").count() == len(direct)
        assert page.locator(".menu .opt.combo").count() == 0
        assert page.locator(".menu .caravan-how").count() == 1
        assert page.evaluate("document.activeElement.closest('.menu') !== null")
        page.keyboard.press("Escape")
        assert page.locator(".menu").count() == 0
    assert page.locator(".menu, .confirm").count() == 0
    # Pick the cards in the hand (any order), then the town.
    for kind in cards:
        free = page.locator(f".hand [data-card='{kind}'][aria-pressed=false]")
        free.first.click()
    assert page.locator(".hand [data-pick][aria-pressed=true]").count() == len(cards)
    assert page.locator("#picked").is_visible()
    # Only the towns these cards pay for stay clickable, the chosen one with its caravan.
    page.wait_for_selector(f".board .town[data-town='{town}'][data-action]")
    sent = page.get_attribute(f".board .town[data-town='{town}']", "data-action")
    assert sent is not None and sorted(sent.split(":")[1].split("+")) == sorted(cards)
    page.screenshot(path=str(SCREENSHOTS / "elfenland-caravan.png"))
    before = seq(page)
    page.click(f".board .town[data-town='{town}']", force=True)
    page.click("#confirm-ok")
    page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    last = page.evaluate("() => window.__elfenland.page.log.at(-1).action")
    assert last.startswith("move ") and "caravan:" in last, last
    assert page.locator(".hand [data-pick][aria-pressed=true]").count() == 0


def test_your_games_are_yours_and_a_game_with_bots_starts_at_once(page: Page, server: str) -> None:
    # You and three bots: the table opens without a waiting room or a Start button.
    solo = create_game(page, server, players=4, bots=3)
    page.wait_for_selector(".game .panel")
    assert page.locator("#start-btn").count() == 0
    assert page.evaluate("() => window.__elfenland.page.summary.status") == "running"
    # A game still waiting for a friend: in the lobby it is under "your games", not offered
    # to join — and so is the running one.
    waiting = create_game(page, server, players=3, bots=1)
    page.wait_for_selector(".waiting #start-btn")
    page.goto(f"{server}/#/")
    page.wait_for_selector(f"#my-games .game-row[data-game='{waiting}']")
    assert page.locator(f"#my-games .game-row[data-game='{solo}']").count() == 1
    assert page.locator(f"#open-games .game-row[data-game='{waiting}']").count() == 0
    # Another browser (no seat in it) sees it as an open game to join.
    other = page.context.browser.new_context()  # type: ignore[union-attr]
    try:
        pg = other.new_page()
        pg.goto(f"{server}/#/")
        pg.wait_for_selector(f"#open-games .game-row[data-game='{waiting}']")
        assert pg.locator(f"#my-games .game-row[data-game='{waiting}']").count() == 0
    finally:
        other.close()


COSTS = [["1", "1", "–", "–"], ["1", "1", "–", "2"], ["2", "2", "–", "1"],
         ["–", "1", "2", "1"], ["1", "2", "2", "2"], ["1", "2", "1", "1"]]


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_the_rules_and_player_aid_in_every_language(browser: Browser, server: str,
                                                   lang: str) -> None:
    tables = {k: json.loads((I18N / f"{k}.json").read_text()) for k in ("en", lang)}
    text = tables[lang]
    ctx = browser.new_context(locale=lang, viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        page.goto(f"{server}/")
        page.wait_for_selector("body[data-ready='1']")
        # The lobby explains the chosen rule set.
        more_options(page)
        page.select_option("select[name=rules]", "moon")
        page.click("[data-explain='elfenland:rules']")
        aid = page.locator(".aid[role=dialog]")
        assert aid.is_visible()
        assert page.locator(".aid-sec.focus").get_attribute("data-aid") == "moon"
        assert page.evaluate("document.activeElement.id") == "aid-close"
        cells = page.eval_on_selector_all(
            ".cost-table tbody tr", "rows => rows.map(r => [...r.querySelectorAll('td')]"
            ".map(c => c.textContent.trim()))")
        assert cells == COSTS
        body = aid.inner_text()
        for key in ("aid.elf.caravan", "aid.elf.obstacle", "aid.elf.rivers", "aid.elf.lakes",
                    "aid.elf.scoring", "aid.elf.amigo", "aid.elf.moon", "aid.elf.destination"):
            assert text[key] in body, key
        if lang == "en":
            page.screenshot(path=str(SCREENSHOTS / "rules-aid.png"))
        page.keyboard.press("Escape")
        assert page.locator(".aid").count() == 0
        # King of the Elves: the journey and every card explained.
        page.click("#rules-btn")
        page.click("[data-aid-game='king-of-the-elves']")
        body = page.locator(".aid").inner_text()
        for key in ("aid.koe.order", "aid.koe.thief", "aid.koe.gold", "aid.koe.tree",
                    "aid.koe.seaMonster", "aid.koe.escort", "aid.koe.reverse",
                    "aid.koe.magic_spell", "aid.koe.weak_gold", "aid.koe.gold_for_all"):
            assert text[key] in body, key
        if lang != "en":
            assert tables["en"]["aid.koe.escort"] not in body
        page.click("#aid-close")
        assert page.locator(".aid").count() == 0
    finally:
        ctx.close()


SIZES = """() => {
  const w = (sel) => [...document.querySelectorAll(sel)].map(e => e.getBoundingClientRect())
    .filter(r => r.width > 0).map(r => Math.min(r.width, r.height));
  const scrolls = (e) => /(auto|scroll)/.test(getComputedStyle(e).overflowY)
    && e.scrollHeight > e.clientHeight + 1;
  const scrollers = [...document.querySelectorAll('body *')].filter(scrolls);
  const nested = scrollers.filter(e => scrollers.some(o => o !== e && o.contains(e)));
  return { town: Math.min(...w('.board .town-ring')), road: Math.min(...w('.road-target')),
           label: Math.min(...w('.board .town-label')), nested: nested.map(e => e.className) };
}"""


@pytest.mark.parametrize("size", [(844, 390), (390, 844)])
def test_phone_targets_names_and_one_scrolling_area(browser: Browser, server: str,
                                                   size: tuple[int, int]) -> None:
    w, h = size
    ctx = browser.new_context(viewport={"width": w, "height": h}, is_mobile=True,
                              has_touch=True, device_scale_factor=2)
    try:
        page = ctx.new_page()
        create_game(page, server, players=3, bots=2)
        start_game(page)
        rng = random.Random(3)
        play_until_phase(page, rng, "place")
        page.wait_for_selector(".road-target[data-action]")
        sizes = page.evaluate(SIZES)
        assert sizes["town"] >= 24 and sizes["road"] >= 24, sizes
        assert sizes["label"] >= 10, sizes
        assert sizes["nested"] == [], sizes
        page.screenshot(path=str(SCREENSHOTS / f"elfenland-phone-{w}x{h}.png"))
        # A tap asks before it places (the default: always), a tap on "yes" places.
        before = seq(page)
        page.locator(".road-target[data-action]").first.tap(force=True)
        page.wait_for_selector(".confirm")
        page.tap("#confirm-ok")
        page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
        # "Only on a touch screen": a tap asks, a mouse click does not.
        page.evaluate("localStorage.setItem('elfenland.confirm', 'touch')")
        for _ in range(200):
            wait_turn_or_end(page)
            assert not is_over(page)
            if page.locator(".road-target[data-action]").count():
                break
            take_turn(page, rng)
        target = page.locator(".road-target[data-action]").first
        target.tap(force=True)
        page.wait_for_selector(".confirm")
        page.tap("#confirm-cancel")
        before = seq(page)
        target.click(force=True)
        assert page.locator(".confirm").count() == 0
        page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    finally:
        ctx.close()


def test_players_and_terrains_are_told_apart_by_more_than_colour(page: Page, server: str) -> None:
    create_game(page, server, players=4, bots=3)
    start_game(page)
    wait_turn_or_end(page)
    # Boots carry their seat's number, town markers their seat's shape.
    for seat in range(4):
        boot = page.locator(f".board [data-boot='{seat}'] .seat-num")
        assert boot.text_content() == str(seat + 1)
    shapes = page.eval_on_selector_all(
        ".board .town[data-town='feodor'] .marker", "els => els.map(e => e.dataset.shape)")
    assert len(shapes) == 4 and len(set(shapes)) == 4, shapes
    panel_shapes = page.eval_on_selector_all(".panel .seat-shape",
                                             "els => els.map(e => e.dataset.shape)")
    assert panel_shapes == shapes
    # My obstacle shows my number.
    assert page.locator(".row.mine .seat-num").text_content() == "1"
    # Forest roads have a pattern of their own (as mountains and deserts do); the legend
    # draws each terrain's pattern.
    forests = page.locator(".board .route.t-forest").count()
    assert forests > 0 and page.locator(".board .route.t-forest .road-forest").count() == forests
    assert page.locator(".board .route.t-plains .road-forest").count() == 0
    for terrain, mark in (("forest", ".road-forest"), ("mountain", ".road-mountain"),
                          ("desert", ".road-desert"), ("lake", ".lake-crossing")):
        assert page.locator(f".legend [data-terrain='{terrain}'] {mark}").count() == 1


def test_no_serious_accessibility_violations(page: Page, server: str) -> None:
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready='1'] .lobby")
    assert serious_violations(page) == []
    page.click("#rules-btn")
    assert serious_violations(page) == []
    page.keyboard.press("Escape")
    create_game(page, server, players=3, bots=1)  # the waiting room
    assert serious_violations(page) == []
    # The connection badge shows only while (re)connecting, which a fast machine rarely
    # catches: each of its states is checked as shown, not by luck of timing.
    for state in ("connecting", "offline"):
        page.evaluate("s => window.__elfenland.page.setConn(s)", state)
        assert page.is_visible("#conn"), state
        assert serious_violations(page) == [], state
    page.evaluate("() => window.__elfenland.page.setConn('online')")
    for game, phase in (("elfenland", "place"), ("king-of-the-elves", "journey")):
        create_game(page, server, game=game, players=3, bots=2)
        start_game(page)
        play_until_phase(page, random.Random(2), phase, turns=400)
        assert serious_violations(page) == [], game
        page.locator("[data-action]").first.click(force=True)
        page.wait_for_selector(".confirm")
        assert serious_violations(page) == [], game
        page.keyboard.press("Escape")


def test_the_board_is_played_with_the_keyboard(page: Page, server: str) -> None:
    create_game(page, server, players=2, bots=1)
    start_game(page)
    rng = random.Random(9)
    play_until_phase(page, rng, "place")
    # Tab reaches the roads one may place on; Enter asks, Enter confirms.
    page.wait_for_selector(".road-target[data-action]")
    page.locator(".road-target[data-action]").first.focus()
    focused = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert focused and page.evaluate(
        "document.activeElement.getAttribute('role')") == "button"
    for _ in range(3):
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('road-target')")
    before = seq(page)
    page.keyboard.press("Enter")
    page.wait_for_selector(".confirm")
    assert page.evaluate("document.activeElement.id") == "confirm-ok"
    page.keyboard.press("Enter")
    page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    # In the move phase the towns one may reach are focusable buttons that say their cost.
    for _ in range(300):
        play_until_phase(page, rng, "move")
        if any(a.startswith("move ") for a in page.evaluate(LEGAL)):
            break
        take_turn(page, rng)
    towns = page.locator(".board .town[tabindex='0']")
    assert towns.count() > 0
    label = towns.first.get_attribute("aria-label")
    assert label and page.evaluate("() => window.__elfenland.page.ui.index.townName("
                                   f"{towns.first.get_attribute('data-town')!r})") in label
    assert page.locator(".board .town:not([tabindex])").count() > 0
    towns.first.focus()
    before = seq(page)
    page.keyboard.press(" ")
    if page.locator(".menu").count():
        assert page.evaluate("document.activeElement.closest('.menu') !== null")
        page.keyboard.press("Escape")
        assert page.locator(".menu").count() == 0
    else:
        page.wait_for_selector(".confirm")
        page.keyboard.press("Escape")
        assert page.locator(".confirm").count() == 0
        assert page.evaluate("document.activeElement.dataset.town") is not None
    assert seq(page) == before


RECORD_RENDERS = """() => {
  window.__renders = [];
  new MutationObserver(() => {
    const e = window.__elfenland.page.log.at(-1);
    window.__renders.push({ seq: e.seq, player: e.player, t: performance.now() });
  }).observe(document.body, { attributes: true, attributeFilter: ['data-seq'] });
}"""


def test_following_the_bots_pace_last_move_and_round_summary(page: Page, server: str) -> None:
    page.add_init_script("localStorage.setItem('elfenland.confirm', 'off')")
    create_game(page, server, players=4, bots=3)
    start_game(page)
    # This table shows the bots' moves 1.5 s apart (the server plays them at once here).
    page.locator("#prefs summary").click()
    page.select_option("#pace-pref", "slow")
    page.evaluate(RECORD_RENDERS)
    rng = random.Random(12)
    for _ in range(3):
        wait_turn_or_end(page)
        take_turn(page, rng)
    wait_turn_or_end(page)
    renders = page.evaluate("window.__renders")
    gaps = [b["t"] - a["t"] for a, b in itertools.pairwise(renders)
            if a["player"] != 0 and b["player"] != 0]
    assert len(gaps) >= 4 and min(gaps) >= 1400, gaps
    page.select_option("#pace-pref", "server")
    # The last move stays marked: a bot's placement on its road, and first in the log.
    for _ in range(300):
        wait_turn_or_end(page)
        last = page.evaluate("() => window.__elfenland.page.log.at(-1)")
        if last["player"] != 0 and str(last["action"]).startswith("place "):
            break
        take_turn(page, rng, prefer=("pass",))
    else:
        raise AssertionError("no bot placement seen")
    mark = page.locator(".board .last-move")
    assert mark.count() == 1 and mark.get_attribute("data-seq") == str(last["seq"])
    a, b = last["action"].split()[2].split("-")
    route = page.evaluate(f"() => window.__elfenland.page.ui.index.routeBetween({a!r}, {b!r}).id")
    assert mark.get_attribute("data-last-route") == route
    assert page.locator("#log li").first.get_attribute("data-seq") == str(last["seq"])
    # A summary closes the round: each player's new towns.
    for _ in range(400):
        wait_turn_or_end(page)
        if page.locator("#round-summary").count():
            break
        take_turn(page, rng)
    summary = page.locator("#round-summary")
    assert summary.is_visible()
    assert "1" in summary.locator("strong").inner_text()
    assert summary.locator("li").count() == 4
    towns = page.evaluate("() => window.__elfenland.page.view.players.map(p => p.towns.length)")
    assert f"({towns[0]} " in summary.locator("li").first.inner_text()
    page.screenshot(path=str(SCREENSHOTS / "elfenland-round-summary.png"))
    # It closes itself once everyone has acted in the new round.
    for _ in range(40):
        wait_turn_or_end(page)
        if not page.locator("#round-summary").count():
            break
        take_turn(page, rng)
    assert page.locator("#round-summary").count() == 0
    assert page.evaluate("window.__elfenland.page.view.round") == 2
