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

import copy
import os
import pickle
import random
from typing import Any

import pytest

from elfenland.core.errors import ElfenlandError, IllegalActionError
from elfenland.core.rng import Rng
from elfenland.games.elfengold import ElfengoldState, Phase, deserialize, fast, num_actions
from elfenland.games.elfengold.position import from_position

if not fast.AVAILABLE:
    if os.environ.get("CI"):
        pytest.fail("the compiled Elfengold engine was not built on CI", pytrace=False)
    pytest.skip("the compiled engine is not built on this machine", allow_module_level=True)

if fast.STALE:
    pytest.fail(f"the compiled Elfengold engine lags the pure one: {', '.join(fast.STALE)}",
                pytrace=False)

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


def check_resample(a: ElfengoldState, b: ElfengoldState, seed: int, r: random.Random) -> int:
    """Resample both for the player to act, then play on from clones; returns steps."""
    p = a.current_player()
    ra = a.resample_from_infostate(p, Rng(seed))
    rb = b.resample_from_infostate(p, Rng(seed))
    assert isinstance(rb, FastState)
    assert ra.to_position() == rb.to_position()
    assert ra.serialize() == rb.serialize()
    ca, cb = ra.clone(), rb.clone()
    steps = 0
    while steps < 25 and not ca.is_terminal():
        legal = ca.legal_action_ids()
        assert legal == cb.legal_action_ids()
        x = legal[r.randrange(len(legal))]
        ca.apply_action(x)
        cb.apply_action(x)
        steps += 1
        assert brief(ca) == brief(cb)
    full_check(ca, cb)
    # The copies played on; the resampled states they came from did not move.
    assert ra.to_position() == rb.to_position() and rb._length == 0
    return steps


def play_pair(n: int, seed: int, options: dict[str, Any]) -> int:
    a = ElfengoldState(players=n, seed=seed, **options)
    b = FastState(players=n, seed=seed, **options)
    assert type(b) is FastState
    full_check(a, b)
    r = random.Random(seed * 7919 + n)
    steps = 0
    while not a.is_terminal():
        legal = a.legal_action_ids()
        assert legal == b.legal_action_ids()
        assert b.current_player() == a.current_player()
        x = legal[r.randrange(len(legal))]
        if steps % 11 == 3:
            # An illegal action: the same error and message, and nothing changes.
            bad = r.randrange(num_actions())
            if bad not in legal:
                with pytest.raises(IllegalActionError) as err_a:
                    a.apply_action(bad)
                with pytest.raises(IllegalActionError) as err_b:
                    b.apply_action(bad)
                assert str(err_a.value) == str(err_b.value)
        action = a.parse_action(x)
        a.apply_action(action)
        # The compiled engine takes the action object, its text or its id alike.
        b.apply_action((action, str(action), x)[steps % 3])
        steps += 1
        assert brief(a) == brief(b)
        assert a.log_entries(a._length - 1) == b.log_entries(b._length - 1)
        if steps % FULL_EVERY == 0:
            full_check(a, b, whole=False)
        if steps % 389 == 0 and not a.is_terminal():
            steps += check_resample(a, b, seed * 1000 + steps, r)
    assert b.is_terminal()
    full_check(a, b)
    with pytest.raises(ElfenlandError) as over_a:
        a.apply_action("end")
    with pytest.raises(ElfenlandError) as over_b:
        b.apply_action("end")
    assert str(over_a.value) == str(over_b.value)
    return steps


def test_compiled_engine_plays_exactly_like_the_pure_one() -> None:
    total = 0
    seed = 0
    while total < STEPS_WANTED:
        for options in CONFIGS:
            for n in PLAYERS:
                total += play_pair(n, seed, options)
        seed += 1
    assert total >= STEPS_WANTED


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
    b = FastState(players=4, seed=5, witch=True)
    r = random.Random(1)
    for _ in range(300):
        legal = b.legal_action_ids()
        b.apply_action(legal[r.randrange(len(legal))])
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
    b = FastState(players=3, seed=8)
    r = random.Random(8)
    for _ in range(150):
        legal = b.legal_action_ids()
        b.apply_action(legal[r.randrange(len(legal))])
    for copy_ in (pickle.loads(pickle.dumps(b)), copy.deepcopy(b)):
        assert type(copy_) is FastState and copy_ == b
        assert copy_.log_entries() == b.log_entries()
        assert copy_.legal_actions()[0] is b.legal_actions()[0]


def test_clones_are_independent() -> None:
    b = FastState(players=3, seed=2, witch=True)
    r = random.Random(2)
    for _ in range(80):
        legal = b.legal_action_ids()
        b.apply_action(legal[r.randrange(len(legal))])
    before = b.to_pure()
    c = b.clone()
    for _ in range(120):
        if c.is_terminal():
            break
        legal = c.legal_action_ids()
        c.apply_action(legal[r.randrange(len(legal))])
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
    from dataclasses import dataclass

    from elfenland.games.elfengold import Rules

    probe = ElfengoldState(players=2, seed=0)
    assert fast._gaps(probe, Rules, fast._KNOWN_STATE, fast._KNOWN_RULES) == []
    probe.bank = 5  # type: ignore[attr-defined]

    @dataclass(frozen=True)
    class MoreRules(Rules):
        dragon_gold: bool = False

    assert fast._gaps(probe, MoreRules, fast._KNOWN_STATE, fast._KNOWN_RULES) == [
        "state field bank", "rule option dragon_gold"]
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
    with pytest.raises(ElfenlandError) as pure:
        ElfengoldState(**kwargs)
    with pytest.raises(ElfenlandError) as compiled:
        FastState(**kwargs)
    assert type(compiled.value) is type(pure.value) and str(compiled.value) == str(pure.value)


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
                check_resample(a, b, step, r)
            x = a.legal_action_ids()[r.randrange(len(a.legal_action_ids()))]
            a.apply_action(x)
            b.apply_action(x)
        assert Phase.DRAW_ITEMS in phases and Phase.MOVE in phases
