"""Issue #22: nothing a caller writes reaches the compiled Elfenland engine's C arrays
unchecked.  Each case crashed (or silently misplayed) before; a case runs in a child
interpreter and must end cleanly with a typed ``ElfenlandError`` raised by the write,
the state unchanged."""

from __future__ import annotations

import dataclasses

import pytest
from tests._compiled_harness import (
    assert_uninitialised_calls_raise,
    field_write_test,
    reconfigure,
)

from elfenland.core.errors import ElfenlandError, IllegalActionError
from elfenland.games.elfenland import Action, ElfenlandState, Phase, fast
from elfenland.games.elfenland.actions import Kind, Pay

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="compiled engine not built")

NEW = "from elfenland.games.elfenland.fast import FastElfenlandState as F\ns = F(players=2, seed=3)"
MOVE = NEW + """
while s.phase.value != "move":
    s.apply_action(s.legal_actions()[0])
"""
PLAY = """
for _ in range(5):
    if s.is_terminal():
        break
    s.apply_action(s.legal_actions()[-1])
"""

WRITES = {
    "current out of range": (NEW, "s.current = 10**6"),
    "current past the players": (NEW, "s.current = 5"),
    "negative current": (NEW, "s.current = -1"),
    "starting out of range": (NEW, "s.starting = 7"),
    "boots out of the map": (MOVE, "s.boots = [10**6] * s.n"),
    "route counter of no kind": (MOVE, "s.route_counter = [10**6] * len(s.route_counter)"),
    "route obstacle of no player": (MOVE, "s.route_obstacle = [9] * len(s.route_obstacle)"),
    "town card of no town": (NEW, "s.town_cards = [10**6] * s.n"),
    "negative hand": (MOVE, "s.hands = [[-5] * 7 for _ in range(s.n)]"),
    "huge hand": (MOVE, "s.hands = [[2**40] * 7 for _ in range(s.n)]"),
    "pile over a count": (NEW, "s.card_pile = [10**9] * 7"),
    "counters of no player": (NEW, "s.counters_up = [[1] * 6] * 9"),
    "visited beyond the map": (NEW, "s.visited = [2**62] * s.n"),
    "round beyond an int": (NEW, "s.round = 2**40"),
    "result of no seat": (NEW, "s.result = [7]"),
    "a string for a count": (NEW, "s.face_up = ['1'] * 6"),
    "a half-written matrix": (NEW, "s.hands = [[1] * 7, [1] * 7, 'x']"),
}


test_a_bad_field_write_is_refused_before_anything_changes = field_write_test(WRITES, PLAY)


def test_a_state_made_without_init_raises_instead_of_crashing() -> None:
    assert_uninitialised_calls_raise(
        "from elfenland.games.elfenland.fast import FastElfenlandState as F",
        ["s._resample(0, Rng(1))", "s.resample_from_infostate(0, Rng(1))",
         "s.apply_action(s.legal_actions()[0])", "s._start(2)", "s.clone().legal_actions()"])


def test_a_failed_configure_changes_nothing() -> None:
    out = reconfigure("elfenland.games.elfenland", '{"sizes": [1, 2, 0, 1]}',
                      'print("routes", len(elfenland.new_game(players=3, seed=4).route_counter))')
    assert "routes 72" not in out
    from elfenland.games.elfenland.board import load_board

    assert f"routes {len(load_board().routes)}" in out, out


def test_lists_read_from_a_compiled_state_are_copies() -> None:
    s = fast.FastElfenlandState(players=3, seed=5)
    twin = s.clone()
    position = s.to_position()
    s.hands[0][0] += 50
    s.card_pile[0] = 999
    s.counters_up[1].append(3)
    assert s.hands[0][0] < 50 and s.card_pile[0] != 999 and s.to_position() == position
    assert s == twin


ENGINES = ["pure", "compiled"]


def _new(engine: str, players: int = 2, seed: int = 3) -> ElfenlandState:
    if engine == "compiled":
        return fast.FastElfenlandState(players=players, seed=seed)
    return ElfenlandState(players=players, seed=seed)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_forged_action_is_played_as_what_it_says(engine: str) -> None:
    s = _new(engine)
    draw_secret = s.legal_actions()[0]
    assert draw_secret.kind is Kind.DRAW_SECRET
    forged = Action(Kind.END, _id=draw_secret._id)
    with pytest.raises(IllegalActionError):
        s.apply_action(forged)
    assert s.history_length() == 0 and s.phase is Phase.DRAW_SECRET


@pytest.mark.parametrize("engine", ENGINES)
def test_an_equal_copy_of_a_legal_action_is_legal(engine: str) -> None:
    s = _new(engine)
    twin = s.clone()
    action = s.legal_actions()[0]
    s.apply_action(dataclasses.replace(action))
    twin.apply_action(action)
    assert s == twin and s.history_length() == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_caravan_copied_onto_another_route_is_played_as_it_says(engine: str) -> None:
    state = _new(engine, seed=11)
    while state.phase is not Phase.MOVE:
        state.apply_action(state.legal_actions()[-1])
    for action in state.legal_actions():
        if action.kind is Kind.MOVE:
            plain = action
            break
    else:
        pytest.skip("no move from this seed")
    forged = Action(Kind.MOVE, plain.transport, plain.route, plain.direction,
                    pay=Pay.CARAVAN, cards=(3, 0, 0, 0, 0, 0, 0), _id=plain._id)
    before = state.to_position()
    with pytest.raises(ElfenlandError):
        state.apply_action(forged)
    assert state.to_position() == before
