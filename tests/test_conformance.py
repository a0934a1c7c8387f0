"""One conformance test every registered game must pass: the OpenSpiel-style surface
behaves the same way for all of them, so tools written for one work with the others.

Also the golden playthroughs: recorded games (seed, actions, and a digest of the views
after each action) that must replay identically.  Regenerate one on purpose with
``ELFENLAND_REGOLD=1 pytest tests/test_conformance.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

import elfenland
from elfenland.core.game import TERMINAL, GameState
from elfenland.core.rng import Rng
from elfenland.games.registry import GAMES

GOLDEN = Path(__file__).parent / "golden"


def random_game(game: str, players: int, seed: int) -> tuple[GameState, list[GameState]]:
    rng = random.Random(seed)
    state = elfenland.new_game(game=game, players=players, seed=seed)
    snapshots = []
    while not state.is_terminal():
        if rng.random() < 0.02:
            snapshots.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state, snapshots


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 4, 6])
def test_state_interface(game: str, players: int) -> None:
    final, snapshots = random_game(game, players, seed=players)
    assert final.is_terminal() and final.current_player() == TERMINAL
    assert final.legal_actions() == []
    returns = final.returns()
    assert len(returns) == players and abs(sum(returns) - 1.0) < 1e-9
    assert final.winners() and all(0 <= p < players for p in final.winners())
    assert len(final.scores()) == players
    for s in [*snapshots, final]:
        assert s.num_players == players
        text = s.serialize()
        assert elfenland.deserialize(text) == s
        assert elfenland.load_position(s.to_position()).to_position() == s.to_position()
        for viewer in [None, *range(players)]:
            json.dumps(s.view(viewer))
        if s.is_terminal():
            continue
        p = s.current_player()
        assert 0 <= p < players
        legal = s.legal_actions()
        assert legal
        assert len({a.id for a in legal}) == len(legal), "each legal action listed once"
        for a in legal:
            assert s.parse_action(str(a)) == a
            assert s.parse_action(a.id) == a
        clone = s.clone()
        clone.apply_action(legal[-1])
        assert clone != s  # a clone is independent
        assert len(s.history) + 1 == len(clone.history)
        resampled = s.resample_from_infostate(p, Rng(1))
        assert resampled.current_player() == p
        assert {str(a) for a in resampled.legal_actions()} == {str(a) for a in legal}
        with pytest.raises(ValueError):
            s.apply_action("this is not an action")


def digest(state: GameState) -> str:
    views = [state.view(p) for p in [None, *range(state.num_players)]]
    return hashlib.sha256(json.dumps(views, sort_keys=True).encode()).hexdigest()[:16]


def playthrough(game: str, players: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    state = elfenland.new_game(game=game, players=players, seed=seed)
    lines = [f"# {game}, {players} players, seed {seed}: action | digest of every view after it"]
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        state.apply_action(action)
        lines.append(f"{state.view(None)['log'][-1]['player']} {action} | {digest(state)}")
    lines.append(f"scores {state.scores()} winners {state.winners()}")
    return lines


@pytest.mark.parametrize("game", sorted(GAMES))
def test_golden_playthrough(game: str) -> None:
    path = GOLDEN / f"{game}-3p-seed2026.txt"
    lines = playthrough(game, 3, 2026)
    if os.environ.get("ELFENLAND_REGOLD") or not path.exists():
        path.write_text("\n".join(lines) + "\n")
        if not os.environ.get("ELFENLAND_REGOLD"):
            pytest.fail(f"golden file {path.name} was missing and has been written; commit it")
    assert path.read_text().splitlines() == lines


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_view_after_k_holds_the_full_logs_tail(game: str) -> None:
    """``view(p, log_after=k)`` is ``view(p)`` with the log's first k entries left out, on
    the compiled and the pure engine alike, for positions loaded without a history too."""
    import importlib

    pure = importlib.import_module(GAMES[game].module).pure_deserialize
    final, snapshots = random_game(game, 3, seed=11)
    loaded = elfenland.load_position(snapshots[len(snapshots) // 2].to_position())
    rng = random.Random(5)
    for _ in range(40):
        loaded.apply_action(rng.choice(loaded.legal_actions()))
    for s in [*snapshots, final, loaded]:
        for twin in (s, pure(s.serialize()) if s is not loaded else s):
            for viewer in (None, 0, 2):
                whole = twin.view(viewer)
                n = len(whole["log"])
                assert whole["seq"] == n == twin.history_length() == len(twin.history)
                for k in sorted({0, 1, n // 2, max(n - 1, 0), n, n + 3}):
                    part = twin.view(viewer, log_after=k)
                    assert part["log"] == whole["log"][k:]
                    assert {**part, "log": None} == {**whole, "log": None}


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("reader", [3, -1, -4, True, 1.0, "0", [0]])
def test_a_view_for_nobody_at_the_table_is_refused(game: str, reader: object) -> None:
    """``view`` reads a seat or None (a spectator).  Before, a seat out of range, the
    terminal marker or a string gave a spectator's view named after it, and ``True`` or
    ``1.0`` gave seat 1's hidden cards: every game now refuses them, and the state is
    unchanged."""
    state = elfenland.new_game(game=game, players=3, seed=4)
    before = state.serialize()
    with pytest.raises(elfenland.ElfenlandError, match="no player"):
        state.view(reader)  # type: ignore[arg-type]
    with pytest.raises(elfenland.ElfenlandError, match="log_after"):
        state.view(0, log_after=-1)
    assert state.serialize() == before
    assert state.view(2)["viewer"] == 2 and state.view(None)["viewer"] is None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_resampling_takes_a_random_random_and_refuses_what_is_not_a_generator(
        game: str) -> None:
    """OpenSpiel's ``resample_from_infostate(player, rng)`` is called with whatever
    generator a tool has.  Before, a ``random.Random`` (or anything but the engine's
    ``Rng``) failed with an ``AttributeError`` from inside the engine, and ``True``
    passed for seat 1 in two of the games."""
    state = elfenland.new_game(game=game, players=3, seed=4)
    before = state.serialize()
    first = state.resample_from_infostate(1, random.Random(9))
    again = state.resample_from_infostate(1, random.Random(9))
    assert first.to_position() == again.to_position()
    assert first.view(1) == state.view(1)  # the same information set
    assert first.to_position() == state.resample_from_infostate(1, Rng.sharing(
        random.Random(9))).to_position()
    for rng in (None, 5, "seed", random):
        with pytest.raises(elfenland.ElfenlandError, match="rng is an elfenland Rng"):
            state.resample_from_infostate(0, rng)  # type: ignore[arg-type]
    for player in (True, 1.0, -1, 3):
        with pytest.raises(elfenland.ElfenlandError, match="no player"):
            state.resample_from_infostate(player, Rng(1))  # type: ignore[arg-type]
    assert state.serialize() == before
