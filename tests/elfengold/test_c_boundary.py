"""Issue #22 for the compiled Elfengold engine: nothing a caller writes reaches its C arrays
unchecked.  A case runs in a child interpreter (a crash fails one test, not the run) and
must end cleanly: the write refused with a typed ``ElfenlandError``, the state unchanged,
and the game still playable afterwards."""

from __future__ import annotations

import random

import pytest
from tests._compiled_harness import (
    assert_uninitialised_calls_raise,
    field_write_test,
    reconfigure,
)
from tests.elfenland_engine.crash import assert_refused, refused

from elfenland.core.errors import ElfenlandError, IllegalActionError
from elfenland.games.elfengold import Action, ElfengoldState, Kind, fast

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="compiled engine not built")

NEW = ("from elfenland.games.elfengold.fast import FastElfengoldState as F\n"
       "s = F(players=3, seed=3, witch=True)")


def _until(phase: str) -> str:
    return NEW + f"""
while s.phase.value != {phase!r}:
    s.apply_action(s.legal_actions()[0])
"""


AUCTION = _until("auction")
PLACE = _until("place")
MOVE = _until("move")
PLAY = """
for _ in range(40):
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
    "negative boot": (MOVE, "s.boots = [-3] * s.n"),
    "a counter of no kind": (PLACE, "s.counters = [[10**6]] * len(s.counters)"),
    "three counters on a road": (PLACE, "s.counters = [[1, 2, 3]] * len(s.counters)"),
    "counters for too few routes": (PLACE, "s.counters = [[1]] * 3"),
    "an obstacle of no item": (MOVE, "s.obstacle = [99] * len(s.obstacle)"),
    "a double of two": (MOVE, "s.double = [2] * len(s.double)"),
    "town card of no town": (NEW, "s.town_cards = [10**6] * s.n"),
    "negative hand": (MOVE, "s.hands = [[-5] * 8 for _ in range(s.n)]"),
    "huge hand": (MOVE, "s.hands = [[2**40] * 8 for _ in range(s.n)]"),
    "a hand of seven kinds": (MOVE, "s.hands = [[1] * 7 for _ in range(s.n)]"),
    "supply over a count": (NEW, "s.supply = [10**9] * 9"),
    "item pile of strings": (NEW, "s.item_pile = ['1'] * 11"),
    "items of no player": (NEW, "s.items_up = [[1] * 11] * 9"),
    "a half-written matrix": (NEW, "s.items_down = [[1] * 11, [1] * 11, 'x']"),
    "three items drawn": (NEW, "s.drawn = [1, 2, 3]"),
    "a drawn item of no kind": (NEW, "s.drawn = [1, 40]"),
    "an auction row past the players": (AUCTION, "s.row = [1] * 13"),
    "an auction row of no item": (AUCTION, "s.row = [-1, 2]"),
    "a high bidder of no seat": (AUCTION, "s.high_bidder = 3"),
    "a high bid beyond the gold": (AUCTION, "s.high_bid = 2**62"),
    "passes of no seat": (AUCTION, "s.passed = 1 << 9"),
    "excluded of no seat": (AUCTION, "s.excluded = -1"),
    "coins beyond the gold": (NEW, "s.coins = [2**63] * s.n"),
    "negative coins": (NEW, "s.coins = [-1] * s.n"),
    "a ledger beyond a long": (NEW, "s.paid_out = 2**70"),
    "gold values of no town": (NEW, "s.gold_values = [1] * 3"),
    "a negative gold value": (NEW, "s.gold_values = [-9] * len(s.gold_values)"),
    "visited beyond the map": (NEW, "s.visited = [2**62] * s.n"),
    "round beyond an int": (NEW, "s.round = 2**40"),
    "result of no seat": (NEW, "s.result = [7]"),
    "draws left beyond two": (NEW, "s.draws_left = 3"),
    "a discard that leads nowhere": (NEW, "s.after_discard = 'later'"),
    "a phase that is text": (NEW, "s.phase = 'move'"),
    "earned beyond the gold": (MOVE, "s.earned = 10**12"),
}


test_a_bad_field_write_is_refused_before_anything_changes = field_write_test(WRITES, PLAY)


def test_a_state_made_without_init_raises_instead_of_crashing() -> None:
    assert_uninitialised_calls_raise(
        "from elfenland.games.elfengold.fast import FastElfengoldState as F",
        ["s.resample_from_infostate(0, Rng(1))", "s.apply_action(0)", "s._start(2)",
         "s.clone().legal_actions()", "s.legal_action_ids()"])


def test_a_second_configure_is_refused_and_changes_nothing() -> None:
    out = reconfigure("elfenland.games.elfengold", '{"sizes": [1, 2, 0, 1, 3]}',
                      's = fast.FastElfengoldState(players=3, seed=4)\n'
                      'print("routes", len(s.counters), "coins", s.coins)',
                      refusal="ElfenlandError")
    from elfenland.games.elfenland.board import load_board

    assert f"routes {len(load_board().routes)} coins [12, 12, 12]" in out, out


def test_a_bad_player_or_out_of_range_id_is_a_typed_error() -> None:
    s = fast.FastElfengoldState(players=3, seed=6)
    before = s.to_position()
    for bad in (-1, 10**9, 2**70, -(2**70)):
        with pytest.raises(ElfenlandError):
            s.apply_action(bad)
    for player in (-1, 3, 10**9):
        with pytest.raises(ElfenlandError):
            s.resample_from_infostate(player, s.rng.copy())
    assert s.to_position() == before


@pytest.mark.parametrize("engine", ["pure", "compiled"])
def test_a_forged_action_is_refused_alike(engine: str) -> None:
    """An action whose private id names another legal action is not that action."""
    s: ElfengoldState = (fast.FastElfengoldState if engine == "compiled"
                         else ElfengoldState)(players=2, seed=3)
    hide = s.legal_actions()[0]
    forged = Action(Kind.END, _id=hide._id)
    before = s.to_position()
    with pytest.raises(IllegalActionError):
        s.apply_action(forged)
    assert s.to_position() == before


def test_a_weird_but_valid_position_plays_alike_on_both_engines() -> None:
    """Fields written within range (an auction row longer than usual, a bid far above
    the coins, a single drawn item) are played the same way by both engines."""
    r = random.Random(9)
    for seed in range(6):
        a = ElfengoldState(players=4, seed=seed)
        while a.phase.value != "auction":
            a.apply_action(a.legal_action_ids()[0])
        a.row = [r.randrange(11) for _ in range(12)]
        a.high_bid = 499
        a._legal = None
        b = fast.FastElfengoldState.from_state(a)
        while not a.is_terminal():
            legal = a.legal_action_ids()
            assert legal == b.legal_action_ids()
            x = legal[r.randrange(len(legal))]
            a.apply_action(x)
            b.apply_action(x)
        assert a == b and a.to_position() == b.to_position()


@pytest.mark.parametrize("write", ["s.current = -4", "s.phase = type(s.phase).MOVE"])
def test_nobody_to_move_only_in_a_finished_game(write: str) -> None:
    """"Nobody" (-4) moves only once the game is over, and a finished game (nobody to
    move) cannot be made to run on: either would reach the rules without a seat."""
    setup = NEW if write.startswith("s.current") else NEW + """
while not s.is_terminal():
    s.apply_action(s.legal_actions()[-1])"""
    assert_refused(refused(setup, write))
