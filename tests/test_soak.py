"""``bench/soak.py`` (run by CI with 10,000 games) covers every configuration of both
games and reports a broken invariant instead of passing over it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from elfenland.core.errors import InvariantError


def load_soak() -> ModuleType:
    path = Path(__file__).parent.parent / "bench" / "soak.py"
    spec = importlib.util.spec_from_file_location("soak_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_soak_cycles_through_every_rule_set_variant_and_player_count() -> None:
    soak = load_soak()
    games = {(g, n) for g, n, _ in soak.CONFIGS}
    assert games == {(g, n) for g in ("elfenland", "king-of-the-elves")
                     for n in range(2, 7)} | {("elfengold", soak.ROTATING)}
    options = [o for _, _, o in soak.CONFIGS]
    assert {"rules": "moon"} in options and {"magic_spell": True} in options
    assert any(o.get("caravan") == "only-if-needed" for o in options)
    assert any(o.get("escort_two_towns") for o in options)


def test_a_small_soak_passes(capsys: pytest.CaptureFixture[str]) -> None:
    soak = load_soak()
    assert soak.main(["--games", "4", "--workers", "1"]) == 0
    assert "4 games" in capsys.readouterr().out


def test_a_broken_invariant_fails_the_soak(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    soak = load_soak()
    calls = []

    def broken(state: object) -> None:
        calls.append(state)
        if len(calls) == 30:
            raise InvariantError("planted")

    monkeypatch.setattr(soak, "check_game_state", broken)
    assert soak.main(["--games", "1", "--workers", "1", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "planted" in out and "seed 0" in out
