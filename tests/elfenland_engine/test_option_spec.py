"""Issue #22: one declared option specification per game, read by both engines, so that
the same options can never make two different games (the compiled engine narrowed
integers to C ints) nor a game that cannot go on (``caravan_cards`` beyond the action
space)."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import pytest

import elfenland
from elfenland.core.options import MAX_COUNT, MAX_GOLD, OptionError, OptionSpec
from elfenland.games.elfenland import fast
from elfenland.games.elfenland.rules import RULE_SETS, Rules, make_rules
from elfenland.games.kingelves import fast as ke_fast
from elfenland.games.kingelves.rules import Rules as KeRules
from elfenland.games.registry import GAMES

ENGINES = ["pure", "compiled"]


def new(game: str, engine: str, **options: Any) -> elfenland.GameState:
    old = os.environ.get("ELFENLAND_ENGINE")
    os.environ["ELFENLAND_ENGINE"] = engine
    try:
        state = elfenland.new_game(game=game, **options)
    finally:
        if old is None:
            del os.environ["ELFENLAND_ENGINE"]
        else:
            os.environ["ELFENLAND_ENGINE"] = old
    compiled = type(state).__name__.startswith("Fast")
    assert compiled == (engine == "compiled" and fast.AVAILABLE and ke_fast.AVAILABLE)
    return state


def test_every_game_declares_its_options() -> None:
    for name, info in GAMES.items():
        spec = info.options
        assert isinstance(spec, OptionSpec) and spec.game == name
        assert elfenland.option_spec(name) is spec
        for option in spec:
            assert option.doc, option.name
            if option.kind == "int":
                assert option.high is not None and option.high <= MAX_GOLD
                if "gold" not in option.name:
                    assert option.high <= MAX_COUNT, option.name


def test_the_rules_defaults_and_rule_sets_are_the_declared_ones() -> None:
    spec = elfenland.option_spec("elfenland")
    for name, rules in RULE_SETS.items():
        declared = spec.rule_set(name)
        for field in dataclasses.fields(Rules):
            if field.name != "name":
                assert getattr(rules, field.name) == declared[field.name], (name, field.name)
    ke = elfenland.option_spec("king-of-the-elves").rule_set("standard")
    for field in dataclasses.fields(KeRules):
        if field.name != "name":
            assert getattr(KeRules(), field.name) == ke[field.name]


ELFENLAND_BAD = [
    {"rounds": 2**32 + 1}, {"rounds": 0}, {"rounds": MAX_COUNT + 1},
    {"counter_draws": 2**63}, {"cards_per_deal": -1}, {"caravan_cards": 1},
    {"caravan_cards": 2}, {"caravan_cards": 4}, {"caravan_cards": 5},
    {"boatmen": "no"}, {"boatmen": 1}, {"rounds": True}, {"rounds": 4.0},
    {"deal": "some"}, {"name": "moon"}, {"colour": "red"}, {"destination": "yes"},
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", ELFENLAND_BAD, ids=str)
def test_elfenland_options_out_of_range_are_refused_alike(engine: str,
                                                          options: dict[str, Any]) -> None:
    with pytest.raises(elfenland.ElfenlandError):
        new("elfenland", engine, players=3, seed=1, **options)


KE_BAD = [
    {"land_transport_cards": 2**32 + 9}, {"land_transport_cards": MAX_COUNT + 1},
    {"starting_gold": 2**31}, {"gold_supply": MAX_GOLD + 1}, {"raft_cards": -1},
    {"magic_spell": "no"}, {"starting_gold": 100, "gold_supply": 599}, {"name": "x"},
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", KE_BAD, ids=str)
def test_king_of_the_elves_options_out_of_range_are_refused_alike(
        engine: str, options: dict[str, Any]) -> None:
    with pytest.raises(elfenland.ElfenlandError):
        new("king-of-the-elves", engine, players=3, seed=1, **options)


def test_a_rules_value_cannot_be_made_outside_its_range() -> None:
    with pytest.raises(OptionError, match="rounds"):
        Rules(rounds=2**32 + 1)
    with pytest.raises(OptionError, match="caravan_cards"):
        dataclasses.replace(Rules(), caravan_cards=2)
    with pytest.raises(OptionError, match="land_transport_cards"):
        KeRules(land_transport_cards=2**32 + 9)


@pytest.mark.skipif(not fast.AVAILABLE, reason="compiled engine not built")
def test_the_compiled_engine_refuses_rules_the_spec_refuses() -> None:
    """A rules-like object that skipped the dataclass check is still refused by the C
    reader, with the spec's own range."""
    s = fast.FastElfenlandState(players=2, seed=1)

    class Fake:
        def __init__(self, **changes: Any) -> None:
            for f in dataclasses.fields(Rules):
                setattr(self, f.name, changes.get(f.name, getattr(Rules(), f.name)))

    before = s.to_position()
    for option in elfenland.option_spec("elfenland"):
        if option.kind != "int" or option.name == "destination":
            continue
        assert option.high is not None
        with pytest.raises(elfenland.ElfenlandError, match=option.name):
            s.rules = Fake(**{option.name: option.high + 1})  # type: ignore[assignment]
        s.rules = Fake(**{option.name: option.high})  # type: ignore[assignment]
        s.rules = Rules()
    assert s.to_position() == before


@pytest.mark.parametrize("engine", ENGINES)
def test_the_largest_counts_play_the_same_on_both_engines(engine: str) -> None:
    """At the top of their ranges both engines still play one and the same game."""
    options = {"rounds": MAX_COUNT, "counter_draws": MAX_COUNT, "hand_limit": MAX_COUNT}
    pure = new("elfenland", "pure", players=2, seed=9, **options)
    other = new("elfenland", engine, players=2, seed=9, **options)
    for _ in range(300):
        if pure.is_terminal():
            break
        assert [str(a) for a in pure.legal_actions()] == [str(a) for a in other.legal_actions()]
        action = pure.legal_actions()[-1]
        pure.apply_action(action)
        other.apply_action(str(action))
    assert pure.to_position() == other.to_position()


@pytest.mark.skipif(not ke_fast.AVAILABLE, reason="compiled engine not built")
def test_king_of_the_elves_top_of_range_plays_the_same() -> None:
    options = {"land_transport_cards": MAX_COUNT, "starting_gold": MAX_GOLD // 6,
               "gold_supply": MAX_GOLD}
    pure = new("king-of-the-elves", "pure", players=3, seed=9, **options)
    comp = new("king-of-the-elves", "compiled", players=3, seed=9, **options)
    assert type(pure) is not type(comp)
    for _ in range(200):
        if pure.is_terminal():
            break
        assert pure.legal_actions() == comp.legal_actions()
        action = pure.legal_actions()[0]
        pure.apply_action(action)
        comp.apply_action(action)
    assert pure.to_position() == comp.to_position()


def test_make_rules_takes_the_named_rule_sets_and_the_destination_variant() -> None:
    assert make_rules("moon") == RULE_SETS["moon"]
    assert make_rules("amigo", destination=True).town_cards is True
    spec = elfenland.option_spec("elfenland")
    assert spec.is_standard("amigo", {"destination": True, "final_keep": False})
    assert not spec.is_standard("amigo", {"rounds": 5})


def test_options_spelled_on_a_command_line_are_read_by_their_declared_type() -> None:
    spec = elfenland.option_spec("elfenland")
    assert spec.parse(["rounds=3", " destination = yes ", "town_cards=off",
                       "keep_when=" + spec["keep_when"].choices[-1]]) == {
        "rounds": 3, "destination": True, "town_cards": False,
        "keep_when": spec["keep_when"].choices[-1]}
    for word, value in (("TRUE", True), ("1", True), ("on", True), ("No", False),
                        ("0", False), ("false", False)):
        assert spec["destination"].parse(word) is value
    for bad, said in (("rounds=three", "integer from 1 to"), ("rounds=1.5", "integer"),
                      ("destination=maybe", "true or false"), ("keep_when=never", "one of"),
                      ("=3", "NAME=VALUE"), ("rounds", "NAME=VALUE"),
                      ("round=3", "unknown option 'round'"),
                      (f"rounds={MAX_COUNT + 1}", "integer from 1 to")):
        with pytest.raises(OptionError, match=said):
            spec.parse([bad])


def test_elfenland_play_takes_the_games_options(capsys: pytest.CaptureFixture[str]) -> None:
    from elfenland.cli import main

    assert main(["play", "--game", "elfengold", "--players", "2", "--bots", "random",
                 "--option", "rounds=1"]) == 0
    told = capsys.readouterr().out
    assert "== Round 1 ==" in told and "== Round 2 ==" not in told and "Winner" in told
    assert main(["play", "--game", "king-of-the-elves", "--option", "rounds=1"]) == 2
    assert "unknown option 'rounds'" in capsys.readouterr().out
