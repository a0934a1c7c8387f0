"""The coverage-guided fuzzer's target over its seed corpus (positions and saved games
from real games) and over every finding kept in ``tests/fuzz/findings/``: each input is
loaded on both engines, which must agree and raise only typed errors (issue #22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .documents import check_document, seed_corpus
from .engines import PAIRS

FINDINGS = Path(__file__).parent / "findings"

pytestmark = pytest.mark.skipif(not all(p.available for p in PAIRS.values()),
                                reason="compiled engines not built")


def test_the_seed_corpus_loads_alike_on_both_engines(tmp_path: Path) -> None:
    assert seed_corpus(tmp_path, games=5) >= 20
    for path in sorted(tmp_path.iterdir()):
        check_document(path.read_bytes())


@pytest.mark.parametrize("path", sorted(FINDINGS.glob("*.json")), ids=lambda p: p.name)
def test_every_finding_stays_fixed(path: Path) -> None:
    check_document(path.read_bytes())


def test_mutated_documents_are_refused_alike(tmp_path: Path) -> None:
    """Every top-level field of a real position and saved game replaced by values of the
    wrong type or out of range: both engines refuse alike (or load alike)."""
    seed_corpus(tmp_path, games=5)
    bad = [None, -1, 2**40, "x", [], {}, [2**70] * 7, True, 1.5]
    for path in sorted(tmp_path.iterdir())[::3]:
        doc = json.loads(path.read_text())
        for key in doc:
            for value in bad:
                check_document(json.dumps({**doc, key: value}).encode())
