"""French and German pages show no untranslated text: every data-i18n key resolves to
that language's table, and no English string of the English table is on screen."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from .helpers import create_game, raw_log_lines, start_game, take_turn, wait_turn_or_end

pytestmark = pytest.mark.browser

I18N = Path(__file__).resolve().parents[2] / "src" / "elfenland" / "web" / "static" / "i18n"
TABLES = {lang: json.loads((I18N / f"{lang}.json").read_text()) for lang in ("en", "fr", "de")}

VISIBLE_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || el.closest('script, style, noscript, #lang-select')) continue;
    if (el.closest('svg') ? false : !el.checkVisibility()) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll('[title]')) out.push(el.title.trim());
  for (const el of document.querySelectorAll('[placeholder]')) out.push(el.placeholder.trim());
  return out;
}"""

KEYED = """() => [...document.querySelectorAll('[data-i18n]')]
  .map(el => [el.dataset.i18n, el.textContent])"""


def check_page(page: Page, lang: str) -> int:
    table, english = TABLES[lang], TABLES["en"]
    assert page.evaluate("document.documentElement.lang") == lang
    keyed = page.evaluate(KEYED)
    for key, text in keyed:
        assert text == table[key], (key, text)
    texts = page.evaluate(VISIBLE_TEXT)
    only_english = {v for k, v in english.items() if v != table[k] and "{" not in v}
    leaks = [t for t in texts if t in only_english]
    assert not leaks, leaks
    keys = [t for t in texts if t in english]
    assert not keys, f"keys shown instead of text: {keys}"
    return len(texts)


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_pages_are_fully_translated(browser: Browser, server: str, lang: str) -> None:
    ctx = browser.new_context(locale=f"{lang}-{lang.upper()}",
                              viewport={"width": 1280, "height": 720})
    try:
        page = ctx.new_page()
        create_game(page, server, players=3, bots=1)  # a waiting room with an open seat
        check_page(page, lang)
        page.goto(f"{server}/#/")
        page.wait_for_selector(".game-row")
        assert check_page(page, lang) > 20
        for game in ("elfenland", "king-of-the-elves", "elfengold"):
            create_game(page, server, game=game, players=3, bots=2)
            start_game(page)
            rng = random.Random(1)
            for _ in range(4):
                wait_turn_or_end(page)
                check_page(page, lang)
                take_turn(page, rng)
            page.wait_for_timeout(300)
            check_page(page, lang)
            # Every game's log reads as sentences in this language too.
            assert not raw_log_lines(page)
    finally:
        ctx.close()


def test_the_language_switch_relabels_the_page(page: Page, server: str) -> None:
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#create-btn").inner_text() == TABLES["en"]["lobby.createBtn"]
    page.select_option("#lang-select", "de")
    page.wait_for_function("t => document.querySelector('#create-btn').textContent === t",
                           arg=TABLES["de"]["lobby.createBtn"])
    assert page.evaluate("document.documentElement.lang") == "de"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#create-btn").inner_text() == TABLES["de"]["lobby.createBtn"]
    page.select_option("#lang-select", "en")


def test_every_language_has_every_text() -> None:
    keys = set(TABLES["en"])
    for lang in ("fr", "de"):
        assert set(TABLES[lang]) == keys
        for key, text in TABLES[lang].items():
            assert text.strip(), (lang, key)
            # The same {placeholders} in every language.
            assert sorted(_fields(text)) == sorted(_fields(TABLES["en"][key])), (lang, key)


def _fields(text: str) -> list[str]:
    import re

    return re.findall(r"\{(\w+)\}", text)
