"""Actions: every id's text parses back to it; bad text and bad positions raise typed
errors and change nothing."""

from __future__ import annotations

import pytest

from elfenland.core.errors import (
    ActionParseError,
    GameOverError,
    PositionError,
    SerializationError,
)
from elfenland.games.elfengold import deserialize, from_id, from_position, num_actions
from elfenland.games.elfengold.actions import Kind, Pay, parse
from elfenland.games.elfenland.board import load_board

from .helpers import mover, position


def test_every_action_round_trips_through_its_text_and_id() -> None:
    board = load_board()
    n = num_actions()
    assert n > 1000
    for i in range(n):
        a = from_id(i)
        assert a.id == i
        assert parse(str(a), board) is a


def test_the_action_space_is_the_same_in_every_process_order() -> None:
    a = from_id(0)
    assert str(a) == "draw giant-pig" and a.kind is Kind.DRAW
    assert parse("bid 1", load_board()).id == parse("bid 2", load_board()).id - 1


def test_exchange_is_one_action_whichever_road_is_named_first() -> None:
    board = load_board()
    a = parse("exchange troll-wagon feodor-lapphalya magic-cloud elvenhold-beata", board)
    b = parse("exchange magic-cloud elvenhold-beata troll-wagon feodor-lapphalya", board)
    assert a is b


def test_short_names_and_state_helpers() -> None:
    s = mover({"dragon": 1}, {"feodor-dagamura": {"counters": ["dragon"]}})
    assert s.parse_action("move feodor-dagamura") is s.parse_action(
        "move feodor-dagamura dragon")
    assert s.parse_action("go dagamura").pay is Pay.NORMAL
    assert str(s.parse_action("move virst-ixara")) == "move virst-ixara raft"
    assert str(parse("keep secret monster", load_board())) == "keep secret sea-monster"


@pytest.mark.parametrize("text", [
    "", "bid", "bid 0", "bid -3", "bid 501", "bid x", "draw gold", "draw nothing",
    "place raft feodor-lapphalya", "place dragon virst-nowhere", "monster feodor-lapphalya",
    "move feodor-dagamura witch", "move feodor-dagamura caravan:", "keep public dragon",
    "exchange dragon feodor-lapphalya", "hide coin", "fly atlantis", "take coins",
])
def test_bad_text_is_a_parse_error(text: str) -> None:
    with pytest.raises(ActionParseError):
        parse(text, load_board())


@pytest.mark.parametrize("doc", [
    {"players": 7},
    {"players": 3, "coins": [12, -1, 12]},
    {"players": 3, "hands": [{"raft": 10}, {}, {}]},
    {"players": 3, "roads": {"r36": {"counters": ["dragon"]}}},
    {"players": 3, "roads": {"feodor-lapphalya": {"obstacle": "tree"}}},
    {"players": 3, "roads": {"feodor-lapphalya": {"counters": ["dragon"],
                                                  "obstacle": "tree", "gold_piece": True}}},
    {"players": 3, "roads": {"feodor-lapphalya": {"counters": ["dragon", "unicorn"]}}},
    {"players": 3, "roads": {"elvenhold-beata": {"counters": ["unicorn"]}}},
    {"players": 3, "items": [{"face_up": {"dragon": 5}}, {}, {}]},
    {"players": 3, "phase": "auction"},
    {"players": 3, "phase": "nap"},
    {"players": 3, "gold_values": {"feodor": 9}},
    {"players": 3, "towns": [["elvenhold"], [], []]},
    {"players": 3, "rules": {"eg_overbid": "maybe"}},
])
def test_impossible_positions_are_refused(doc: dict[str, object]) -> None:
    with pytest.raises(PositionError):
        from_position(doc)


def test_a_corrupt_save_is_refused() -> None:
    s = position(3, phase="place", items=[{"face_up": {"dragon": 1}}, {}, {}])
    text = s.serialize()
    assert deserialize(text) == s
    with pytest.raises(SerializationError):
        deserialize(text.replace('"actions":[]', '"actions":["bid 3"]'))
    with pytest.raises(SerializationError):
        deserialize("{}")


def test_go_after_the_end_is_a_typed_error() -> None:
    s = position(2, phase="over")
    with pytest.raises(GameOverError):
        s.apply_action("go beata")
    with pytest.raises(GameOverError):
        s.apply_action("pass")
