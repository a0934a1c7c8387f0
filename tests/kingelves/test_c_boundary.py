"""Issue #22: nothing a caller writes reaches the compiled King of the Elves engine's C
arrays unchecked.  Each case crashed (or silently misplayed) before; a case runs in a
child interpreter and must end cleanly, the write refused with a typed
``ElfenlandError`` and the state unchanged."""

from __future__ import annotations

import pytest
from tests._compiled_harness import (
    assert_uninitialised_calls_raise,
    field_write_test,
    reconfigure,
)

from elfenland.games.kingelves import fast

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="compiled engine not built")

NEW = ("from elfenland.games.kingelves.fast import FastKingOfTheElvesState as F\n"
       "s = F(players=2, seed=3)")
PLAY = """
for _ in range(5):
    if s.is_terminal():
        break
    s.apply_action(s.legal_actions()[-1])
"""

WRITES = {
    "current out of range": (NEW, "s.current = 10**6"),
    "current past the players": (NEW, "s.current = 5"),
    "dragon far away": (NEW, "s.dragon = -10**6"),
    "a town of no terrain": (NEW, "s.kingdoms = [[[10**6, -1, -1, -1]], []]"),
    "a thief of no player": (NEW, "s.kingdoms = [[[1, -1, 9, -1]], []]"),
    "too many towns": (NEW, "s.kingdoms = [[[1, -1, -1, -1]] * 4, []]"),
    "traveller nowhere": (NEW, "s.at = (10**6, 10**6)"),
    "half a place": (NEW, "s.at = (0, -1)"),
    "gold beyond an int": (NEW, "s.gold = [2**31] * s.n"),
    "gold beyond the supply": (NEW, "s.gold = [10**9] * s.n"),
    "negative deck": (NEW, "s.deck = [-1] * 19"),
    "hand of strings": (NEW, "s.hands = [['x'] * 19] * s.n"),
    "escort of no kingdom": (NEW, "s.escort = 7"),
    "direction sideways": (NEW, "s.direction = 0"),
    "visited beyond the table": (NEW, "s.visited = 2**40"),
    "bank beyond a long": (NEW, "s.bank = 2**70"),
    "result of no seat": (NEW, "s.result = [3]"),
}


test_a_bad_field_write_is_refused_before_anything_changes = field_write_test(WRITES, PLAY)


def test_a_state_made_without_init_raises_instead_of_crashing() -> None:
    assert_uninitialised_calls_raise(
        "from elfenland.games.kingelves.fast import FastKingOfTheElvesState as F",
        ["s._resample(0, Rng(1))", "s._start(2, 12, [9] * 19)", "s.legal_actions()",
         "s.clone().apply_action(0)"])


def test_a_failed_configure_changes_nothing() -> None:
    out = reconfigure("elfenland.games.kingelves",
                      '{"rounds": [1] * 7, "constants": [0] * 8}',
                      's = fast.FastKingOfTheElvesState(players=3, seed=4)\n'
                      'print("hand", sum(s.hands[0]))')
    assert "hand 10" in out, out


def test_lists_read_from_a_compiled_state_are_copies() -> None:
    s = fast.FastKingOfTheElvesState(players=3, seed=5)
    twin = s.clone()
    position = s.to_position()
    s.hands[0][0] += 50
    s.gold[0] = 999
    s.kingdoms[0].append([1, -1, -1, -1])
    assert s.gold[0] != 999 and s.to_position() == position and s == twin
