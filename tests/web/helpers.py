"""Playing through the page as a person does: wait for one's turn, click one of the
choices the page offers (every clickable legal choice carries ``data-action``, a town
with several ways to reach it ``data-menu``), and repeat."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Route
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from websockets.asyncio.client import connect

from .conftest import WAIT_MS

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
CHOICES = ("[data-action]:not([disabled]), .town[data-menu]")
#: A phase's screenshot waits for a turn that shows what the phase is about.
SHOT_NEEDS = {"journey": ".ktown", "move": ".town[data-action], .town[data-menu]",
              "building": ".kingdom .ktown"}


def create_game(page: Page, base: str, game: str = "elfenland", players: int = 4,
                bots: int = 3, level: str = "random", name: str = "Ann",
                rules: str | None = None, seed: int | None = None,
                route_hint: bool = False, checks: tuple[str, ...] = ()) -> str:
    """Fill in the lobby's form and create the game; returns the game id.  A ``seed``
    (which the form does not offer) is added to the form's request, so that a test
    whose story needs a certain deal gets it every time: the bots' decisions follow
    from the game's seed too."""
    if seed is not None:
        def with_seed(route: Route) -> None:
            if route.request.method != "POST":
                route.continue_()
                return
            body = json.loads(route.request.post_data or "{}")
            route.continue_(post_data=json.dumps({**body, "seed": seed}))

        page.route("**/api/games", with_seed)
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-ready='1']")
    page.fill("input[name=name]", name)
    page.select_option("select[name=game]", game)
    if rules:
        more_options(page)
        page.select_option("select[name=rules]", rules)
    if route_hint:
        more_options(page)
        page.check("input[name=route_hint]")
    for box in checks:  # variants: the check boxes under "More options"
        more_options(page)
        page.check(f"input[name={box}]")
    page.select_option("select[name=players]", str(players))
    for i in range(players):
        kind = "human" if i == 0 else ("bot" if i <= bots else "open")
        page.select_option(f"select[name=kind-{i}]", kind)
        if kind == "bot":
            page.select_option(f"select[name=level-{i}]", level)
    page.click("#create-btn")
    # The server starts a game at once when no seat is left open.
    page.wait_for_selector(".waiting, .game .panel")
    if seed is not None:
        page.unroute("**/api/games")
    return page.url.rsplit("/", 1)[-1]


def more_options(page: Page) -> None:
    """Unfold the lobby's "More options" (rules, variants, clock, hotseat), as a player
    does by clicking it."""
    if not page.evaluate("document.querySelector('#more-options').open"):
        page.click("#more-options > summary")


def start_game(page: Page) -> None:
    if page.locator("#start-btn").count():
        page.click("#start-btn")
    page.wait_for_selector(".game .panel")


def seq(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.seq || ''"))


def is_over(page: Page) -> bool:
    return bool(page.evaluate("!!document.querySelector('.final')"))


def my_turn(page: Page) -> bool:
    return bool(page.evaluate("!!document.querySelector('#turn.mine')"))


def wait_for_news(pages: Sequence[Page], timeout: float = WAIT_MS / 1000) -> None:
    """Until something happens at the table: a page's sequence number moves on from what
    it was at the call, a player is to act, or the game is over.  A loop that plays the
    pages' turns waits this way when nobody can act, so that its cap counts moves, not
    moments: with a short fixed wait instead, a few seconds of a starved bot or server (CI's
    2 shared cores) used up the loop.  ``timeout`` (seconds) is a hang guard."""
    before = [seq(p) for p in pages]
    deadline = time.monotonic() + timeout
    while not any(seq(p) != s or my_turn(p) or is_over(p)
                  for p, s in zip(pages, before, strict=True)):
        assert time.monotonic() < deadline, f"nothing happened at the table in {timeout:g} s"
        pages[0].wait_for_timeout(30)


def wait_turn_or_end(page: Page, timeout: float | None = None) -> None:
    """Until it is this player's turn or the game is over (``timeout`` in ms: the
    context's default, a hang guard, when None)."""
    page.wait_for_function(
        "() => document.querySelector('.final') || document.querySelector('#turn.mine')",
        timeout=timeout)


def phase_key(page: Page) -> str:
    """What the player is asked to do now (the page's phase, or discard)."""
    return str(page.evaluate("""() => {
        const v = window.__elfenland && window.__elfenland.page.view;
        if (!v) return '';
        return v.discarding ? 'discard' : v.phase;
    }"""))


def page_state(page: Page) -> dict[str, Any]:
    """What the table page holds now, for a failure's message: the view shown and the
    latest one, the seat, the socket (and the seq it last had), the updates held back,
    the hotseat cover, the server's last error and the toasts shown."""
    return dict(page.evaluate("""() => {
        const g = window.__elfenland, p = g && g.page, c = g && g.conn;
        if (!p) return {page: null};
        const v = p.view || {}, l = p.latest || {}, h = p.hotseat;
        return {seq: document.body.dataset.seq, shown: [v.seq, v.current_player, v.viewer],
                latest: [l.seq, l.current_player, l.viewer], seat: p.seat,
                pending: !!p.pending, queued: p.pacer ? p.pacer.queue.length : null,
                pacing: p.pacer ? p.pacer.busy : null,
                socket: c && c.ws ? c.ws.readyState : null, closed: c ? c.closed : null,
                conn: (document.getElementById('conn') || {dataset: {}}).dataset.state || null,
                cover: !!document.querySelector('.hotseat-cover'),
                waiting_for: h ? h.waitingFor : null,
                confirm: !!document.querySelector('.confirm'),
                turn: (document.getElementById('turn') || {}).className || null,
                conn_seq: c ? c.seq : null, error: p.lastError || null,
                toasts: [...document.querySelectorAll('#toasts .toast')].map((e) => e.textContent)};
    }"""))


def confirm_if_asked(page: Page) -> bool:
    """Answer the page's "are you sure?" (asked before a choice that cannot be taken
    back) with yes; whether it asked."""
    ok = page.locator(".confirm #confirm-ok")
    if ok.count():
        ok.click()
        return True
    return False


def take_turn(page: Page, rng: random.Random, prefer: tuple[str, ...] = ()) -> str:
    """Click one offered choice (a random one; those starting with one of ``prefer`` ten
    times as likely); returns the action text sent."""
    before = seq(page)
    if page.locator("[data-dpick]:not([disabled])").count():
        return discard_picked(page, rng)
    selects = page.locator("[data-select]")
    if selects.count() > 1 and rng.random() < 0.3:
        selects.nth(rng.randrange(selects.count())).click()
    choices = page.locator(CHOICES)
    texts = page.eval_on_selector_all(CHOICES, "els => els.map(e => e.dataset.action ?? null)")
    n = len(texts)
    assert n > 0, "my turn, but nothing to click"
    # A person plays on more often than not, but passes or stops about one time in three.
    stops = sum(t in ("pass", "end") for t in texts)
    goes = n - stops
    weights = [goes / stops * 0.5 if t in ("pass", "end") else 1.0 for t in texts] \
        if stops and goes else [1.0] * n
    if prefer:
        weights = [w * 10 if (t or "").startswith(prefer) else w
                   for w, t in zip(weights, texts, strict=True)]
    i = rng.choices(range(n), weights)[0]
    target = choices.nth(i)
    action = texts[i]
    target.click()
    if action is None:  # a town reached in several ways: the menu offers them
        page.wait_for_selector(".menu [data-action]")
        opts = page.locator(".menu [data-action]")
        j = rng.randrange(opts.count())
        action = opts.nth(j).get_attribute("data-action")
        opts.nth(j).click()
    # The question may come a moment after the click on a loaded machine: wait for it
    # or for the action's news, whichever comes first.
    try:
        page.wait_for_function("s => document.body.dataset.seq !== s"
                               " || !!document.querySelector('.confirm #confirm-ok')",
                               arg=before)
        confirm_if_asked(page)
        page.wait_for_function("s => document.body.dataset.seq !== s", arg=before)
    except PlaywrightTimeout as exc:
        raise AssertionError(f"no news of {action!r} at seq {before}: "
                             f"{page_state(page)}") from exc
    return str(action)


def discard_picked(page: Page, rng: random.Random) -> str:
    """Discard as the page asks: pick as many cards as it says, then discard them at
    once (one confirmation); returns when the discarding is over."""
    need = int(page.locator("#discard-need").get_attribute("data-need") or "0")
    cards = page.locator("[data-dpick]")
    for i in sorted(rng.sample(range(cards.count()), need)):
        page.locator(f"[data-dpick='{i}']").click()
    page.click("#discard-go")
    confirm_if_asked(page)
    page.wait_for_function("""() => { const v = window.__elfenland.page.view;
        return !v.discarding || v.current_player !== v.viewer; }""")
    return "discard"


def play_to_end(page: Page, rng: random.Random, shots: dict[str, str] | None = None,
                max_turns: int = 600, prefer: tuple[str, ...] = ()) -> list[str]:
    """Play by clicking until the final scores show; optionally save one screenshot the
    first time each phase is this player's to play (shots: phase -> file name)."""
    done: list[str] = []
    for _ in range(max_turns):
        wait_turn_or_end(page)
        if is_over(page):
            return done
        if shots is not None:
            key = phase_key(page)
            need = SHOT_NEEDS.get(key)
            if key in shots and (need is None or page.locator(need).count() > 0):
                page.wait_for_timeout(700)  # let the boots and counters settle
                page.screenshot(path=str(SCREENSHOTS / shots.pop(key)))
        done.append(take_turn(page, rng, prefer))
    raise AssertionError(f"no end after {max_turns} turns")


RAW_LOG_LINES = r"""() => {
  const page = window.__elfenland.page;
  const action = new Map(page.log.map((e) => [String(e.seq), String(e.action)]));
  // Notation with several words or symbols must not show through; one plain word
  // ("pass") may be a word of the sentence ("passed").
  const raw = (a, text) => (/[\s.+:-]/.test(a) && text.includes(a))
    || /undefined|NaN|null|\{\w+\}|\b\d+\.\d+\b/.test(text);
  const bad = [];
  for (const li of document.querySelectorAll('#log li')) {
    if (raw(action.get(li.dataset.seq) || '', li.textContent)) bad.push(li.textContent);
  }
  // And every entry of the game, also those scrolled out of the list.
  for (const e of page.log) {
    const text = page.ui.describe(e);
    if (raw(String(e.action), text)) bad.push(text);
  }
  return bad;
}"""


def raw_log_lines(page: Page) -> list[str]:
    """Log lines that show action notation (or a placeholder) instead of a sentence."""
    assert page.locator("#log li").count() > 0
    return list(page.evaluate(RAW_LOG_LINES))


def log_sentences(page: Page) -> list[str]:
    """Every log entry of the game as the page words it."""
    return list(page.evaluate(
        "() => window.__elfenland.page.log.map(e => window.__elfenland.page.ui.describe(e))"))


TABLE_CHANGES = """() => {
  window.__changes = { fresh: 0, arrive: 0, gain: 0 };
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (!(n instanceof Element)) continue;
        const c = window.__changes;
        c.fresh += n.querySelectorAll('.ktown.fresh').length;
        c.arrive += n.querySelectorAll('.ktown.arrive').length;
        c.gain += n.querySelectorAll('.ktown .gain').length;
      }
    }
  }).observe(document.querySelector('.koe-table'), { childList: true, subtree: true });
}"""


def watch_table(page: Page) -> None:
    """Count the King of the Elves table's highlights from now on (``table_changes``)."""
    page.evaluate(TABLE_CHANGES)


def table_changes(page: Page) -> dict[str, int]:
    return dict(page.evaluate("() => window.__changes"))


def play_until(ws_base: str, gid: str, token: str, seat: int, until: int) -> int:
    """Play ``seat``'s turns over its socket until seat ``until`` is to act; returns how
    many actions that took."""

    async def run() -> int:
        played = 0
        async with connect(f"{ws_base}/ws/games/{gid}?token={token}") as ws:
            while True:
                msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), WAIT_MS / 1000))
                if msg["type"] != "update":
                    continue
                view = msg["view"]
                if view["current_player"] == until:
                    return played
                if view["current_player"] == seat and view.get("legal"):
                    played += 1
                    await ws.send(json.dumps({"type": "action", "action": view["legal"][0],
                                              "seq": msg["seq"]}))

    # Playwright's sync API runs an event loop in this thread: use another one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()
