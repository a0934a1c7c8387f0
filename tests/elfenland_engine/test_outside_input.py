"""Input from outside the engine cannot break its promises: the list of legal actions
handed out, positions that carry on from where they are, and the notation (issue #12)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import elfenland
from elfenland.games.elfenland import Action, Phase

from .helpers import hand, position, texts


def dragon_road_state():  # type: ignore[no-untyped-def]
    """Player 0 in Feodor, a dragon on the forest road to Lapphalya, no dragon card."""
    return position(roads={"feodor-lapphalya": {"counter": "dragon"}},
                    boots=["feodor", "elvenhold"], hands=[{"unicorn": 3}, {}])


def test_changing_the_returned_legal_list_cannot_make_an_illegal_move_legal() -> None:
    state = dragon_road_state()
    twin = state.clone()
    move = Action.from_text("move feodor-lapphalya")
    legal = state.legal_actions()
    assert move not in legal
    legal.append(move)
    with pytest.raises(elfenland.IllegalActionError):
        state.apply_action(move)
    assert hand(state) == {"unicorn": 3} and state.hands[0][5] == 0
    assert move not in state.legal_actions() and move not in twin.legal_actions()
    twin.legal_actions().clear()
    assert twin.legal_actions() and state == twin


def test_each_call_returns_a_list_of_its_own() -> None:
    state = elfenland.new_game(players=3, seed=2)
    assert state.legal_actions() is not state.legal_actions()
    assert state.legal_actions() == state.legal_actions()


def test_a_loaded_starting_player_passes_to_the_left_each_round() -> None:
    state = position(players=3, phase="move", round=1, starting_player=2, current_player=1,
                     step=2)
    state.apply_action("end")
    # Amigo: the keep step, where nobody holds a counter, then round 2.
    assert state.round == 2 and state.starting == 0 and state.current_player() == 0
    assert state.phase is Phase.DRAW_SECRET


def test_a_loaded_dragon_marker_moves_left_each_round() -> None:
    state = elfenland.load_position({
        "format": "king-of-the-elves-position/1", "players": 3, "phase": "journey",
        "round": 1, "dragon": 2, "current_player": 1})
    state.apply_action("stop")
    assert state.round == 2 and state.dragon == 0  # type: ignore[attr-defined]
    assert state.current_player() == 0


@pytest.mark.parametrize("text", ["move feodor-lapphalya unicorn", "go lapphalya unicorn",
                                  "move feodor-lapphalya elfcycle"])
def test_a_named_transport_that_is_not_the_roads_counter_is_refused(text: str) -> None:
    state = position(roads={"feodor-lapphalya": {"counter": "dragon"}},
                     boots=["feodor", "elvenhold"], hands=[{"dragon": 2, "unicorn": 3}, {}])
    with pytest.raises(elfenland.IllegalActionError, match="dragon counter, not a"):
        state.apply_action(text)
    assert hand(state) == {"dragon": 2, "unicorn": 3}
    state.apply_action("move feodor-lapphalya dragon")
    assert hand(state) == {"unicorn": 3}


def test_a_named_transport_on_a_road_without_a_counter_is_refused() -> None:
    state = position(boots=["feodor", "elvenhold"], hands=[{"unicorn": 3}, {}])
    with pytest.raises(elfenland.IllegalActionError, match="no counter"):
        state.apply_action("go lapphalya unicorn")
    assert "end" in texts(state)


def test_python_dash_m_elfenland_runs_the_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "elfenland", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert elfenland.__version__ in done.stdout
