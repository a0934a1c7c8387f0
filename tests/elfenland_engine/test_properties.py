"""Random whole games for 2–6 players under every rule set, checking the invariants."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import elfenland
from elfenland.core.rng import Rng
from elfenland.games.elfenland import ElfenlandState
from elfenland.games.elfenland.invariants import CONFIGURATIONS, Watcher, check_state


def check_accounting(s: ElfenlandState) -> None:
    check_state(s)


def public_part(view: dict[str, object]) -> dict[str, object]:
    """A view without what comes from the history (a resampled state has none): the log,
    seq and whether the last action may be taken back."""
    return {k: v for k, v in view.items() if k not in ("log", "seq", "take_back")}


def play(players: int, seed: int, options: dict[str, Any], chooser: int) -> None:
    rng = random.Random(chooser)
    s = elfenland.new_game(players=players, seed=seed, **options)
    assert isinstance(s, ElfenlandState)
    watcher = Watcher(s)
    checkpoints = {rng.randrange(40, 400) for _ in range(3)}
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal, "a live game always offers an action"
        assert len({a.id for a in legal}) == len(legal), "each legal action listed once"
        mover = s.current_player()
        action = legal[rng.randrange(len(legal))]
        assert s.parse_action(str(action)) == action
        assert s.parse_action(action.id) is action
        was_discarding = s.discarding
        round_before = s.round
        s.apply_action(action)
        steps += 1
        watcher.after(s, mover, str(action), was_discarding, round_before)
        check_accounting(s)
        if steps in checkpoints:
            check_snapshot(s, rng)
    assert s.current_player() == elfenland.TERMINAL
    assert abs(sum(s.returns()) - 1.0) < 1e-9
    assert s.winners() and s.legal_actions() == []
    check_snapshot(s, rng)


def check_snapshot(s: ElfenlandState, rng: random.Random) -> None:
    # Same seed and actions give the same game; a saved game loads back equal.
    text = s.serialize()
    loaded = elfenland.deserialize(text)
    assert loaded == s
    # The position round-trips.
    pos = s.to_position()
    json.dumps(pos)
    again = elfenland.load_position(json.loads(json.dumps(pos)))
    assert again.to_position() == pos
    clone = s.clone()
    assert clone == s
    for p in range(s.n):
        view = s.view(p)
        json.dumps(view)
        for q, entry in enumerate(view["players"]):
            if q != p:
                assert "hand" not in entry and "secret" not in entry
                if not s.is_terminal():
                    assert "town_card" not in entry
        # A resampled state looks the same to p: nothing p sees depends on what p
        # may not see.
        resampled = s.resample_from_infostate(p, Rng(rng.randrange(1 << 30)))
        assert public_part(resampled.view(p)) == public_part(view)
        assert resampled.hands[p] == s.hands[p]
        check_accounting(resampled)
    spectator = s.view(None)
    assert all("hand" not in e for e in spectator["players"])
    assert clone == s  # nothing above changed the state


@settings(max_examples=50, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**31),
       options=st.sampled_from(CONFIGURATIONS), chooser=st.integers(0, 2**31))
def test_random_whole_games_keep_every_invariant(
        players: int, seed: int, options: dict[str, Any], chooser: int) -> None:
    play(players, seed, options, chooser)


@settings(max_examples=10, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**31), chooser=st.integers(0, 2**31))
def test_the_same_seed_and_actions_give_the_same_game(players: int, seed: int,
                                                       chooser: int) -> None:
    rng = random.Random(chooser)
    a = elfenland.new_game(players=players, seed=seed)
    b = elfenland.new_game(players=players, seed=seed)
    while not a.is_terminal():
        legal = a.legal_actions()
        choice = legal[rng.randrange(len(legal))]
        a.apply_action(choice)
        b.apply_action(str(choice))
        assert a == b
    assert a.scores() == b.scores()


def test_views_of_the_same_state_differ_only_in_the_viewers_own_secrets() -> None:
    s = elfenland.new_game(players=4, seed=5)
    for _ in range(4):
        s.apply_action("draw secret")
    views = [s.view(p) for p in range(4)]
    for p in range(4):
        mine = views[p]["players"][p]
        assert len(mine["hand"]) == 8 and len(mine["secret"]) == 1
        for q in range(4):
            if q != p:
                assert "hand" not in views[q]["players"][p]
    assert "legal" in views[s.current_player()]
    assert all("legal" not in views[p] for p in range(4) if p != s.current_player())
