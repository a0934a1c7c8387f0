"""The coverage-guided fuzzer's target (issue #22): one input is a JSON document, a
position or a saved game of any game, loaded on both engines side by side.  Both must
refuse it with a typed error (``PositionError`` / ``SerializationError``) or load the
same game, which must then give the same legal actions, play the same way for a few
steps and write the same position back.  Anything else — another exception, different
answers — is raised as a finding; a crash ends the process.

``seed_corpus`` writes the starting corpus: positions and saved games from real games of
both games under every rule set.  ``bench/fuzz.py`` runs this target under atheris
(libFuzzer, ``atheris_main.py``); ``tests/fuzz/test_documents.py`` runs it over the
corpus and its findings.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import elfenland
from elfenland.core.errors import ElfenlandError

from .engines import PAIRS, outcome, snapshot


class Divergence(AssertionError):
    """The two engines answered the same input differently."""


def _typed(kind: str, value: Any, what: str) -> None:
    if kind == "error" and value != "typed":
        raise Divergence(f"{what}: an untyped {value}")


def check_document(data: bytes) -> None:
    """Load ``data`` on both engines of its game and compare everything."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return
    if not isinstance(doc, dict):
        return
    fmt = str(doc.get("format", ""))
    for pair in PAIRS.values():
        if fmt.startswith(pair.game + "-position/"):
            _position(pair, doc)
        elif fmt.startswith(pair.game + "-game/"):
            _saved(pair, data.decode("utf-8", "replace"))


def _compare(pair: Any, a: tuple[str, Any], b: tuple[str, Any], what: str) -> None:
    _typed(*a, what=f"{what} (pure)")
    _typed(*b, what=f"{what} (compiled)")
    if a[0] != b[0]:
        raise Divergence(f"{what}: pure {a}, compiled {b}")
    if a[0] == "ok":
        if snapshot(a[1], pair.fields) != snapshot(b[1], pair.fields):
            raise Divergence(f"{what}: the engines loaded different games")
        _play(pair, a[1], b[1])


def _position(pair: Any, doc: dict[str, Any]) -> None:
    text = json.dumps(doc)
    a = outcome(lambda: pair.from_position(json.loads(text)))
    b = outcome(lambda: pair.from_state(pair.from_position(json.loads(text))))
    _compare(pair, a, b, "position")


def _saved(pair: Any, text: str) -> None:
    a = outcome(lambda: pair.deserialize_pure(text))
    b = outcome(lambda: pair.deserialize_compiled(text))
    _compare(pair, a, b, "saved game")


def _play(pair: Any, pure: Any, comp: Any, steps: int = 6) -> None:
    for _ in range(steps):
        a = outcome(lambda: [str(x) for x in pure.legal_actions()])
        b = outcome(lambda: [str(x) for x in comp.legal_actions()])
        if a != b:
            raise Divergence(f"legal actions: pure {a}, compiled {b}")
        if a[0] != "ok" or not a[1] or pure.is_terminal():
            break
        choice = a[1][len(pure.history) % len(a[1])]
        a2 = outcome(lambda c=choice: pure.apply_action(c))
        b2 = outcome(lambda c=choice: comp.apply_action(c))
        if a2 != b2:
            raise Divergence(f"apply {choice}: pure {a2}, compiled {b2}")
    a = outcome(lambda: pure.to_position())
    b = outcome(lambda: comp.to_position())
    if a != b:
        raise Divergence("the engines write different positions")
    if snapshot(pure, pair.fields) != snapshot(comp, pair.fields):
        raise Divergence("the engines ended in different states")


def replay(folders: list[Path]) -> int:
    """Every document in ``folders`` through ``check_document`` (the sanitizer job runs the
    corpus the coverage-guided fuzzer grew this way: atheris' coverage does not work with
    libasan preloaded).  Returns how many."""
    count = 0
    for folder in folders:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                check_document(path.read_bytes())
                count += 1
    return count


def seed_corpus(out: Path, games: int = 6) -> int:
    """Positions and saved games from real random games of both games, every rule set:
    the fuzzer's starting corpus.  Returns the number of files written."""
    out.mkdir(parents=True, exist_ok=True)
    setups: list[tuple[str, dict[str, Any]]] = [
        ("elfenland", {"rules": "amigo"}), ("king-of-the-elves", {}), ("elfengold", {}),
        ("elfenland", {"rules": "moon"}),
        ("king-of-the-elves", {"magic_spell": True, "weak_gold": True}),
        ("elfengold", {"witch": True, "random_gold": True, "town_cards": True}),
        ("elfenland", {"rules": "amigo", "destination": True}),
    ]
    written = 0
    for g in range(games):
        game, options = setups[g % len(setups)]
        rng = random.Random(g)
        state = elfenland.new_game(game=game, players=2 + g % 5, seed=g, **options)
        marks = sorted(rng.sample(range(400), 4))
        step = 0
        while not state.is_terminal():
            if step in marks:
                docs = [json.dumps(state.to_position()), state.serialize()]
                for i, text in enumerate(docs):
                    (out / f"{game}-{g}-{step}-{i}.json").write_text(text)
                    written += 1
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            step += 1
        (out / f"{game}-{g}-end.json").write_text(json.dumps(state.to_position()))
        written += 1
    return written


__all__ = ["Divergence", "ElfenlandError", "check_document", "replay", "seed_corpus"]
