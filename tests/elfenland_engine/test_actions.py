"""The action notation and the fixed action space."""

from __future__ import annotations

import pytest

import elfenland
from elfenland.games.elfenland import Action, from_id, num_actions
from elfenland.games.elfenland.actions import Kind, Pay


def test_every_id_round_trips_through_its_text() -> None:
    for i in range(num_actions()):
        action = from_id(i)
        assert action.id == i
        assert Action.from_text(str(action)) is action


@pytest.mark.parametrize("text,expected", [
    ("Move Feodor-Lapphalya", "move feodor-lapphalya"),
    ("move feodor-lapphalya dragon", "move feodor-lapphalya"),
    ("move virst-jxara raft", "move virst-ixara raft"),
    ("move virst-ixara", "move virst-ixara"),
    ("move rivinia-tichih", "move rivinia-tichih raft"),
    ("move x:r01", None),
    ("place pig elvenhold-beata", "place giant-pig elvenhold-beata"),
    ("place giant-pig r01", "place giant-pig elvenhold-beata"),
    ("keep secret troll", "keep secret troll-wagon"),
    ("  draw   BLIND ", "draw blind"),
    ("move a-b caravan:dragon", None),
    ("move dagamura-kihromah caravan:raft+dragon+raft",
     "move dagamura-kihromah caravan:dragon+raft+raft"),
    ("move grangor-yttar boatmen:raft+raft+raft", "move grangor-yttar boatmen:raft+raft+raft"),
    ("move grangor-yttar caravan:raft+raft+raft", "move grangor-yttar caravan:raft+raft+raft"),
    ("move feodor-lapphalya boatmen:raft+raft+raft", None),
    ("place raft elvenhold-beata", None),
    ("draw", None),
    ("keep public dragon", None),
    ("discard sword", None),
    ("move feodor-beata", None),
])
def test_notation_is_lenient_in_what_it_reads_and_exact_in_what_it_writes(
        text: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(elfenland.ActionParseError):
            Action.from_text(text)
    else:
        assert str(Action.from_text(text)) == expected


def test_bad_ids_are_parse_errors() -> None:
    for bad in (-1, num_actions(), True):
        with pytest.raises(elfenland.ActionParseError):
            from_id(bad)  # type: ignore[arg-type]


def test_actions_are_frozen_values() -> None:
    a = Action.move(0, 1, Pay.NORMAL)
    assert a.kind is Kind.MOVE and a == from_id(a.id) and hash(a) == hash(from_id(a.id))
    with pytest.raises(AttributeError):
        a.route = 3  # type: ignore[misc]


def test_go_is_relative_to_the_current_players_boot() -> None:
    state = elfenland.load_position({"players": 2, "boots": ["virst", "beata"]})
    assert str(state.parse_action("go ixara raft")) == "move virst-ixara raft"
    assert str(state.parse_action("go Lapphalya")) == "move virst-lapphalya"
