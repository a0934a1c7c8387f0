"""The action notation, the fixed action space, saved games and the position format."""

from __future__ import annotations

import json
import random

import pytest
from ke_support import EXAMPLE_TABLE_DOC, check_accounts, load, play

import elfenland
from elfenland import ActionParseError, PositionError, SerializationError
from elfenland.games.kingelves.actions import Action, from_id, num_actions, parse


def test_every_action_round_trips_through_text_and_id() -> None:
    seen = set()
    for i in range(num_actions()):
        action = from_id(i)
        assert action.id == i
        text = str(action)
        assert text not in seen
        seen.add(text)
        assert parse(text) == action and parse(text).id == i
    assert num_actions() == 374


@pytest.mark.parametrize(("text", "canonical"), [
    ("play plains-3 kingdom 2", "play plains kingdom 2"),
    ("play lake 0", "play lake kingdom 0"),
    ("  VISIT   Dragon+dragon ", "visit dragon+dragon"),
    ("visit pig", "visit giant-pig"),
    ("spell pig+cloud+troll+raft", "spell giant-pig+magic-cloud+troll-wagon+raft"),
    ("discard reverse", "discard change-of-direction"),
    ("no town card", "no-town-card"),
    ("sea-monster 3.1", "sea-monster 3.1"),
])
def test_notation_accepts_friendly_forms(text: str, canonical: str) -> None:
    assert str(parse(text)) == canonical


@pytest.mark.parametrize("text", [
    "", "fly", "play dragon kingdom 1", "play plains kingdom 6", "play plains-4 kingdom 1",
    "visit dragon+unicorn", "visit dragon+dragon+dragon+dragon", "spell dragon+dragon",
    "escort 3", "thief 2", "thief 7.0", "thief 1.3", "remove 3", "take dragon",
    "gold x.y", "discard nothing", "escort 1.0",
])
def test_bad_notation_is_a_parse_error(text: str) -> None:
    with pytest.raises(ActionParseError):
        parse(text)


def test_state_accepts_action_text_and_id_and_rejects_bad_ids() -> None:
    s = elfenland.new_game(game="king-of-the-elves", players=2, seed=3)
    first = s.legal_actions()[0]
    assert s.parse_action(first.id) == first == s.parse_action(str(first))
    t = s.clone()
    s.apply_action(first.id)
    t.apply_action(str(first))
    assert s == t
    for bad in (-1, num_actions(), True):
        with pytest.raises(ActionParseError):
            s.apply_action(bad)
    assert isinstance(Action.from_text("pass"), Action)


def test_serialize_round_trip_from_a_new_game_and_from_a_position() -> None:
    s = elfenland.new_game(game="king-of-the-elves", players=4, seed=11, weak_gold=True)
    for _ in range(40):
        s.apply_action(s.legal_actions()[-1])
    again = elfenland.deserialize(s.serialize())
    assert again == s
    p = load(**EXAMPLE_TABLE_DOC)
    play(p, "visit raft+raft", "visit unicorn+unicorn")
    again = elfenland.deserialize(p.serialize())
    assert again.to_position() == p.to_position()
    assert json.loads(p.serialize())["actions"] == ["visit raft+raft", "visit unicorn+unicorn"]


@pytest.mark.parametrize("text", [
    "not json", "[]", '{"format": "king-of-the-elves-game/1", "game": "king-of-the-elves"}',
    '{"format": "king-of-the-elves-game/1", "game": "king-of-the-elves", "players": 2, '
    '"seed": 1, "options": {}, "actions": ["visit dragon"]}',
])
def test_corrupt_saves_are_serialization_errors(text: str) -> None:
    with pytest.raises(SerializationError):
        elfenland.deserialize(text)


def test_position_round_trip_in_every_phase() -> None:
    s = elfenland.new_game(game="king-of-the-elves", players=3, seed=5)
    rng = random.Random(5)
    phases = set()
    while not s.is_terminal():
        doc = s.to_position()
        phases.add(doc["phase"])
        back = elfenland.load_position(json.dumps(doc))
        assert back.to_position() == doc
        assert [str(a) for a in back.legal_actions()] == [str(a) for a in s.legal_actions()]
        quiet = [a for a in s.legal_actions() if str(a) in ("pass", "stop")]
        s.apply_action(quiet[0] if quiet and rng.random() < 0.6 else rng.choice(s.legal_actions()))
    assert {"building", "journey"} <= phases
    assert elfenland.load_position(s.to_position()).winners() == s.winners()


@pytest.mark.parametrize(("change", "reason"), [
    ({"players": 7}, "2 to 6"),
    ({"gold": [12, 12, 12, 999], "bank": 10_000 - 48}, "gold"),
    ({"gold": [12, 12, 12, -1]}, "gold"),
    ({"bank": 5}, "gold"),
    ({"hands": [{"dragon": 10}, {}, {}, {}]}, "dragon cards"),
    ({"deck": {"dragon": 9}}, "cards"),
    ({"kingdoms": [["plains", "plains", "plains"], [], [], []]}, "at most 2"),
    ({"kingdoms": [[{"town": "river", "tree": 1}], [], [], []]}, "no tree"),
    ({"kingdoms": [[{"town": "dragon"}], [], [], []]}, "not a town"),
    ({"kingdoms": [[{"town": "plains", "gold": 1, "thief": 1, "tree": 1},
                    {"town": "plains", "gold": 1, "thief": 1}], [], [], []]}, "banners"),
    ({"phase": "dreaming"}, "phase"),
    ({"round": 5}, "round"),
    ({"pending": "discard", "pending_count": 2}, "fewer cards"),
    ({"phase": "journey", "journey": {"at": "3.0"}}, "no town"),
    ({"set_aside": [5, 0, 0, 0]}, "set_aside"),
    ({"format": "elfenland-position/1"}, "format"),
])
def test_positions_that_cannot_be_are_refused(change: dict[str, object], reason: str) -> None:
    doc: dict[str, object] = {"format": "king-of-the-elves-position/1", "players": 4}
    doc.update(change)
    from elfenland.games.kingelves import from_position

    with pytest.raises(PositionError, match=reason):
        from_position(doc)


def test_position_defaults_account_for_everything() -> None:
    s = load(players=5, kingdoms=[["lake"], [], [], [], []], hands=[{"lake": 1}, {}, {}, {},
                                                                     {}])
    check_accounts(s)
    assert s.deck[5] == 0 and s.bank == 10_000 - 5 * 12
