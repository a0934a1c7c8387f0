"""Around a game rather than in it: the replay of a game step by step (every click
counted however late the server answers, each seat's hand as that seat saw it, King of
the Elves' last table), a spectator who reconnects after a player took an action back,
and the "your turn" badge of a hidden tab."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from tests.server.helpers import HTTP, JSON, post, recv_until
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from .conftest import checked_page
from .helpers import create_game, start_game, take_turn

pytestmark = pytest.mark.browser

I18N = Path(__file__).resolve().parents[2] / "src" / "elfenland" / "web" / "static" / "i18n"
STATIC_EN: dict[str, str] = json.loads((I18N / "en.json").read_text())
STATIC_FR: dict[str, str] = json.loads((I18N / "fr.json").read_text())

#: Answers of the replay endpoint for step 1 come this late (ms): a slow server, or a
#: long game's replay built on a loaded machine.
LATE_MS = 1500
SLOW_STEP_ONE = """
(() => {
  const late = LATE;
  const real = window.fetch;
  window.fetch = (url, ...rest) => {
    const p = real(url, ...rest);
    return /\\/replay\\?step=1(&|$)/.test(String(url))
      ? p.then((r) => new Promise((ok) => { setTimeout(() => ok(r), late); })) : p;
  };
})();
""".replace("LATE", str(LATE_MS))


def bot_game(server: str, game: str, seed: int, players: int = 3) -> str:
    """A game of bots only, played to its end; its id."""
    r = HTTP.post(f"{server}/api/games", json={
        "game": game, "players": players, "seed": seed,
        "seats": [{"kind": "bot", "level": "random"}] * players})
    assert r.status_code == 201, r.text
    gid = str(r.json()["game"]["id"])
    r = post(server, f"/api/games/{gid}/start", {})  # a bot game needs no token
    assert r.status_code == 200, r.text
    deadline = time.monotonic() + 120
    while HTTP.get(f"{server}/api/games/{gid}").json()["game"]["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.1)
    return gid


def seat_protocols(token: str) -> list[Subprotocol]:
    return [Subprotocol("elfenland"), Subprotocol(f"token.{token}")]


def at_seq(n: int) -> Any:
    """A message filter: the update at seq ``n``."""
    return lambda m: m["type"] == "update" and m["seq"] == n


def replay_view(server: str, gid: str, step: int | None = None, seat: int | None = None,
                token: str | None = None) -> JSON:
    params: dict[str, Any] = {}
    if step is not None:
        params["step"] = step
    if seat is not None:
        params["seat"] = seat
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = HTTP.get(f"{server}/api/games/{gid}/replay", params=params, headers=headers)
    assert r.status_code == 200, r.text
    return dict(r.json())


def step_label(page: Page) -> str:
    return page.inner_text("#step-label")


def wait_step(page: Page, n: int, timeout: float = 20_000) -> None:
    page.wait_for_function(
        "n => document.querySelector('#step-label').textContent.startsWith(`Action ${n} `)",
        arg=n, timeout=timeout)


def hand_titles(page: Page) -> list[str]:
    return sorted(page.eval_on_selector_all("#controls .hand .hcard",
                                            "els => els.map(e => e.title)"))


def names_of(cards: list[str]) -> list[str]:
    return sorted(STATIC_EN[f"transport.{c}"] for c in cards)


def test_replay_counts_every_click_and_shows_only_the_last_asked(page: Page, server: str
                                                                ) -> None:
    gid = bot_game(server, "elfenland", seed=21)
    page.add_init_script(SLOW_STEP_ONE)
    page.goto(f"{server}/#/replay/{gid}")
    page.wait_for_selector(".replay #players .panel")
    steps = replay_view(server, gid)["steps"]
    page.click("[data-go=first]")
    wait_step(page, 0)
    # Three clicks on "next" while the first answer is late: step 3, not step 1.
    for _ in range(3):
        page.click("[data-go=next]")
    wait_step(page, 3)
    page.wait_for_timeout(LATE_MS + 500)  # every answer is in
    assert step_label(page).startswith("Action 3 ")
    # "Next" (late), then "last" at once: the late answer does not undo the jump.
    page.click("[data-go=first]")
    wait_step(page, 0)
    page.click("[data-go=next]")
    page.click("[data-go=last]")
    wait_step(page, steps)
    page.wait_for_timeout(LATE_MS + 500)
    assert step_label(page).startswith(f"Action {steps} ")
    assert page.input_value("#step") == str(steps)
    assert page.inner_text("#phase") == "Final scores"


def test_replay_shows_each_seats_hand_as_it_was_once_the_game_is_over(page: Page, server: str
                                                                     ) -> None:
    gid = bot_game(server, "elfenland", seed=22)
    # This browser held seat 1 (the token no longer matters: the game is over).
    seats = json.dumps({gid: {"seat": 1, "token": "gone", "name": "Bob"}})
    page.add_init_script(f"localStorage.setItem('elfenland.seats', {json.dumps(seats)})")
    page.goto(f"{server}/#/replay/{gid}")
    page.wait_for_selector(".replay #players .panel")
    # Seat 1's view by default; the other seats and the public view on offer.
    assert page.input_value("#replay-seat") == "1"
    assert page.eval_on_selector_all("#replay-seat option", "os => os.map(o => o.value)") \
        == ["", "0", "1", "2"]
    for step in (5, 12, 30):
        page.fill("#step", str(step))
        page.dispatch_event("#step", "input")
        wait_step(page, step)
        page.wait_for_selector("#controls:not([hidden]) .hand")
        want = replay_view(server, gid, step, 1)["view"]["players"][1]["hand"]
        assert hand_titles(page) == names_of(want), step
        # Read-only: nothing offered, whoever was to act.
        assert page.locator("#controls [data-action], #board [data-action]").count() == 0
    page.select_option("#replay-seat", "0")
    page.wait_for_function("() => !document.querySelector('#controls').hidden")
    want0 = replay_view(server, gid, 30, 0)["view"]["players"][0]["hand"]
    page.wait_for_function("n => document.querySelectorAll('#controls .hand .hcard').length === n",
                           arg=len(want0))
    assert hand_titles(page) == names_of(want0)
    assert step_label(page).startswith("Action 30 ")
    # Another seat's hand is named as its own, not "Your travel cards".
    owner = page.inner_text("#replay-seat option[value='0']")
    assert page.inner_text("#controls .hand .lbl") == f"Travel cards of {owner}"
    assert page.inner_text("#controls .mine .lbl") == f"Counters of {owner}"
    page.select_option("#replay-seat", "1")
    page.wait_for_function("() => document.querySelector('#controls .hand .lbl')"
                           ".textContent === 'Your travel cards'")
    assert page.inner_text("#controls .mine .lbl") == "Your counters"
    page.select_option("#replay-seat", "")
    page.wait_for_selector("#controls[hidden]", state="attached")


def test_a_players_replay_of_a_running_game_shows_only_their_own_hand(browser: Browser,
                                                                      server: str) -> None:
    with checked_page(browser) as page:
        gid = create_game(page, server, players=3, bots=2, level="random", seed=23)
        start_game(page)
        rng = random.Random(3)
        for _ in range(4):
            page.wait_for_selector("#turn.mine")
            take_turn(page, rng)
        mine = page.evaluate("id => JSON.parse(localStorage.getItem('elfenland.seats'))[id]", gid)
        page.goto(f"{server}/#/replay/{gid}")
        page.wait_for_selector(".replay #players .panel")
        # Only the public view and this browser's own seat: the others' hands are hidden
        # until the game is over.
        assert page.eval_on_selector_all("#replay-seat option", "os => os.map(o => o.value)") \
            == ["", "0"]
        assert page.input_value("#replay-seat") == "0"
        last = replay_view(server, gid, seat=0, token=mine["token"])
        page.wait_for_selector("#controls:not([hidden]) .hand")
        assert hand_titles(page) == names_of(last["view"]["players"][0]["hand"])
        page.click("[data-go=first]")
        wait_step(page, 0)
        page.click("[data-go=next]")
        wait_step(page, 1)
        first = replay_view(server, gid, 1, seat=0, token=mine["token"])
        assert hand_titles(page) == names_of(first["view"]["players"][0]["hand"])


def test_a_king_of_the_elves_replay_names_whose_cards_and_gold_it_shows(
        page: Page, server: str) -> None:
    gid = bot_game(server, "king-of-the-elves", seed=24, players=2)
    page.goto(f"{server}/#/replay/{gid}")
    page.wait_for_selector(".replay #players .panel")
    page.select_option("#replay-seat", "1")
    page.wait_for_selector("#controls:not([hidden]) .hand-groups")
    owner = page.inner_text("#replay-seat option[value='1']")
    assert page.inner_text("#controls .lbl") == f"Cards of {owner}"
    gold = replay_view(server, gid, seat=1)["view"]["players"][1]["gold"]
    assert page.inner_text("#controls .row.small span") == f"Gold of {owner}: {gold}"


def kingdom_refs(view: JSON) -> dict[str, list[str]]:
    return {str(k["owner"]): sorted(str(tw["ref"]) for tw in k["towns"])
            for k in view["kingdoms"]}


def shown_refs(page: Page) -> dict[str, list[str]]:
    return dict(page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '.koe .kingdom')].map(k => [k.dataset.kingdom,
        [...k.querySelectorAll('.ktown')].map(t => t.dataset.ref).sort()]))"""))


def test_the_last_step_of_a_king_of_the_elves_replay_shows_the_last_rounds_kingdoms(
        page: Page, server: str) -> None:
    gid = bot_game(server, "king-of-the-elves", seed=24)
    steps = replay_view(server, gid)["steps"]
    before_end = replay_view(server, gid, steps - 1)["view"]
    assert any(k["towns"] for k in before_end["kingdoms"])
    page.goto(f"{server}/#/replay/{gid}")
    page.wait_for_selector(".replay .koe-end")
    assert page.inner_text(".koe-end") == "The kingdoms as the last round ended"
    assert shown_refs(page) == kingdom_refs(before_end)
    # From an early step straight to the end: still the last round's kingdoms, not
    # those of the step shown before.
    page.click("[data-go=first]")
    wait_step(page, 0)
    for n in range(1, 4):
        page.click("[data-go=next]")
        wait_step(page, n)
    page.click("[data-go=last]")
    wait_step(page, steps)
    page.wait_for_selector(".replay .koe-end")
    assert shown_refs(page) == kingdom_refs(before_end)


# -- a spectator reconnecting ------------------------------------------------------------
def _run(coro: Any) -> Any:
    # Playwright's sync API runs an event loop in this thread: use another one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _view_of(ws: ClientConnection, seq: int) -> JSON:
    await ws.send(json.dumps({"type": "sync", "since": seq}))
    msg = await recv_until(ws, at_seq(seq))
    return dict(msg["view"])


def test_a_spectator_back_after_an_undo_and_a_new_action_sees_the_new_one(
        browser: Browser, server: str) -> None:
    made = HTTP.post(f"{server}/api/games", json={
        "game": "elfenland", "players": 2, "name": "Ann", "seed": 3,
        "seats": [{"kind": "human"}, {"kind": "human"}]}).json()
    gid = made["game"]["id"]
    joined = post(server, f"/api/games/{gid}/join", {"name": "Bob"}).json()
    tokens = [made["token"], joined["token"]]
    post(server, f"/api/games/{gid}/start", {"token": tokens[0]})
    ws_base = server.replace("http", "ws", 1)

    async def to_a_placement() -> tuple[int, int, list[str]]:
        """Play the first legal action until a seat may place a counter in two ways."""
        for _ in range(200):
            view = HTTP.get(f"{server}/api/games/{gid}").json()["view"]
            seat, seq = view["current_player"], view["seq"]
            async with connect(f"{ws_base}/ws/games/{gid}",
                               subprotocols=seat_protocols(tokens[seat])) as ws:
                legal = (await _view_of(ws, seq))["legal"]
                places = [a for a in legal if a.startswith("place ")]
                if len(places) > 1:
                    return seat, seq, places[:2]
                await ws.send(json.dumps({"type": "action", "action": legal[0], "seq": seq}))
                await recv_until(ws, at_seq(seq + 1))
        raise AssertionError("no placement")

    async def act(seat: int, msg: JSON, until: int) -> None:
        async with connect(f"{ws_base}/ws/games/{gid}",
                           subprotocols=seat_protocols(tokens[seat])) as ws:
            await ws.send(json.dumps(msg))
            await recv_until(ws, at_seq(until))

    seat, seq, (first, second) = _run(to_a_placement())
    _run(act(seat, {"type": "action", "action": first, "seq": seq}, seq + 1))
    with checked_page(browser) as page:
        page.goto(f"{server}/#/game/{gid}")
        # The socket's log (the first table may be drawn from the HTTP view, logless; the
        # client's script may not have run yet when the page has loaded).
        page.wait_for_function("n => window.__elfenland?.page?.log?.length === n", arg=seq + 1)
        last = "() => window.__elfenland.page.log.at(-1).action"
        assert page.evaluate(last) == first
        # The spectator's socket drops and stays away while the player takes the
        # placement back and places another counter: the same seq, another action.
        page.evaluate("""() => { const c = window.__elfenland.conn;
            c.away = c.open; c.open = () => {}; c.drop(); }""")
        page.wait_for_selector("#conn[data-state=offline]")
        _run(act(seat, {"type": "undo", "seq": seq + 1}, seq))
        _run(act(seat, {"type": "action", "action": second, "seq": seq}, seq + 1))
        # Back (once: its own retry, if still pending, is called off).
        page.evaluate("""() => { const c = window.__elfenland.conn;
            clearTimeout(c.timer); c.open = c.away; c.open(); }""")
        page.wait_for_selector("#conn[data-state=online]", state="attached")
        page.wait_for_function(f"() => ({last})() === {json.dumps(second)}", timeout=10_000)
        public = HTTP.get(f"{server}/api/games/{gid}").json()["view"]["log"]
        assert page.evaluate("() => window.__elfenland.page.log.map(e => e.action)") \
            == [e["action"] for e in public]
        lines = page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")
        assert len(lines) == len(public)


# -- the "your turn" badge -----------------------------------------------------------------
HIDDEN = """
(() => {
  window.__hidden = false;
  Object.defineProperty(Document.prototype, 'hidden', { get: () => window.__hidden });
  Object.defineProperty(Document.prototype, 'visibilityState',
                        { get: () => (window.__hidden ? 'hidden' : 'visible') });
})();
"""


def test_the_missed_turn_badge_stays_while_the_table_changes(browser: Browser, server: str
                                                             ) -> None:
    with checked_page(browser) as page:
        page.add_init_script(HIDDEN)
        gid = create_game(page, server, players=3, bots=0, seed=25)
        # Bob takes an open seat (a bot the other); Ann starts, plays, then hides her tab.
        bob = post(server, f"/api/games/{gid}/join", {"name": "Bob"}).json()
        assert bob["seat"] == 1
        start_game(page)
        rng = random.Random(4)
        page.wait_for_selector("#turn.mine")
        page.evaluate("window.__hidden = true")
        ws_base = server.replace("http", "ws", 1)
        leave = threading.Event()

        async def bob_plays() -> None:
            """Bob plays his turns until Ann's comes, and leaves when told."""
            async with connect(f"{ws_base}/ws/games/{gid}",
                               subprotocols=seat_protocols(bob['token'])) as ws:
                played = False
                while True:
                    m = await recv_until(ws, lambda m: m["type"] == "update")
                    v = m["view"]
                    if v["current_player"] is None or (played and v["current_player"] == 0):
                        break
                    if v["current_player"] == 1 and v.get("legal"):
                        played = True
                        await ws.send(json.dumps({"type": "action", "action": v["legal"][0],
                                                  "seq": m["seq"]}))
                while not leave.is_set():
                    await asyncio.sleep(0.05)

        with ThreadPoolExecutor(1) as pool:
            bob_turns = pool.submit(asyncio.run, bob_plays())
            try:
                take_turn(page, rng)
                page.wait_for_selector("#turn.mine")
                page.wait_for_function("() => document.title.startsWith('(1) ')",
                                       timeout=10_000)
            finally:
                leave.set()
            bob_turns.result()
        # Bob left: the seats' news redraws Ann's table, and the badge stays.
        page.wait_for_function(
            "() => window.__elfenland.page.summary.seats[1].connected === false")
        page.wait_for_timeout(300)
        assert page.title().startswith("(1) "), page.title()
        page.evaluate("window.__hidden = false; "
                      "document.dispatchEvent(new Event('visibilitychange'))")
        assert not page.title().startswith("(")


def test_the_replay_stays_at_hand_after_the_final_scores_are_closed(page: Page, server: str
                                                                    ) -> None:
    gid = bot_game(server, "elfenland", seed=26)
    page.goto(f"{server}/#/game/{gid}")
    page.wait_for_selector(".final #final-close")
    # The download is the saved game, which the engine loads back (not the last view).
    href = page.get_attribute("#record-link", "href")
    assert href == f"/api/games/{gid}/record"
    assert HTTP.get(f"{server}{href}").json()["format"] == "elfenland-game/1"
    page.click("#final-close")
    page.wait_for_selector(".final", state="detached")
    page.click("#replay-again")
    page.wait_for_selector(".replay #players .panel")
    assert page.url.endswith(f"#/replay/{gid}")


def test_a_replay_that_cannot_be_shown_says_why_in_the_readers_language(
        browser: Browser, server: str) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="fr-FR")
    try:
        page = ctx.new_page()
        page.goto(f"{server}/#/replay/nosuchgame")
        page.wait_for_selector("#replay-error")
        assert page.inner_text("#replay-error") == STATIC_FR["error.not-found"]
    finally:
        ctx.close()
