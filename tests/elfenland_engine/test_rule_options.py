"""The rule readings offered as options (issue #12): each default keeps the project's
reading, each option plays the other one."""

from __future__ import annotations

import pytest

import elfenland
from elfenland.games.elfenland import Phase, Rules

from .helpers import hand, position, texts

ALL_TOWNS = [t.id for t in elfenland.games.elfenland.load_board().towns if t.id != "elvenhold"]
CARAVAN = "move feodor-lapphalya caravan:raft+raft+raft"


def amigo(**options: object) -> dict[str, object]:
    return Rules().with_options(**options).to_json()


def moon(**options: object) -> dict[str, object]:
    return elfenland.games.elfenland.MOON.with_options(**options).to_json()


def test_caravan_only_if_needed_refuses_it_to_a_player_who_can_pay_the_counter() -> None:
    state = position(rules=amigo(caravan="only-if-needed"),
                     roads={"feodor-lapphalya": {"counter": "unicorn"}},
                     boots=["feodor", "elvenhold"], hands=[{"unicorn": 1, "raft": 3}, {}])
    assert "move feodor-lapphalya" in texts(state)
    assert not any("caravan" in t for t in texts(state))
    with pytest.raises(elfenland.IllegalActionError, match="only for a player who cannot"):
        state.apply_action(CARAVAN)
    assert hand(state) == {"unicorn": 1, "raft": 3}


def test_caravan_only_if_needed_allows_it_when_the_counters_cards_are_missing() -> None:
    state = position(rules=amigo(caravan="only-if-needed"),
                     roads={"feodor-lapphalya": {"counter": "unicorn"}},
                     boots=["feodor", "elvenhold"], hands=[{"dragon": 1, "raft": 3}, {}])
    assert "move feodor-lapphalya" not in texts(state)
    assert CARAVAN in texts(state)
    state.apply_action(CARAVAN)
    assert hand(state) == {"dragon": 1}


def test_caravan_always_is_the_default() -> None:
    assert Rules().caravan == "always" and elfenland.games.elfenland.MOON.caravan == "always"
    state = position(roads={"feodor-lapphalya": {"counter": "unicorn"}},
                     boots=["feodor", "elvenhold"], hands=[{"unicorn": 1, "raft": 3}, {}])
    assert CARAVAN in texts(state)


def complete_after(round_: int, **options: object) -> elfenland.GameState:
    """Moon, player 0 holds every town piece, the last mover of ``round_`` ends."""
    state = position(rules=moon(**options), town_cards=["beata", "virst"], phase="move",
                     current_player=1, step=1, round=round_, towns=[ALL_TOWNS, ["beata"]])
    state.apply_action("end")
    return state


def test_moon_special_victory_by_default_at_the_end_of_any_round_before_the_last() -> None:
    state = complete_after(2)
    assert state.is_terminal() and state.special_victory and state.winners() == [0]


def test_moon_special_victory_round_3_waits_for_the_end_of_round_3() -> None:
    state = complete_after(2, special_victory_at="round-3")
    assert not state.is_terminal() and state.round == 3
    state = complete_after(3, special_victory_at="round-3")
    assert state.is_terminal() and state.special_victory and state.winners() == [0]
    state = complete_after(1, special_victory_at="round-3")
    assert not state.is_terminal() and state.round == 2


def test_final_keep_false_ends_the_game_without_the_keep_step() -> None:
    counters = [{"face_up": ["dragon", "unicorn"]}, {"face_up": ["giant-pig", "elfcycle"]}]
    kept = position(phase="move", current_player=1, step=1, round=4, counters=counters)
    kept.apply_action("end")
    assert kept.phase is Phase.KEEP  # the default (True): today's behaviour
    state = position(rules=amigo(final_keep=False), phase="move", current_player=1, step=1,
                     round=4, counters=counters)
    state.apply_action("end")
    assert state.is_terminal()
    # Earlier rounds still keep a counter.
    state = position(rules=amigo(final_keep=False), phase="move", current_player=1, step=1,
                     round=3, counters=counters)
    state.apply_action("end")
    assert state.phase is Phase.KEEP


def test_final_keep_false_also_skips_the_keep_when_a_complete_player_ends_the_game() -> None:
    state = position(rules=amigo(final_keep=False), phase="move", current_player=1, step=1,
                     round=2, towns=[ALL_TOWNS, []],
                     counters=[{"face_up": ["dragon", "unicorn"]}, {}])
    state.apply_action("end")
    assert state.is_terminal() and state.winners() == [0]


def test_final_keep_false_under_moon_skips_the_keep_after_the_last_placement() -> None:
    doc = {"town_cards": ["beata", "virst"], "phase": "place", "round": 4,
           "counters": [{"face_up": ["dragon", "unicorn"]}, {}]}
    state = position(rules=moon(final_keep=False), **doc)
    state.apply_action("pass")
    state.apply_action("pass")
    assert state.phase is Phase.MOVE
    state = position(rules=moon(), **doc)
    state.apply_action("pass")
    state.apply_action("pass")
    assert state.phase is Phase.KEEP


@pytest.mark.parametrize("options", [{"caravan": "sometimes"}, {"special_victory_at": 3},
                                     {"final_keep": "no"}])
def test_bad_option_values_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(elfenland.ElfenlandError):
        elfenland.new_game(players=2, seed=1, **options)


def test_the_options_survive_a_saved_game() -> None:
    state = elfenland.new_game(players=2, seed=3, caravan="only-if-needed",
                               special_victory_at="round-3", final_keep=False, rules="moon")
    again = elfenland.deserialize(state.serialize())
    assert again.rules == state.rules  # type: ignore[attr-defined]
