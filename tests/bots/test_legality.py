"""Property: every bot, in every phase, for 2–6 players and every rule set, only ever
chooses a legal action of the state it is given."""

from __future__ import annotations

import random

import pytest

import elfenland
from elfenland.bots import BOT_LEVELS, make_bot
from elfenland.core.errors import ElfenlandError
from elfenland.core.game import GameState

ELFENLAND_RULES = ({"rules": "amigo"}, {"rules": "moon"},
                   {"rules": "amigo", "destination": True})


def tiny(level: str, game: str, seed: int) -> object:
    bot = make_bot(level, game, seed)
    if hasattr(bot, "iterations"):
        bot.iterations = 2
        bot.seconds = 0.05
    return bot


def drive(state: GameState, game: str, seed: int, query_every: float,
          max_actions: int = 10_000) -> set[str]:
    """Play a game where every seat's move comes from a bot in turn (random, greedy,
    search) and, at random moments, every level is asked and must answer legally."""
    rng = random.Random(seed)
    bots = {level: tiny(level, game, seed) for level in ("random", "greedy", "search")}
    order = ["greedy", "search", "random"]
    phases: set[str] = set()
    turn = 0
    while not state.is_terminal() and turn < max_actions:
        legal_ids = {a.id for a in state.legal_actions()}
        phases.add(str(state.view(None)["phase"]))
        if rng.random() < query_every:
            for bot in bots.values():
                assert bot.choose(state).id in legal_ids  # type: ignore[attr-defined]
        level = order[(state.current_player() + turn // 50) % len(order)]
        action = bots[level].choose(state)  # type: ignore[attr-defined]
        assert action.id in legal_ids, (level, str(action))
        state.apply_action(action)
        turn += 1
    return phases


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("options", ELFENLAND_RULES, ids=["amigo", "moon", "destination"])
def test_elfenland_bots_choose_legal_actions(players: int, options: dict[str, object]) -> None:
    seed = players * 7 + len(options)
    state = elfenland.new_game("elfenland", players=players, seed=seed, **options)
    # Two rounds see every phase; whole games are played by the tournament tests.
    phases = drive(state, "elfenland", seed, query_every=0.05, max_actions=25 * players)
    assert {"draw-secret", "draw-counters", "place", "move"} <= phases


@pytest.mark.parametrize("rules", ["amigo", "moon"])
@pytest.mark.parametrize("level", ["random", "greedy", "search"])
def test_keep_and_discard_choices_are_legal(rules: str, level: str) -> None:
    cards = ["beata", "virst"] if rules == "moon" else [None, None]
    keep = elfenland.load_position({
        "players": 2, "rules": rules, "phase": "keep", "town_cards": cards,
        "counters": [{"face_up": ["dragon", "unicorn"], "secret": ["giant-pig"]}, {}],
    })
    bot = tiny(level, "elfenland", 4)
    assert bot.choose(keep) in keep.legal_actions()  # type: ignore[attr-defined]
    discard = elfenland.load_position({
        "players": 2, "rules": rules, "phase": "move", "discarding": True,
        "town_cards": cards, "hands": [{"dragon": 3, "raft": 2, "magic-cloud": 1}, {}],
    })
    choice = bot.choose(discard)  # type: ignore[attr-defined]
    assert choice in discard.legal_actions()
    if level != "random":
        assert str(choice) == "discard magic-cloud"


def test_levels_are_registered_for_elfenland() -> None:
    assert {"random", "greedy", "search"} <= set(BOT_LEVELS)
    assert make_bot("greedy", "elfenland", 1).name == "greedy"
    assert make_bot("search", "elfenland", 1).name == "search"


def test_bots_refuse_a_finished_game() -> None:
    state = elfenland.new_game(players=2, seed=3)
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    for level in ("random", "greedy", "search"):
        with pytest.raises(ElfenlandError):
            make_bot(level, "elfenland", 0).choose(state)


def test_bot_can_take_over_any_seat_mid_game() -> None:
    state = elfenland.new_game(players=4, seed=11)
    rng = random.Random(5)
    for _ in range(57):
        state.apply_action(rng.choice(state.legal_actions()))
    for level in ("greedy", "search"):
        action = tiny(level, "elfenland", 2).choose(state)  # type: ignore[attr-defined]
        assert action in state.legal_actions()
