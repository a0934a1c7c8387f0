"""The page's words in English, French and German, read from the files the browser loads
(no browser): every text key the scripts and the HTML use exists in all three tables, with
the same {placeholders}; the values the server sends that become keys (bot levels, games,
rule options) have their texts; nothing the player reads is written in English in the
markup; a French or German count of one is not followed by a plural noun; and a text that
quotes a button's label quotes it as the button says it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from elfenland.bots.base import BOT_LEVELS
from elfenland.games.registry import GAMES

STATIC = Path(__file__).resolve().parents[2] / "src" / "elfenland" / "web" / "static"
LANGS = ("en", "fr", "de")
TABLES = {lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text()) for lang in LANGS}
SOURCES = {
    p.relative_to(STATIC).as_posix(): p.read_text()
    for p in [*sorted((STATIC / "js").glob("*.js")), STATIC / "index.html"]
}
PREFIXES = {k.split(".", 1)[0] for k in TABLES["en"]}
PLURAL = (".one", ".other")


def _fields(text: str) -> list[str]:
    return sorted(re.findall(r"\{(\w+)\}", text))


def _exists(table: dict[str, str], key: str) -> bool:
    """A plain key, or the base of a plural one (tn() adds .one/.other)."""
    return key in table or all(key + p in table for p in PLURAL)


def _literal_keys() -> set[tuple[str, str]]:
    """Every quoted string of the sources shaped like a key of the tables (the first
    argument of t()/tn(), either branch of a ternary, a key kept in a variable, a
    data-i18n* attribute), with the file it is in."""
    found = set()
    for name, src in SOURCES.items():
        for m in re.finditer(r"""(["'`])([a-zA-Z]+(?:\.[A-Za-z0-9_-]+)+)\1""", src):
            if m.group(2).split(".", 1)[0] in PREFIXES and not m.group(2).endswith(".js"):
                found.add((m.group(2), name))
        for m in re.finditer(r'data-i18n(?:-[a-z-]+)?="([^"$]+)"', src):
            found.add((m.group(1), name))
    return found


def test_the_sources_use_keys() -> None:
    keys = {k for k, _ in _literal_keys()}
    assert {"lobby.createBtn", "lang.label", "koe.log.buy", "score.detail"} <= keys


def test_every_key_used_exists_in_every_language() -> None:
    missing = sorted(
        f"{lang}: {key} ({name})"
        for key, name in _literal_keys()
        for lang in LANGS
        if not _exists(TABLES[lang], key)
    )
    assert missing == []


def test_every_built_key_has_texts() -> None:
    """A key built from a value (t(`level.${level}`)): the prefix has texts."""
    for name, src in SOURCES.items():
        for m in re.finditer(
            r"(?:\b(?:t|tn|has)\(\s*`|data-i18n(?:-[a-z-]+)?=\")"
            r"([a-zA-Z]+(?:\.[A-Za-z]+)*\.)\$\{",
            src,
        ):
            for lang in LANGS:
                assert any(k.startswith(m.group(1)) for k in TABLES[lang]), (name, m.group(1), lang)


def test_the_languages_have_the_same_keys_and_placeholders() -> None:
    for lang in ("fr", "de"):
        assert sorted(set(TABLES["en"]) ^ set(TABLES[lang])) == [], lang
        for key, text in TABLES[lang].items():
            assert text.strip(), (lang, key)
            assert _fields(text) == _fields(TABLES["en"][key]), (lang, key, text)


@pytest.mark.parametrize("lang", LANGS)
def test_every_bot_level_and_game_has_a_name(lang: str) -> None:
    """The lobby, the table and the leaderboard name a bot seat by its level, whichever
    the game was created with (the form offers three; the API and the command line all)."""
    table = TABLES[lang]
    assert sorted(lv for lv in BOT_LEVELS if f"level.{lv}" not in table) == []
    assert sorted(g for g in GAMES if f"game.{g}" not in table) == []


@pytest.mark.parametrize("lang", LANGS)
def test_elfengold_rule_options_have_texts(lang: str) -> None:
    """The lobby builds Elfengold's rule fields from the server's specification; a field
    without a text would show the specification's English doc or raw choice value."""
    spec = GAMES["elfengold"].options
    missing = []
    for o in spec.options:
        if o.name in spec.variants:
            continue
        if f"opt.eg.{o.name}" not in TABLES[lang]:
            missing.append(o.name)
        missing += [f"{o.name}={c}" for c in o.choices if f"optv.{c}" not in TABLES[lang]]
    assert missing == []


UNTRANSLATED = [
    # An attribute the player (or a screen reader) reads, written in the markup.
    re.compile(
        r"""(?<![\w-])(?:aria-label|title|placeholder|alt)=["'](?!https?:)[^"'$]*[A-Za-z]{2}"""
    ),
    re.compile(r"""\.(?:textContent|innerText|title|placeholder)\s*=\s*["'`][^"'`$]*[A-Za-z]{2}"""),
    re.compile(
        r"""setAttribute\(\s*["'](?:aria-label|title|placeholder)["']\s*,\s*["'`][A-Za-z]"""
    ),
    re.compile(r"""\b(?:alert|confirm|prompt)\(\s*["'`]"""),
]


def test_no_english_written_in_the_markup() -> None:
    found = []
    for name, src in SOURCES.items():
        for n, line in enumerate(src.splitlines(), 1):
            found += [f"{name}:{n}: {line.strip()}" for rx in UNTRANSLATED if rx.search(line)]
    assert found == []


#: A count followed by a plural noun, in a text that has no singular form.
PLURAL_NOUN = {
    "fr": re.compile(r"\{(\w+)\} (?:pièces|cartes|villes|parties|étapes|places|nouvelles)\b"),
    "de": re.compile(r"\{(\w+)\} (?:Münzen|Karten|Städte|Partien|Goldstücke|Schritte|neue)\b"),
}
#: Counts that are never one: a caravan takes two cards or more, the lobby's live
#: notices say "one game" with the game's name (live.yourTurn, live.newGame), and King
#: of the Elves' bonus for every town visited is 10 gold.
NEVER_ONE = {
    "move.caravan",
    "move.boatmen",
    "caravan.how",
    "caravan.costTitle",
    "live.yourTurns",
    "live.newGames",
    "koe.log.bonus",
}


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_a_count_of_one_is_singular(lang: str) -> None:
    """ "1 pièces d'or", "1 Goldstücke": a text with a count that may be one has plural
    forms (tn(): .one and .other)."""
    bad = sorted(
        f"{key}: {text}"
        for key, text in TABLES[lang].items()
        if not key.endswith(PLURAL) and key not in NEVER_ONE and PLURAL_NOUN[lang].search(text)
    )
    assert bad == []


QUOTED = {"en": r"“([^”]+)”", "fr": r"« ([^»]+?) »", "de": r"„([^“]+)“"}


@pytest.mark.parametrize("lang", LANGS)
def test_quoted_labels_are_the_page_labels(lang: str) -> None:
    """ "Enter your name under “New game”": the quoted words are a text of the page (a
    heading, a button) in the same language, so the player finds them."""
    table = TABLES[lang]
    labels = {v.strip().lower() for v in table.values()}
    bad = sorted(
        f"{key}: {q}"
        for key, text in table.items()
        for q in re.findall(QUOTED[lang], text)
        if q.lower() not in labels and re.search(r"\w", q)
    )
    assert bad == []


def test_french_round_is_manche() -> None:
    """The French page calls a round "manche" (its title bar, its panel); the round's
    summary says the same."""
    rounds = [k for k, v in TABLES["en"].items() if re.search(r"\bRound\b", v)]
    assert rounds
    for key in rounds:
        assert "manche" in TABLES["fr"][key].lower(), (key, TABLES["fr"][key])


@pytest.mark.browser
def test_the_french_and_german_page_words(browser: Browser, server: str) -> None:
    """At run time: the language menu's name, French elision ("le royaume d’Ann"), the
    singular of a count of one, and a bot level the lobby's form does not offer."""
    ctx = browser.new_context(locale="fr-FR", viewport={"width": 1280, "height": 720})
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server}/")
        page.wait_for_selector("body[data-ready='1']")
        assert page.get_attribute("#lang-select", "aria-label") == TABLES["fr"]["lang.label"]
        words = """async () => {
            const { t, tn } = await import('/js/i18n.js');
            const { seatLabel } = await import('/js/lobby.js');
            return [t('koe.kingdom', { name: 'Ann' }), t('koe.kingdom', { name: 'Bob' }),
                    t('live.newGame', { game: t('game.elfenland') }),
                    tn('koe.log.buy', 1, { name: 'Bob' }), tn('koe.log.buy', 2, { name: 'Bob' }),
                    tn('score.detail', 1), tn('eg.log.default', 1, { name: 'Bob', item: 'X' }),
                    seatLabel({ kind: 'bot', seat: 1, level: 'quick' })];
        }"""
        assert page.evaluate(words) == [
            "Royaume d’Ann",
            "Royaume de Bob",
            "Une nouvelle partie d’Elfenland attend des joueurs.",
            "Bob a acheté une carte pour 1 pièce d'or.",
            "Bob a acheté une carte pour 2 pièces d'or.",
            "1 ville",
            "— Bob n’a pas pu payer X et a donné 1 pièce",
            "Robot 2 (Rapide)",
        ]
        # A game that does not exist: the French words, not the server's English message.
        page.goto(f"{server}/#/game/no-such-game")
        page.wait_for_selector(".card.narrow h1")
        assert page.locator(".card.narrow p").inner_text() == TABLES["fr"]["error.not-found"]
        page.goto(f"{server}/#/")
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("#lang-select", "de")
        page.wait_for_function("() => document.documentElement.lang === 'de'")
        assert page.get_attribute("#lang-select", "aria-label") == TABLES["de"]["lang.label"]
        assert page.evaluate(words) == [
            "Königreich von Ann",
            "Königreich von Bob",
            "Eine neue Partie Elfenland wartet auf Mitspieler.",
            "Bob hat eine Karte für 1 Gold gekauft.",
            "Bob hat eine Karte für 2 Gold gekauft.",
            "1 Stadt",
            "— Bob konnte X nicht bezahlen und gab 1 Münze ab",
            "Computer 2 (Schnell)",
        ]
        assert errors == []
    finally:
        ctx.close()
