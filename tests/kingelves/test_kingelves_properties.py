"""Properties over random whole games, 2–6 players, each variant: every card and coin
accounted for, determinism, saved games that replay, views that leak nothing, and
resampled states that the player cannot tell from the real one."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from ke_support import check_accounts

import elfenland
from elfenland import Rng
from elfenland.games.kingelves.invariants import CONFIGURATIONS
from elfenland.games.kingelves.state import KingOfTheElvesState, Phase

VARIANTS: list[dict[str, bool]] = [dict(c) for c in CONFIGURATIONS]  # type: ignore[misc]
games = st.tuples(st.integers(2, 6), st.integers(0, 2**31), st.sampled_from(VARIANTS))


def new(players: int, seed: int, variant: dict[str, bool]) -> KingOfTheElvesState:
    s = elfenland.new_game(game="king-of-the-elves", players=players, seed=seed, **variant)
    assert isinstance(s, KingOfTheElvesState)
    return s


def step(s: KingOfTheElvesState, rng: random.Random) -> None:
    """A random move, leaning towards passing and stopping so that games stay short, and
    towards visiting so that journeys happen."""
    legal = s.legal_actions()
    names = [str(a) for a in legal]
    quiet = [a for a, n in zip(legal, names, strict=True) if n in ("pass", "stop")]
    visits = [a for a, n in zip(legal, names, strict=True) if n.startswith(("visit", "spell"))]
    roll = rng.random()
    if visits and roll < 0.6:
        s.apply_action(rng.choice(visits))
    elif quiet and roll < 0.75:
        s.apply_action(quiet[0])
    else:
        s.apply_action(rng.choice(legal))


def strip(view: dict[str, Any]) -> dict[str, Any]:
    """A view without what comes from the history (a resampled state has none)."""
    return {k: v for k, v in view.items() if k not in ("log", "seq", "take_back")}


def check_views(s: KingOfTheElvesState, rng: random.Random) -> None:
    over = s.is_terminal()
    for viewer in [None, *range(s.n)]:
        view = s.view(viewer)
        json.dumps(view)
        for entry in view["players"]:
            mine = entry["seat"] == viewer
            assert ("hand" in entry) == mine
            assert ("gold" in entry) == (mine or over)
        assert ("legal" in view) == (viewer == s.current and not over)
        for item in view["log"]:
            if item["player"] != viewer:
                assert "card" not in item and "cards" not in item
        if viewer is None:
            continue
        if not over:
            # Other players' gold may be anything: the view does not change.
            other = (viewer + 1) % s.n
            richer = s.clone()
            richer.gold[other] += 5
            richer.bank -= 5
            assert richer.view(viewer) == view
        # A resampled state looks the same to the player, and is a valid state.
        sample = s.resample_from_infostate(viewer, Rng(rng.randrange(2**32)))
        check_accounts(sample)
        assert strip(sample.view(viewer)) == strip(view)
        assert sample.hands[viewer] == s.hands[viewer]
        assert [sum(h) for h in sample.hands] == [sum(h) for h in s.hands]
        assert sample.gold == s.gold and sample.kingdoms == s.kingdoms
        assert [str(a) for a in sample.legal_actions()] == [str(a) for a in s.legal_actions()] \
            or s.current != viewer


@settings(max_examples=30, deadline=None)
@given(games)
def test_random_games_account_for_every_card_and_coin(game: tuple[int, int, dict[str, bool]]
                                                      ) -> None:
    players, seed, variant = game
    s = new(players, seed, variant)
    rng = random.Random(seed)
    phases = set()
    while not s.is_terminal():
        step(s, rng)
        check_accounts(s)
        phases.add(s.phase)
        assert len(s.history) < 20_000
    assert Phase.JOURNEY in phases
    assert s.round == {2: 2, 3: 3, 4: 4, 5: 5, 6: 5}[players]
    assert s.winners() and all(s.gold[w] == max(s.gold) for w in s.winners())


@settings(max_examples=20, deadline=None)
@given(games)
def test_determinism_and_serialize_round_trip(game: tuple[int, int, dict[str, bool]]) -> None:
    players, seed, variant = game
    s = new(players, seed, variant)
    twin = new(players, seed, variant)
    assert s == twin
    rng = random.Random(seed)
    checkpoints = 0
    while not s.is_terminal():
        step(s, rng)
        twin.apply_action(str(s.history[-1]))
        if rng.random() < 0.01:
            assert elfenland.deserialize(s.serialize()) == s
            checkpoints += 1
    assert s == twin
    assert elfenland.deserialize(s.serialize()) == s
    clone = s.clone()
    assert clone == s and clone is not s and clone.hands is not s.hands


@settings(max_examples=15, deadline=None)
@given(games)
def test_views_leak_nothing_and_resampling_agrees(game: tuple[int, int, dict[str, bool]]
                                                  ) -> None:
    players, seed, variant = game
    s = new(players, seed, variant)
    rng = random.Random(seed)
    while not s.is_terminal():
        step(s, rng)
        if rng.random() < 0.03:
            check_views(s, rng)
    check_views(s, rng)


@settings(max_examples=15, deadline=None)
@given(games, st.integers(0, 400))
def test_clones_draw_the_same_future(game: tuple[int, int, dict[str, bool]], moves: int
                                     ) -> None:
    players, seed, variant = game
    s = new(players, seed, variant)
    rng = random.Random(seed)
    for _ in range(moves):
        if s.is_terminal():
            break
        step(s, rng)
    c = s.clone()
    for state in (s, c):
        local = random.Random(1)
        for _ in range(50):
            if state.is_terminal():
                break
            step(state, local)
    assert s == c
    assert s.to_position() == c.to_position()


@settings(max_examples=10, deadline=None)
@given(games)
def test_uniform_random_games_reach_every_kind_of_step(game: tuple[int, int, dict[str, bool]]
                                                       ) -> None:
    """Uniform choices: long building phases, multi-step actions, removals, purchases."""
    players, seed, variant = game
    s = new(players, seed, variant)
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
        check_accounts(s)
        if rng.random() < 0.003:
            check_views(s, rng)
    assert elfenland.deserialize(s.serialize()) == s
