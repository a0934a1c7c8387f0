"""The words the page uses: every error code the server can send has a text in every
language; a translated error is not followed by the server's English detail; counts use
the language's plural forms; Take back and Cancel are different words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from elfenland.server.errors import HTTP_STATUS

I18N = Path(__file__).resolve().parents[2] / "src" / "elfenland" / "web" / "static" / "i18n"
LANGS = ("en", "fr", "de")
TABLES = {lang: json.loads((I18N / f"{lang}.json").read_text()) for lang in LANGS}


@pytest.mark.parametrize("lang", LANGS)
def test_every_server_error_code_has_a_text(lang: str) -> None:
    missing = sorted(code for code in HTTP_STATUS if f"error.{code}" not in TABLES[lang])
    assert missing == [], f"{lang}: no text for {missing}"


@pytest.mark.parametrize("lang", LANGS)
def test_plural_texts_have_their_forms(lang: str) -> None:
    """A key with plural forms has the "other" form and, for these languages, "one"."""
    table = TABLES[lang]
    plural = {k.rsplit(".", 1)[0] for k in table if k.endswith((".one", ".other"))}
    assert plural
    for base in plural:
        assert f"{base}.one" in table and f"{base}.other" in table, base
        assert base not in table, f"{base} is also a plain key"


def test_take_back_and_cancel_are_different_words() -> None:
    for lang in LANGS:
        assert TABLES[lang]["undo.button"] != TABLES[lang]["common.cancel"], lang


@pytest.mark.browser
def test_errors_and_plurals_in_the_page(browser: Browser, server: str) -> None:
    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        page.goto(f"{server}/")
        page.wait_for_selector("body[data-ready='1']")
        # A refusal with an English detail, on a French page: the French title alone.
        page.evaluate("""async () => {
            const { showError } = await import('/js/notify.js');
            showError({ code: 'wrong-phase', message: 'the game is in its move phase' });
        }""")
        toast = page.locator(".toast.error").last
        assert toast.locator("strong").inner_text() == TABLES["fr"]["error.wrong-phase"]
        assert toast.locator(".detail").count() == 0
        assert "move phase" not in toast.inner_text()
        # Intl.PluralRules: French says "1 carte", "2 cartes" (and "0 carte").
        texts = page.evaluate("""async () => {
            const { tn } = await import('/js/i18n.js');
            return [0, 1, 2].map((n) => tn('discard.more', n));
        }""")
        assert texts == ["Défaussez encore 0 carte : choisissez-la",
                         "Défaussez encore 1 carte : choisissez-la",
                         "Défaussez encore 2 cartes : choisissez-les"]
        page.select_option("#lang-select", "en")
        texts = page.evaluate("""async () => {
            const { tn } = await import('/js/i18n.js');
            return [1, 2].map((n) => tn('summary.towns', n, { name: 'Ann', total: 5 }));
        }""")
        assert texts == ["Ann: +1 town (5 in all)", "Ann: +2 towns (5 in all)"]
        # On an English page the server's detail helps and is shown.
        page.evaluate("""async () => {
            const { showError } = await import('/js/notify.js');
            showError({ code: 'illegal', message: 'no counter on that road' });
        }""")
        assert "no counter on that road" in page.locator(".toast.error").last.inner_text()
    finally:
        ctx.close()
