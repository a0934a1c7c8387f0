"""Elfengold in Chromium: a person plays a whole 4-player game against three bots by
clicking through every phase (the face-down item, the auction panel with its bid and
pass and the confirmation of a bid over one's coins, every kind of item placed, the
Exchange by clicking two roads, travel, coins or cards, the two items kept), and once
more with the witch variant (a magic flight)."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from .axe import serious_violations
from .helpers import (
    SCREENSHOTS,
    confirm_if_asked,
    create_game,
    is_over,
    raw_log_lines,
    seq,
    take_turn,
    wait_turn_or_end,
)

pytestmark = pytest.mark.browser
#: Items this player bids on (and places) first, until each was played once.
WANTED = ("exchange", "double", "gold-piece", "tree", "sea-monster")


def view(page: Page) -> dict[str, Any]:
    return dict(page.evaluate("() => window.__elfenland.page.view"))


def sent(page: Page, before: str) -> None:
    page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)


def click_action(page: Page, selector: str, rng: random.Random) -> str:
    """Click one of the ``[data-action]`` choices under ``selector``; the action text."""
    targets = page.locator(f"{selector}[data-action]:not([disabled])")
    n = targets.count()
    assert n, selector
    i = rng.randrange(n)
    action = str(targets.nth(i).get_attribute("data-action"))
    targets.nth(i).click()
    return action


def bid_over_coins(page: Page, coins: int) -> str:
    """A bid over one's coins is asked about: Cancel sends nothing, OK sends it."""
    page.fill("#bid-amount", str(coins + 1))
    before = seq(page)
    page.click("#bid-btn")
    question = page.locator(".confirm #confirm-text")
    assert f"only {coins}" in question.inner_text()
    page.click(".confirm #confirm-cancel")
    assert page.locator(".confirm").count() == 0
    page.wait_for_timeout(200)
    assert seq(page) == before
    page.click("#bid-btn")
    page.click(".confirm #confirm-ok")
    return f"bid {coins + 1}"


def auction_turn(page: Page, v: dict[str, Any], rng: random.Random, done: set[str]) -> str:
    a = v["auction"]
    me = v["players"][v["viewer"]]
    panel = page.locator("#auction")
    assert panel.locator(f"[data-auction-item='{a['item']}']").count() == 1
    assert page.locator("#auction-coins").inner_text().endswith(f"{me['coins']} coins") \
        or me["coins"] == 1
    if a["high_bidder"] is not None:
        assert str(a["high_bid"]) in page.locator("#auction-high").inner_text()
    can_bid = page.locator("#bid-btn").count() > 0
    if can_bid and "overbid" not in done and v["round"] >= 3 and a["min_bid"] <= me["coins"] + 1:
        done.add("overbid")
        return bid_over_coins(page, me["coins"])
    want = a["item"] in WANTED and a["item"] not in done
    if can_bid and a["min_bid"] <= me["coins"] and (want or rng.random() < 0.5):
        page.fill("#bid-amount", str(a["min_bid"]))
        page.click("#bid-btn")
        return f"bid {a['min_bid']}"
    page.click("#pass-btn")
    return "pass"


def place_turn(page: Page, rng: random.Random, done: set[str]) -> str:
    for kind in WANTED:
        button = page.locator(f"[data-select='{kind}']")
        if kind in done or not button.count():
            continue
        button.click()
        if kind == "double":
            page.locator("[data-double-with]").first.click()
        if kind == "exchange":
            page.locator(".road-target[data-exchange-road]").first.click()
            assert page.locator("#exchange-help").inner_text().startswith("First road")
        action = click_action(page, ".road-target", rng)
        done.add(kind)
        return action
    selects = page.locator("[data-select]")
    if selects.count() and rng.random() < 0.5:
        selects.nth(rng.randrange(selects.count())).click()
        return click_action(page, ".road-target", rng)
    page.click("#place-pass")
    return "pass"


def move_turn(page: Page, v: dict[str, Any], rng: random.Random, done: set[str]) -> str:
    towns = page.locator(".town[data-action], .town[data-menu]")
    flights = any(t.startswith("fly ") for t in v.get("legal", []))
    if towns.count() and (rng.random() < 0.85 or (flights and "fly" not in done)):
        if flights and "fly" not in done and v["options"]["witch"]:
            target = next(t.split()[1] for t in v["legal"] if t.startswith("fly "))
            page.locator(f".town[data-town='{target}']").click()
            page.wait_for_selector(".menu [data-action]")
            page.click(f".menu [data-action='fly {target}']")
            done.add("fly")
            return f"fly {target}"
        town = towns.nth(rng.randrange(towns.count()))
        action = town.get_attribute("data-action")
        town.click()
        if action is None:
            page.wait_for_selector(".menu [data-action]")
            opts = page.locator(".menu [data-action]")
            j = rng.randrange(opts.count())
            action = opts.nth(j).get_attribute("data-action")
            opts.nth(j).click()
        return str(action)
    page.click("#end-move")
    return "end"


def play_turn(page: Page, rng: random.Random, done: set[str]) -> str:
    before = seq(page)
    v = view(page)
    phase = v["phase"]
    if phase == "auction":
        action = auction_turn(page, v, rng, done)
    elif phase == "draw-items":
        drawn = v["drawn"]
        assert page.locator("#hide-items [data-action]").count() == len(set(drawn))
        action = click_action(page, "#hide-items ", rng)
    elif phase == "place":
        action = place_turn(page, rng, done)
    elif phase == "move":
        action = move_turn(page, v, rng, done)
    elif phase == "settle":
        earned = v["earned"]
        pick = "#cards-btn" if "cards" not in done and earned < 5 else "#collect-btn"
        if pick == "#collect-btn":
            assert page.locator(pick).inner_text() == f"Take {earned} coin{'s' * (earned != 1)}"
        page.click(pick)
        action = "cards" if pick == "#cards-btn" else "collect"
    elif phase == "keep":
        action = click_action(page, "#keep-items ", rng)
    elif phase == "discard":
        action = click_action(page, ".hand.discarding ", rng)
    elif phase in ("draw-cards", "move-draw"):
        action = click_action(page, "#display ", rng)
    else:
        return take_turn(page, rng)
    confirm_if_asked(page)
    sent(page, before)
    done.add(action.split()[0])
    return action


#: A screenshot of the first turn of these phases (docs/screenshots).
SHOTS = {"auction": "elfengold-1-auction.png", "place": "elfengold-2-place.png",
         "move": "elfengold-3-move.png"}


def play_game(page: Page, rng: random.Random, max_turns: int = 900, axe: bool = False
              ) -> tuple[list[str], set[str]]:
    """Play this seat to the final scores; with ``axe``, the page is checked for serious
    accessibility faults the first time each phase is this player's (the auction panel,
    the item choices, the settle buttons...)."""
    done: set[str] = set()
    actions: list[str] = []
    checked: set[str] = set()
    for _ in range(max_turns):
        wait_turn_or_end(page)
        if is_over(page):
            return actions, done
        summary = page.locator("#round-summary")
        if summary.count():
            done.add(f"summary: {summary.inner_text()}")
        if page.locator(".last-move").count():
            done.add("last-move")
        phase = view(page)["phase"]
        if axe and phase not in checked:
            checked.add(phase)
            assert serious_violations(page) == [], phase
            if phase in SHOTS:
                page.screenshot(path=str(SCREENSHOTS / SHOTS[phase]))
        actions.append(play_turn(page, rng, done))
    raise AssertionError(f"no end after {max_turns} turns")


def new_game(page: Page, server: str, seed: int, witch: bool = False) -> str:
    gid = create_game(page, server, game="elfengold", players=4, bots=3, level="greedy",
                      seed=seed, checks=("eg_witch",) if witch else ())
    page.wait_for_selector(".game .panel")
    return gid


def check_table(page: Page) -> None:
    """Gold values on the board, coins in every panel."""
    assert page.locator(".gold-value").count() == 20
    assert page.locator(".gold-value[data-gold-value='albaran'] text").text_content() == "7"
    assert page.locator("[data-panel-coins]").count() == 4


def test_elfengold_against_three_bots_by_clicking_every_phase(page: Page, server: str) -> None:
    gid = new_game(page, server, seed=11)
    summary = httpx.get(f"{server}/api/games/{gid}").json()["game"]
    assert summary["game"] == "elfengold" and summary["options"] == {}
    check_table(page)
    assert serious_violations(page) == []
    actions, done = play_game(page, random.Random(3), axe=True)
    played = {a.split()[0] for a in actions}
    assert {"hide", "bid", "pass", "place", "move", "end", "collect", "cards", "keep",
            "draw"} <= played, played
    assert {"overbid", "exchange", "double", "last-move"} <= done, done
    assert {"tree", "monster", "gold"} & played, played
    # The round summary tells each player's towns and the coins their moves brought.
    summaries = [d for d in done if d.startswith("summary: ")]
    assert summaries and all("collected" in d and "Round" in d for d in summaries), summaries
    assert page.locator(".scores tbody tr").count() == 4
    assert page.locator(".scores tr.win").count() >= 1
    assert not raw_log_lines(page)
    assert serious_violations(page) == []
    page.screenshot(path=str(SCREENSHOTS / "elfengold-final.png"))


def test_elfengold_with_the_witch_to_the_end(page: Page, server: str) -> None:
    gid = new_game(page, server, seed=5, witch=True)
    summary = httpx.get(f"{server}/api/games/{gid}").json()["game"]
    assert summary["options"] == {"witch": True}
    actions, done = play_game(page, random.Random(8))
    assert "fly" in done or any("witch" in a for a in actions), actions
    assert page.locator(".scores tbody tr").count() == 4
    assert not raw_log_lines(page)
    # The replay steps through the finished game on the same board, gold values and all.
    page.click("#replay-link")
    page.wait_for_selector(".replay .board")
    assert page.locator(".gold-value").count() == 20


def test_lobby_offers_elfengold_with_its_variants_and_the_rules_aid(page: Page,
                                                                    server: str) -> None:
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("select[name=game]", "elfengold")
    page.click("#more-options > summary")
    assert page.locator(".eg-only").is_visible()
    assert not page.locator(".elf-only").is_visible() and not page.locator(".koe-only").is_visible()
    for box in ("eg_witch", "eg_random_gold", "eg_town_cards", "eg_secret_gold"):
        assert page.locator(f"input[name={box}]").is_visible()
    assert serious_violations(page) == []
    # "Explain" opens the rules aid at the witch.
    page.click(".eg-only [data-explain]")
    page.wait_for_selector(".aid [data-aid='witch'].focus")
    assert "witch" in page.locator(".aid [data-aid='witch']").inner_text().lower()
    assert page.locator(".aid [data-aid='auction']").count() == 1
    assert page.locator(".aid .cost-table").count() == 1
    assert serious_violations(page) == []
    page.click("#aid-close")
    # The variants go to the server as options; "coins kept secret" is eg_public_gold off.
    page.check("input[name=eg_random_gold]")
    page.check("input[name=eg_secret_gold]")
    # The rule options are built from the server's option specification, at their defaults.
    page.click("#eg-rules > summary")
    page.wait_for_selector("[data-opt='eg_overbid']")
    spec = httpx.get(f"{server}/api/options/elfengold").json()
    fields = page.eval_on_selector_all("[data-opt]", "els => els.map(e => e.dataset.opt)")
    assert set(fields) == {o["name"] for o in spec["options"]} - set(spec["variants"])
    assert page.locator("[data-opt='eg_overbid']").input_value() == "allowed"
    assert page.locator("[data-opt='rounds']").input_value() == "6"
    assert page.locator("label:has([data-opt='eg_overbid'])").inner_text().startswith("Bids above")
    assert serious_violations(page) == []
    page.select_option("[data-opt='eg_overbid']", "capped")
    page.fill("[data-opt='rounds']", "3")
    page.fill("input[name=name]", "Ann")
    for i in range(1, 4):
        page.select_option(f"select[name=kind-{i}]", "bot")
    with page.expect_response("**/api/games") as answer:
        page.click("#create-btn")
    game = answer.value.json()["game"]
    assert game["options"] == {"random_gold": True, "eg_public_gold": False,
                               "eg_overbid": "capped", "rounds": 3}
    assert game["custom_rules"] and game["unrated"]
    page.wait_for_selector(".game .panel")
    # The others' coins are hidden: only this player's panel shows coins.
    page.wait_for_function("() => document.querySelectorAll('[data-panel-coins]').length === 1")
    assert page.evaluate("window.__elfenland.page.view.rounds") == 3


def test_the_hand_limit_option_asks_for_discards(page: Page, server: str) -> None:
    """A section-2 option set through the API (the lobby keeps the spec's defaults): with a
    hand limit of 3, a player ending a move with more cards discards by clicking them."""
    made = httpx.post(f"{server}/api/games", json={
        "game": "elfengold", "players": 3, "seed": 4, "name": "Ann",
        "options": {"eg_hand_limit": 3},
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"},
                  {"kind": "bot", "level": "greedy"}]}).json()
    gid, token = made["game"]["id"], made["token"]
    assert made["game"]["custom_rules"] and made["game"]["unrated"]
    page.goto(f"{server}/")
    page.evaluate("([g, t]) => localStorage.setItem('elfenland.seats', JSON.stringify("
                  "{[g]: {seat: 0, token: t, name: 'Ann'}}))", [gid, token])
    assert httpx.post(f"{server}/api/games/{gid}/start", json={"token": token}).is_success
    page.goto(f"{server}/#/game/{gid}")
    page.wait_for_selector(".game .panel")
    rng = random.Random(2)
    done: set[str] = set()
    for _ in range(300):
        wait_turn_or_end(page)
        assert not is_over(page)
        if view(page)["phase"] == "discard":
            hand = len(view(page)["players"][0]["hand"])
            assert page.locator(".hand.discarding [data-action]").count() == hand
            assert serious_violations(page) == []
            play_turn(page, rng, done)
            assert "discard" in done
            page.wait_for_function("n => window.__elfenland.page.view.players[0].hand.length < n",
                                   arg=hand)
            return
        if view(page)["phase"] == "move" and rng.random() < 0.7:
            before = seq(page)
            page.click("#end-move")  # keep the cards: the limit bites
            confirm_if_asked(page)
            sent(page, before)
            continue
        play_turn(page, rng, done)
    raise AssertionError("never asked to discard")
