"""Elfengold's observation vector: every block says what ``view(player)`` says (coins,
gold values, the auction, items face up and face down), re-dealing every hidden thing
changes nothing, and the coins of the others follow ``eg_public_gold``."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from .conftest import need

np = need("numpy")

import elfenland  # noqa: E402
from elfenland.core.rng import Rng  # noqa: E402
from elfenland.envs.elfengold_observation import PHASES, RULE_FEATURES  # noqa: E402
from elfenland.envs.observation import (  # noqa: E402
    action_mask,
    encoder_for,
    num_actions,
    observation_layout,
)
from elfenland.games.elfengold.items import CARD_SLUGS, ITEM_SLUGS  # noqa: E402
from elfenland.games.elfenland.board import load_board  # noqa: E402

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"eg_public_gold": False, "witch": True, "town_cards": True},
    {"random_gold": True, "eg_overbid": "capped", "eg_defaulter_rebids": True,
     "eg_gold_in_display": "stays-face-up", "eg_hand_limit": 6},
]


def random_states(players: int, seed: int, every: float, **options: Any) -> Any:
    """The states of one random game: a share ``every`` of them, the first of each
    phase, and the last."""
    state = elfenland.new_game(game="elfengold", players=players, seed=seed, **options)
    rng = random.Random(seed)
    while not state.is_terminal():
        phase = state.phase
        state.apply_action(rng.choice(state.legal_action_ids()))
        if state.phase is not phase or rng.random() < every:
            yield state.clone()


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("players", [2, 5])
def test_re_dealing_every_hidden_thing_changes_no_observation(
        options: dict[str, Any], players: int) -> None:
    checked = 0
    phases: set[str] = set()
    encoder = encoder_for(elfenland.new_game(game="elfengold", players=players, **options))
    high = encoder.layout.high()
    games, every = (3, 0.1) if players == 2 else (1, 0.04)
    states = [s for seed in range(games) for s in random_states(players, seed, every, **options)]
    for state in states:
        phases.add(state.phase.value)
        for p in range(players):
            vec = encoder.encode(state, p)
            assert vec.dtype == np.float32 and vec.shape == (encoder.layout.size,)
            assert (vec >= 0).all() and (vec <= high).all()
            other = state.resample_from_infostate(p, Rng(checked))
            assert np.array_equal(encoder.encode(other, p), vec), "hidden information leaks"
            checked += 1
        if not state.is_terminal():
            mask = action_mask(state)
            assert mask.shape == (num_actions("elfengold"),)
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(state.legal_action_ids())
    assert checked > 100
    assert {"auction", "draw-items", "place", "move", "over"} <= phases


def counts(slugs: list[str], names: tuple[str, ...]) -> list[float]:
    c = Counter(slugs)
    return [float(c[name]) for name in names]


def check_against_view(state: Any, player: int) -> None:
    """Reads the vector back and compares every block with ``view(player)``."""
    board = load_board()
    n = state.num_players
    encoder = encoder_for(state)
    slices = encoder.layout.slices()
    vec = encoder.encode(state, player)
    view = state.view(player, log_after=state.history_length())

    def block(name: str, seat: int | None = None) -> list[float]:
        key = name if seat is None else f"{name}@+{seat}"
        return [float(x) for x in vec[slices[key]]]

    def seat_of(absolute: int | None) -> list[float]:
        out = [0.0] * n
        if absolute is not None:
            out[(absolute - player) % n] = 1.0
        return out

    assert block("phase") == [float(ph.value == view["phase"]) for ph in PHASES]
    assert block("round") == [view["round"]] and block("rounds") == [view["rounds"]]
    assert block("current_player") == seat_of(view["current_player"])
    assert block("starting_player") == seat_of(view["starting_player"])
    assert block("gold_values") == [float(view["gold_values"][t.id]) for t in board.towns]
    assert block("display") == counts(view["display"], CARD_SLUGS)
    assert block("gold_deck") == [view["gold_deck"]]
    assert block("supply") == [view["supply"]] and block("discard") == [view["discard"]]
    assert block("item_pile") == [view["item_pile"]]
    assert block("rules")[[name for name, _ in RULE_FEATURES].index("eg_public_gold")] == \
        float(view["options"]["eg_public_gold"])
    roads = {r["route"]: r for r in view["roads"]}
    road_counters = np.reshape(block("road_counters"), (len(board.roads), 6))
    for j, r in enumerate(board.roads):
        entry = roads.get(board.routes[r].id, {})
        assert list(road_counters[j]) == counts(entry.get("counters", []), ITEM_SLUGS[:6])
        assert block("road_double")[j] == float(entry.get("double", False))
        assert block("road_gold_piece")[j] == float(entry.get("gold_piece", False))
    obstacles = np.reshape(block("route_obstacle"), (len(board.routes), 2))
    for r, route in enumerate(board.routes):
        kind = roads.get(route.id, {}).get("obstacle")
        assert list(obstacles[r]) == [float(kind == "tree"), float(kind == "sea-monster")]
    auction = view.get("auction")
    if auction is None:
        assert not any(block("auction_item")) and not any(block("auction_row"))
        assert block("auction_high_bid") == [0.0]
    else:
        assert block("auction_item") == counts([auction["item"]], ITEM_SLUGS)
        assert block("auction_row") == counts(auction["row"], ITEM_SLUGS)
        assert block("auction_high_bid") == [auction["high_bid"]]
        assert block("auction_high_bidder") == seat_of(auction["high_bidder"])
        for key in ("passed", "excluded"):
            assert block(f"auction_{key}") == [
                float((player + rel) % n in auction[key]) for rel in range(n)]
    assert block("earned") == [view.get("earned", 0)]
    for rel in range(n):
        seen = view["players"][(player + rel) % n]
        assert block("boot", rel) == [float(t.id == seen["boot"]) for t in board.towns]
        assert block("towns", rel) == [float(t.id in seen["towns"]) for t in board.towns]
        assert block("markers", rel) == [seen["markers"]]
        assert block("cards", rel) == [seen["cards"]]
        assert block("coins", rel) == [seen.get("coins", 0)]
        assert block("items", rel) == counts(seen["items"], ITEM_SLUGS)
        assert block("kept_items", rel) == counts(seen["kept_items"], ITEM_SLUGS)
        assert block("face_down_items", rel) == [seen["face_down_items"]]
        assert block("hand", rel) == counts(seen.get("hand", []), CARD_SLUGS[:8])
        assert block("face_down", rel) == counts(seen.get("face_down", []), ITEM_SLUGS)
        assert block("kept_face_down", rel) == counts(seen.get("kept_face_down", []),
                                                      ITEM_SLUGS)
        drawn = view.get("drawn", []) if rel == 0 else []
        assert block("drawn", rel) == counts(drawn, ITEM_SLUGS)
        card = seen.get("town_card")
        assert block("town_card", rel) == [float(t.id == card) for t in board.towns]
        assert block("distance", rel) == [seen.get("distance", 0)]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_every_block_says_what_the_view_says(options: dict[str, Any]) -> None:
    seen_auction = seen_hidden_coins = 0
    for state in random_states(4, 7, 0.01, **options):
        for p in range(4):
            check_against_view(state, p)
        seen_auction += state.phase.value == "auction"
        seen_hidden_coins += "coins" not in state.view(1)["players"][0]
    assert seen_auction > 3
    assert (seen_hidden_coins > 0) == (options.get("eg_public_gold") is False)


def test_the_coins_of_others_follow_eg_public_gold() -> None:
    for public in (True, False):
        state = elfenland.new_game(game="elfengold", players=3, seed=2,
                                   eg_public_gold=public)
        encoder = encoder_for(state)
        layout = encoder.layout
        assert layout.block("coins", 1).private is not public
        own, other = layout.slices()["coins@+0"], layout.slices()["coins@+1"]
        before = encoder.encode(state, 0)
        assert before[own].tolist() == [12.0]
        assert before[other].tolist() == ([12.0] if public else [0.0])
        # What only seat 1 (and, with public gold, everyone) knows; the whole field is
        # written back, as a compiled state hands out a copy of its list.
        state.coins = [c + 5 * (p == 1) for p, c in enumerate(state.coins)]
        after = encoder.encode(state, 0)
        assert np.array_equal(after, before) is not public
        assert encoder.encode(state, 1)[own].tolist() == [17.0]
    # Once the game is over, everyone's coins show (the ranking's tie-break).
    final = list(random_states(3, 4, 0.0, eg_public_gold=False))[-1]
    assert final.is_terminal()
    vec = encoder_for(final).encode(final, 0)
    assert [vec[layout.slices()[f"coins@+{r}"]][0] for r in range(3)] == \
        [float(final.coins[r % 3]) for r in range(3)]


def test_the_auction_blocks_show_the_item_the_bid_and_who_passed() -> None:
    state = elfenland.new_game(game="elfengold", players=3, seed=11)
    while state.phase.value != "auction":
        state.apply_action(state.legal_action_ids()[0])
    layout = observation_layout("elfengold", 3)
    sl = layout.slices()
    bidder = state.current_player()
    state.apply_action("bid 4")
    passer = state.current_player()
    state.apply_action("pass")
    for p in range(3):
        vec = encoder_for(state).encode(state, p)
        assert vec[sl["auction_item"]].tolist().index(1.0) == state.row[0]
        assert vec[sl["auction_row"]].sum() == len(state.row) == 6
        assert vec[sl["auction_high_bid"]].tolist() == [4.0]
        assert vec[sl["auction_high_bidder"]].tolist().index(1.0) == (bidder - p) % 3
        assert vec[sl["auction_passed"]].tolist().index(1.0) == (passer - p) % 3
        assert vec[sl["auction_passed"]].sum() == 1


def test_the_layout_has_one_shape_for_every_option_set() -> None:
    sizes = {observation_layout("elfengold", 4, **o).size for o in OPTION_SETS}
    assert len(sizes) == 1
    per_seat = sum(b.size for b in observation_layout("elfengold", 4).blocks if b.seat == 0)
    assert per_seat == 131
