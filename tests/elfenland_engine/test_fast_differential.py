"""The compiled Elfenland engine against the pure one, the reference.

Both play the same random games from the same seeds under every rule set and variant:
after every step the legal-action lists and the positions must be identical, and every
few steps (and at the end) the whole state with its random state and history, the saved
game, the position document and every player's view.  Resampling, clones, text and id
actions and illegal actions are compared on the way.  Over 100,000 steps in all.

On CI (``CI`` set) a missing compiled engine is a failure, not a skip: CI builds it.
"""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pytest
from tests._compiled_harness import (
    EnginePair,
    assert_copies_are_the_game,
    assert_new_fields_are_named,
    random_steps,
    require_compiled,
)

import elfenland
from elfenland.core.rng import Rng
from elfenland.games.elfenland import ElfenlandState, fast, num_actions

require_compiled(fast)

FastState = fast.FastElfenlandState

#: Every rule set and variant, and each single rule difference on its own.
CONFIGS: list[dict[str, Any]] = [
    {"rules": "amigo"},
    {"rules": "moon"},
    {"rules": "amigo", "destination": True},
    {"rules": "moon", "destination": True},
    {"rules": "amigo", "deal": "fresh"},
    {"rules": "amigo", "keep_when": "after-placement"},
    {"rules": "amigo", "mare_nebulae_rafts": 1, "boatmen": True},
    {"rules": "amigo", "early_end": "special-victory"},
    {"rules": "moon", "closest_breaks_ties": True, "town_cards": True},
    {"rules": "amigo", "destination": True, "closest_breaks_ties": False},
    {"rules": "amigo", "counters_kept": 0},
    {"rules": "amigo", "counters_kept": 2, "hand_limit": 2},
    {"rules": "moon", "counters_kept": 3, "face_up_counters": 3, "counter_draws": 2},
    {"rules": "amigo", "rounds": 2, "cards_per_deal": 5, "mare_magnum_rafts": 1},
    {"rules": "moon", "rounds": 3, "caravan_cards": 3, "hand_limit": 6},
    {"rules": "amigo", "caravan": "only-if-needed"},
    {"rules": "moon", "caravan": "only-if-needed", "destination": True},
    {"rules": "amigo", "early_end": "special-victory", "special_victory_at": "round-3"},
    {"rules": "amigo", "final_keep": False},
    {"rules": "amigo", "keep_when": "after-placement", "final_keep": False},
]
PLAYERS = (2, 3, 4, 5, 6)
STEPS_WANTED = 100_000


def brief(s: ElfenlandState) -> tuple[Any, ...]:
    """The position without the random state and the history (cheap, every step)."""
    return (s.round, s.phase, s.starting, s.current_player(), s.step, s.passes,
            s.discarding, s.hands, s.card_pile, s.counter_pile, s.face_up, s.counters_up,
            s.counters_secret, s.kept_up, s.kept_secret, s.route_counter, s.route_obstacle,
            s.obstacle_in_hand, s.boots, s.visited, s.town_cards, s.result,
            s.special_victory, s._length, s.is_terminal())


def full_check(a: ElfenlandState, b: ElfenlandState) -> None:
    assert a == b  # every field, the random state and the history
    assert a.serialize() == b.serialize()
    assert a.to_position() == b.to_position()
    for p in (None, *range(a.n)):
        assert a.view(p) == b.view(p)
    assert a.scores() == b.scores() and a.winners() == b.winners()
    assert a.returns() == b.returns()


PAIR = EnginePair(ElfenlandState, FastState, brief, full_check, num_actions(), "end",
                  full_every=53, resample_every=89, compare_text=True)


def test_compiled_engine_plays_exactly_like_the_pure_one() -> None:
    assert PAIR.play_all(CONFIGS, PLAYERS, STEPS_WANTED) >= STEPS_WANTED


@pytest.mark.parametrize("options", [
    {"early_end": "special-victory"},
    {"early_end": "special-victory", "special_victory_at": "round-3"},
    {"early_end": "special-victory", "special_victory_at": "round-3", "final_keep": False},
    {"final_keep": False},
    {"final_keep": False, "keep_when": "after-placement"},
    {"final_keep": False, "rounds": 2},
])
def test_a_player_with_every_town_ends_the_game_alike(options: dict[str, Any]) -> None:
    """Player 1 starts with every town visited and the starting player is player 2:
    the round ends (special victory, or not yet under ``round-3``, the keep step skipped
    or not) and the starting player passes on from where it was, on both engines."""
    board = elfenland.games.elfenland.load_board()
    everything = (1 << len(board.towns)) - 1 & ~(1 << board.capital)
    for n in (3, 4):
        for seed in range(4):
            a = ElfenlandState(players=n, seed=seed, **options)
            preset = {"visited": [0, everything] + [0] * (n - 2), "starting": 2}
            steps = PAIR.play_pair(n, seed, options, preset)
            assert steps > 0
            for name, value in preset.items():
                setattr(a, name, value)
            r = random.Random(seed * 7919 + n)
            while not a.is_terminal():
                legal = a.legal_actions()
                a.apply_action(legal[r.randrange(len(legal))])
            round_3_only = options.get("special_victory_at") == "round-3"
            assert a.round == (options.get("rounds", 4) - 1 if round_3_only else 1)
            if options.get("early_end"):
                assert a.special_victory and a.winners() == [1]


def test_saved_games_and_positions_load_on_either_engine() -> None:
    b = random_steps(FastState(players=4, seed=5, rules="moon"), 120, random.Random(1))
    text = b.serialize()
    again = fast.deserialize_fast(text)
    assert isinstance(again, FastState)
    assert again == b == elfenland.games.elfenland.deserialize(text)
    pure = b.to_pure()
    assert type(pure) is ElfenlandState and pure == b
    back = FastState.from_state(pure)
    assert back == b and back.log == pure.log
    position = b.to_position()
    loaded = fast.from_pure(elfenland.games.elfenland.from_position(position))
    assert loaded.to_position() == position


def test_pickles_and_deep_copies_are_the_same_game() -> None:
    b = random_steps(FastState(players=3, seed=8), 70, random.Random(8))
    assert_copies_are_the_game(b)


def test_clones_are_independent() -> None:
    r = random.Random(2)
    b = random_steps(FastState(players=3, seed=2), 40, r)
    before = b.to_pure()
    c = random_steps(b.clone(), 60, r)
    assert b == before and c != b
    # The lists a reader gets are copies: writing into them does not change the game.
    b.hands[b.current][0] += 5
    b.legal_actions().clear()
    assert b.legal_actions() == before.legal_actions()
    x = before.legal_actions()[-1]
    b.apply_action(x)
    before.apply_action(x)
    assert b == before


def test_engine_backend_follows_the_build_and_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    assert elfenland.engine_backend() == "compiled"
    assert type(elfenland.new_game(players=2, seed=1)) is FastState
    monkeypatch.setenv("ELFENLAND_ENGINE", "pure")
    assert elfenland.engine_backend() == "pure"
    game = elfenland.new_game(players=2, seed=1)
    assert type(game) is ElfenlandState
    assert type(elfenland.deserialize(game.serialize())) is ElfenlandState


def test_without_the_compiled_module_the_pure_engine_runs() -> None:
    """What a machine without a C compiler gets: the import of ``_speedups`` fails."""
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.endswith("._speedups"):
            raise ImportError("not built")
sys.meta_path.insert(0, Block())
import elfenland
from elfenland.games.elfenland import fast
from elfenland.games.kingelves import fast as fast_kote
assert not fast.AVAILABLE and not fast_kote.AVAILABLE
from elfenland.core.errors import ElfenlandError
for cls, title in ((fast.FastElfenlandState, "Elfenland"),
                   (fast_kote.FastKingOfTheElvesState, "King of the Elves")):
    try:
        cls(players=2, seed=1)
    except ElfenlandError as exc:
        assert f"compiled {title} engine was not built" in str(exc), exc
    else:
        raise AssertionError("a compiled state without the compiled engine")
import random
r = random.Random(4)
for game in ("elfenland", "king-of-the-elves"):
    assert elfenland.engine_backend(game) == "pure"
    g = elfenland.new_game(game, players=3, seed=4)
    while not g.is_terminal():
        legal = g.legal_actions()
        g.apply_action(legal[r.randrange(len(legal))])
    print(type(g).__name__, g.winners())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    lines = out.stdout.split("\n")
    assert lines[0].startswith("ElfenlandState [")
    assert lines[1].startswith("KingOfTheElvesState [")


def test_a_field_or_option_new_to_the_pure_engine_switches_the_compiled_one_off() -> None:
    """When the pure engine grows a field or a rule option the C code does not mirror,
    ``fast.STALE`` names it: the compiled engine is then not used, and this module fails."""
    from elfenland.games.elfenland import Rules

    assert_new_fields_are_named(fast, ElfenlandState(players=2, seed=0), Rules,
                                "first_player", "ferry")


@pytest.mark.parametrize(("args", "kwargs"), [
    ((), {"players": 2, "seed": 3}),
    ((3, 9), {}),
    ((4, 2**70, "moon", True), {}),
    ((), {"players": 5, "seed": 0, "rules": " Moon ", "destination": False}),
    ((), {"players": 6, "seed": -4, "rules": "amigo", "destination": True}),
    ((), {"seed": 7}),
    ((), {"players": 3, "seed": 1, "boatmen": True}),
    ((), {"players": 3, "seed": True}),
    ((), {"players": 2, "seed": 1, "rules": elfenland.games.elfenland.MOON}),
])
def test_a_new_game_is_the_same_however_it_is_asked_for(args: tuple[Any, ...],
                                                        kwargs: dict[str, Any]) -> None:
    """The C base builds the everyday new game itself (its Rng too); every other call
    goes through Python.  Either way: the pure engine's game, random state and all."""
    a = ElfenlandState(*args, **kwargs)
    b = FastState(*args, **kwargs)
    full_check(a, b)
    assert type(b.rng) is Rng and type(b.rng._r) is random.Random
    assert vars(b.rng._r) == vars(a.rng._r) == {"gauss_next": None}
    assert b.rules == a.rules and b.board is a.board and b.seed == a.seed
    assert b.origin is None and b.log == [] and b.history == []
    for _ in range(30):  # the same random state draws the same future
        x = a.legal_actions()[-1]
        a.apply_action(x)
        b.apply_action(x)
    full_check(a, b)


@pytest.mark.parametrize("kwargs", [
    {"players": 1, "seed": 1}, {"players": 7, "seed": 1}, {"players": 2**80, "seed": 1},
    {"players": "2", "seed": 1}, {"players": 2, "seed": "x"}, {"players": 2, "seed": 1.5},
    {"players": 2, "seed": 1, "rules": "chess"}, {"players": 2, "seed": 1, "rules": 3},
    {"players": 2, "seed": 1, "hand_limit": 0}, {"players": 2, "seed": 1, "colour": "red"},
])
def test_a_bad_new_game_fails_alike(kwargs: dict[str, Any]) -> None:
    PAIR.assert_bad_new_game_fails_alike(kwargs)
    with pytest.raises(TypeError):
        FastState(2, 1, players=2)


def test_clones_that_play_on_keep_their_own_history() -> None:
    """Clones share their history's storage until one of them plays on: then each keeps
    its own, whichever plays first, and reading it (``log``) changes nothing."""
    r = random.Random(3)
    root = FastState(players=3, seed=3)
    pure = root.to_pure()
    for _ in range(20):
        x = root.legal_actions()[r.randrange(len(root.legal_actions()))]
        root.apply_action(x)
        pure.apply_action(x)
    family: list[tuple[ElfenlandState, ElfenlandState]] = [(root, pure)]
    for step in range(300):
        b, a = family[r.randrange(len(family))]
        if step % 7 == 0:
            family.append((b.clone(), a.clone()))
        if step % 13 == 0:
            assert b.log == a.log  # made into links: later steps go on from them
        if not a.is_terminal():
            x = a.legal_actions()[r.randrange(len(a.legal_actions()))]
            a.apply_action(x)
            b.apply_action(x)
        if step % 50 == 0:
            del family[1:3]  # a dead clone's entries are nobody's
    assert len(family) > 10
    for b, a in family:
        full_check(a, b)
        assert b.history == a.history and b._length == a._length
