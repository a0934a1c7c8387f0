"""Random whole games for 2–6 players under every rule set, checking the invariants."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import elfenland
from elfenland.core.rng import Rng
from elfenland.games.elfenland import ElfenlandState, Phase
from elfenland.games.elfenland.state import CARDS_PER_KIND, COUNTERS_PER_KIND, NO_PIECE

RULES = [("amigo", False), ("amigo", True), ("moon", False)]


def check_accounting(s: ElfenlandState) -> None:
    for k in range(7):
        assert sum(h[k] for h in s.hands) + s.card_pile[k] == CARDS_PER_KIND[k]
        assert all(h[k] >= 0 for h in s.hands) and s.card_pile[k] >= 0
    for k in range(6):
        held = sum(s.counters_up[p][k] + s.counters_secret[p][k] + s.kept_up[p][k]
                   + s.kept_secret[p][k] for p in range(s.n))
        on_board = sum(1 for c in s.route_counter if c == k)
        assert held + on_board + s.face_up[k] + s.counter_pile[k] == COUNTERS_PER_KIND
    for r, owner in enumerate(s.route_obstacle):
        if owner != NO_PIECE:
            assert s.route_counter[r] != NO_PIECE and s.board.routes[r].is_road
            assert not s.obstacle_in_hand[owner]
    assert sum(s.face_up) <= s.rules.face_up_counters


def public_part(view: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in view.items() if k not in ("log", "seq")}


def play(players: int, seed: int, rules: str, destination: bool, chooser: int) -> None:
    rng = random.Random(chooser)
    s = elfenland.new_game(players=players, seed=seed, rules=rules, destination=destination)
    assert isinstance(s, ElfenlandState)
    been: list[set[int]] = [{s.board.capital} for _ in range(players)]
    checkpoints = {rng.randrange(40, 400) for _ in range(3)}
    steps = 0
    last_round = s.round
    while not s.is_terminal():
        if s.phase is Phase.DRAW_SECRET and s.step == 0 and s.round != last_round:
            last_round = s.round
            for p in range(players):
                assert s._counters_of(p) <= s.rules.counters_kept
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
        for p in range(players):
            been[p].add(s.boots[p])
            visited = {t for t in range(len(s.board.towns)) if s.visited[p] >> t & 1}
            assert visited <= been[p]
        if s.round == round_before and not s.is_terminal() and (
                s.phase is not Phase.MOVE or s.current_player() != mover) and (
                was_discarding or str(action) == "end"):
            assert sum(s.hands[mover]) <= s.rules.hand_limit
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
@given(players=st.integers(2, 6), seed=st.integers(0, 2**31), rules=st.sampled_from(RULES),
       chooser=st.integers(0, 2**31))
def test_random_whole_games_keep_every_invariant(
        players: int, seed: int, rules: tuple[str, bool], chooser: int) -> None:
    play(players, seed, rules[0], rules[1], chooser)


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
