"""The compiled Elfengold engine against the pure one, the reference.

Both play the same random games from the same seeds under every rule option (each Q-option
of the specification's section 2, the three variants, 2 to 6 players): after every step
the legal-action lists and every field of the state must be identical, and every few
steps (and at the end) the whole state with its random state, history and log, the
saved game, the position document, every player's view, the scores, the winners and the
returns.  Resampling, clones, text and id actions and illegal actions are compared on the
way.  Over 100,000 steps in all.

On CI (``CI`` set) a missing compiled engine is a failure, not a skip: CI builds it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from tests._compiled_harness import (
    EnginePair,
    assert_copies_are_the_game,
    assert_new_fields_are_named,
    random_steps,
    require_compiled,
)

from elfenland.core.rng import Rng
from elfenland.games.elfengold import ElfengoldState, Phase, deserialize, fast, num_actions
from elfenland.games.elfengold.position import from_position

require_compiled(fast, "Elfengold")

FastState = fast.FastElfengoldState

#: The defaults, every option of ``options.OPTIONS`` changed on its own, and a few mixes.
CONFIGS: list[dict[str, Any]] = [
    {},
    {"eg_card_draw": "three-at-once"},
    {"eg_gold_in_display": "stays-face-up"},
    {"eg_overbid": "capped"},
    {"eg_defaulter_rebids": True},
    {"eg_public_gold": False},
    {"eg_hand_limit": 6},
    {"eg_hand_limit": 4, "eg_hand_limit_when": "after-draw"},
    {"eg_used_obstacles": "remove"},
    {"witch": True, "eg_flight_collects_piece": False},
    {"eg_exchange_same_kind": True},
    {"eg_tiebreak": "coins-cards"},
    {"witch": True, "eg_witch_in_caravan": False},
    {"caravan": "only-if-needed"},
    {"rounds": 2},
    {"random_gold": True},
    {"witch": True},
    {"town_cards": True},
    {"destination": True, "witch": True, "random_gold": True, "eg_overbid": "capped"},
    {"witch": True, "caravan": "only-if-needed", "eg_hand_limit": 5,
     "eg_used_obstacles": "remove", "eg_card_draw": "three-at-once", "rounds": 8},
]
PLAYERS = (2, 3, 4, 5, 6)
STEPS_WANTED = 100_000
#: Every this many steps the whole state is compared (views, saves, positions...).
FULL_EVERY = 97


def brief(s: ElfengoldState) -> tuple[Any, ...]:
    """Every field but the random state and the history (cheap: every step)."""
    return (*(getattr(s, name) for name in fast._FIELDS), s.current_player(), s.is_terminal())


def full_check(a: ElfengoldState, b: ElfengoldState, whole: bool = True) -> None:
    """The whole state alike; on the way through a game (``whole`` false) the views carry
    the log's last 60 entries only (the whole log is compared at the end)."""
    assert a == b  # every field, the random state and the history
    assert a.to_position() == b.to_position()
    after = 0 if whole else max(0, a.history_length() - 60)
    for p in (None, *range(a.n)):
        assert a.view(p, after) == b.view(p, after)
    assert a.scores() == b.scores() and a.winners() == b.winners()
    assert a.returns() == b.returns()
    if whole:
        assert a.log_entries() == b.log_entries()
        assert a.serialize() == b.serialize()


def same_last_log_entry(a: ElfengoldState, b: ElfengoldState) -> None:
    assert a.log_entries(a._length - 1) == b.log_entries(b._length - 1)


PAIR = EnginePair(ElfengoldState, FastState, brief, full_check, num_actions(), "end",
                  full_every=FULL_EVERY, resample_every=389, by_id=True,
                  mid_check=lambda a, b: full_check(a, b, whole=False),
                  after_step=same_last_log_entry)


def test_compiled_engine_plays_exactly_like_the_pure_one() -> None:
    assert PAIR.play_all(CONFIGS, PLAYERS, STEPS_WANTED) >= STEPS_WANTED


def test_every_option_is_played_by_the_differential_test() -> None:
    """Each option of the specification is changed from its default by some config (so
    a new option fails here until the test plays it)."""
    from elfenland.games.elfengold.options import OPTIONS

    changed = {name for config in CONFIGS for name in config} - {"destination"}
    assert changed >= set(OPTIONS.names()), set(OPTIONS.names()) - changed


def test_auction_sales_defaults_and_returns_are_logged_alike() -> None:
    """The auction's three outcomes (sold, a winner who cannot pay, nobody bids) reach the
    compiled log with the pure log's facts; bids far over the coins force defaults."""
    for rebids in (False, True):
        a = ElfengoldState(players=3, seed=11, eg_defaulter_rebids=rebids)
        b = FastState(players=3, seed=11, eg_defaulter_rebids=rebids)
        r = random.Random(5)
        while a.phase is not Phase.PLACE:
            legal = a.legal_action_ids()
            if a.phase is Phase.AUCTION:
                # Bid high now and then (a default), else pass or bid low.
                choice = r.random()
                x = legal[-1] if choice < 0.2 else legal[min(1, len(legal) - 1)] \
                    if choice < 0.6 else legal[0]
            else:
                x = legal[r.randrange(len(legal))]
            a.apply_action(x)
            b.apply_action(x)
            assert brief(a) == brief(b)
        keys = {k for _, _, public, _ in a.log_entries() for k in public}
        assert {"sold", "default"} <= keys
        full_check(a, b)


def test_saved_games_and_positions_load_on_either_engine() -> None:
    b = random_steps(FastState(players=4, seed=5, witch=True), 300, random.Random(1),
                     by_id=True)
    text = b.serialize()
    again = fast.deserialize_fast(text)
    assert isinstance(again, FastState)
    assert again == b == deserialize(text)
    pure = b.to_pure()
    assert type(pure) is ElfengoldState and pure == b
    assert pure.log_entries() == b.log_entries()
    back = FastState.from_state(pure)
    assert back == b and back.log_entries() == pure.log_entries()
    position = b.to_position()
    loaded = FastState.from_state(from_position(position))
    assert loaded.to_position() == position
    full_check(from_position(position), loaded)


def test_pickles_and_deep_copies_are_the_same_game() -> None:
    b = random_steps(FastState(players=3, seed=8), 150, random.Random(8), by_id=True)
    assert_copies_are_the_game(b, log=lambda s: s.log_entries())


def test_clones_are_independent() -> None:
    r = random.Random(2)
    b = random_steps(FastState(players=3, seed=2, witch=True), 80, r, by_id=True)
    before = b.to_pure()
    c = random_steps(b.clone(), 120, r, by_id=True)
    assert b == before and c != b
    # The lists a reader gets are copies: writing into them does not change the game.
    b.hands[b.current][0] += 5
    b.coins[0] += 100
    b.counters[0].append(3)
    b.legal_actions().clear()
    assert b.legal_action_ids() == before.legal_action_ids()
    assert b == before
    x = before.legal_action_ids()[-1]
    b.apply_action(x)
    before.apply_action(x)
    assert b == before


def test_a_field_or_option_new_to_the_pure_engine_switches_the_compiled_one_off() -> None:
    """When the pure engine grows a field or a rule option the C code does not mirror,
    ``fast.STALE`` names it: the compiled engine then does not serve, and this module
    fails."""
    from elfenland.games.elfengold import Rules

    assert_new_fields_are_named(fast, ElfengoldState(players=2, seed=0), Rules, "bank",
                                "dragon_gold")
    assert fast._numbering_gaps() == []


@pytest.mark.parametrize(("args", "kwargs"), [
    ((), {"players": 2, "seed": 3}),
    ((3, 9), {}),
    ((4, 2**70, "elfengold", True), {}),
    ((), {"players": 5, "seed": 0, "rules": " Elfengold ", "destination": False}),
    ((), {"players": 6, "seed": -4, "witch": True, "random_gold": True}),
    ((), {"seed": 7}),
])
def test_a_new_game_is_the_same_however_it_is_asked_for(args: tuple[Any, ...],
                                                        kwargs: dict[str, Any]) -> None:
    a = ElfengoldState(*args, **kwargs)
    b = FastState(*args, **kwargs)
    full_check(a, b)
    assert b.rules == a.rules and b.board is a.board and b.seed == a.seed
    assert b.origin is None and b.log_entries() == [] and b.history == []
    for _ in range(60):  # the same random state draws the same future
        x = a.legal_action_ids()[-1]
        a.apply_action(x)
        b.apply_action(x)
    full_check(a, b)


@pytest.mark.parametrize("kwargs", [
    {"players": 1, "seed": 1}, {"players": 7, "seed": 1}, {"players": 2**80, "seed": 1},
    {"players": "2", "seed": 1}, {"players": True, "seed": 1}, {"players": 2, "seed": "x"},
    {"players": 2, "seed": 1.5}, {"players": 2, "seed": False},
    {"players": 2, "seed": 1, "rules": "chess"}, {"players": 2, "seed": 1, "rounds": 0},
    {"players": 2, "seed": 1, "eg_overbid": "sometimes"},
    {"players": 2, "seed": 1, "colour": "red"},
])
def test_a_bad_new_game_fails_alike(kwargs: dict[str, Any]) -> None:
    PAIR.assert_bad_new_game_fails_alike(kwargs)


def test_engine_backend_follows_the_build_and_the_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pure unless asked for (``fast.BY_DEFAULT``); ``ELFENLAND_ENGINE`` chooses."""
    import elfenland

    monkeypatch.delenv("ELFENLAND_ENGINE", raising=False)
    expected = "compiled" if fast.BY_DEFAULT else "pure"
    assert elfenland.engine_backend("elfengold") == expected
    monkeypatch.setenv("ELFENLAND_ENGINE", "compiled")
    assert elfenland.engine_backend("elfengold") == "compiled"
    game = elfenland.new_game("elfengold", players=2, seed=1)
    assert type(game) is FastState
    assert type(elfenland.deserialize(game.serialize())) is FastState
    assert type(elfenland.load_position(game.to_position())) is FastState
    monkeypatch.setenv("ELFENLAND_ENGINE", "pure")
    assert elfenland.engine_backend("elfengold") == "pure"
    game = elfenland.new_game("elfengold", players=2, seed=1)
    assert type(game) is ElfengoldState
    assert type(elfenland.deserialize(game.serialize())) is ElfengoldState


def test_resampling_deals_alike_in_every_phase_for_every_seat() -> None:
    """Resampled for each seat at each step of a few games (an item drawn by another
    player, hidden hands, face-down items, town cards): the same position, the same
    origin, and the same game when played on."""
    r = random.Random(4)
    for seed, options in enumerate(({"town_cards": True}, {"witch": True}, {})):
        a = ElfengoldState(players=4, seed=seed, **options)
        b = FastState(players=4, seed=seed, **options)
        phases = set()
        for step in range(600):
            if a.is_terminal():
                break
            phases.add(a.phase)
            seat = step % 4
            ra = a.resample_from_infostate(seat, Rng(step))
            rb = b.resample_from_infostate(seat, Rng(step))
            assert type(rb) is FastState
            assert ra.to_position() == rb.to_position()
            assert ra.origin == rb.origin and ra.history == rb.history == []
            if step % 50 == 0:
                PAIR.check_resample(a, b, step, r)
            x = a.legal_action_ids()[r.randrange(len(a.legal_action_ids()))]
            a.apply_action(x)
            b.apply_action(x)
        assert Phase.DRAW_ITEMS in phases and Phase.MOVE in phases
