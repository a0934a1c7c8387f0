"""The Elfengold bots: legal over whole games (2–6 players, the witch, random gold, town
cards), bids that follow the plan, and a movement planner that equals an exhaustive
search over the engine's own legal moves."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfengold_greedy import ElfengoldGreedyBot
from elfenland.bots.elfengold_planner import CARD_COINS, plan_move
from elfenland.bots.elfengold_search import ElfengoldSearchBot
from elfenland.cli import main
from elfenland.core.transport import COST_TABLE, Transport
from elfenland.games.elfengold.actions import Action, Kind
from elfenland.games.elfengold.items import (
    HAND_KINDS,
    NUM_COUNTERS,
    SEA_MONSTER,
    TREE,
    WITCH,
)
from elfenland.games.elfengold.state import NONE, ElfengoldState, Phase

CONFIGS: list[dict[str, Any]] = [
    {}, {"witch": True}, {"random_gold": True},
    {"witch": True, "random_gold": True, "town_cards": True},
]


def new(players: int, seed: int, **options: Any) -> ElfengoldState:
    state = elfenland.new_game("elfengold", players=players, seed=seed, **options)
    assert isinstance(state, ElfengoldState)
    return state


def drive(state: ElfengoldState, levels: list[str], seed: int) -> set[str]:
    """Play to the end; every bot decision is checked legal *before* the bot's own
    fallback could hide a wrong pick."""
    bots = [make_bot(level, "elfengold", seed + i) for i, level in enumerate(levels)]
    phases: set[str] = set()
    while not state.is_terminal():
        p = state.current_player()
        legal = state.legal_actions()
        bot = bots[p]
        if isinstance(bot, ElfengoldGreedyBot) and len(legal) > 1:
            picked = bot.pick(state, legal)
            assert picked in legal, (state.phase, str(picked))
        action = bot.choose(state)
        assert action in legal
        phases.add(state.phase.value)
        state.apply_action(action)
    return phases


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("config", range(len(CONFIGS)))
def test_greedy_plays_legal_short_games(players: int, config: int) -> None:
    seed = 31 * players + config
    state = new(players, seed, rounds=2, **CONFIGS[config])
    levels = ["greedy", "random"] * 3
    phases = drive(state, levels[:players], seed)
    assert {"draw-items", "auction", "place", "move", "settle"} <= phases
    assert state.winners()


@pytest.mark.parametrize("seed", [1, 2])
def test_greedy_plays_legal_whole_games_with_the_witch_and_random_gold(seed: int) -> None:
    state = new(4, seed, witch=True, random_gold=True)
    drive(state, ["greedy", "greedy", "random", "random"], seed)
    assert state.is_terminal()


def test_greedy_beats_random_in_towns() -> None:
    state = new(3, 5)
    drive(state, ["greedy", "random", "random"], 5)
    assert state.markers(0) > max(state.markers(1), state.markers(2))


# ----------------------------------------------------------------- bidding
def auction_state() -> ElfengoldState:
    state = new(3, 8)
    bot = make_bot("greedy", "elfengold", 0)
    while state.phase is not Phase.AUCTION:
        state.apply_action(bot.choose(state))
    state.current = 0
    state.hands[0] = [0, 5, 0, 0, 0, 0, 0, 0]  # five elfcycle cards, nothing else
    state.items_up[0] = [0] * len(state.items_up[0])
    state.items_down[0] = [0] * len(state.items_down[0])
    state.coins[0] = 12
    state._legal = None
    return state


def highest_bid(state: ElfengoldState, item: int) -> int:
    bot = ElfengoldGreedyBot(3)
    bid = 0
    while True:
        s = state.clone()
        s.row[0] = item
        s.high_bid, s.high_bidder, s.passed = bid, 1 if bid else NONE, 0
        s._legal = None
        action = bot.choose(s)
        assert isinstance(action, Action) and action in s.legal_actions()
        if action.kind is not Kind.BID:
            return bid
        assert action.amount > bid
        bid = action.amount


def test_bot_bids_more_for_an_item_its_route_needs() -> None:
    state = auction_state()
    elfcycle = int(Transport.ELFCYCLE)
    useful = highest_bid(state, elfcycle)
    useless = highest_bid(state, int(Transport.MAGIC_CLOUD))
    assert useful > useless
    assert useful <= state.coins[0]


# ----------------------------------------------------------------- the planner
def move_position(seed: int, witch: bool) -> ElfengoldState:
    """Player 0 to move on a random board: counters, trees, sea monsters, gold pieces."""
    rng = random.Random(seed)
    s = new(2, seed, witch=witch, random_gold=bool(seed % 2))
    board = s.board
    s.phase, s.current, s.starting, s.step = Phase.MOVE, 0, 0, 0
    s.moved, s.earned = False, 0
    s.boots[0] = rng.randrange(len(board.towns))
    s.visited[0] = 0
    for t in range(len(board.towns)):
        if t != board.capital and rng.random() < 0.3:
            s.visited[0] |= 1 << t
    for route in board.routes:
        r = route.index
        if route.is_road:
            if rng.random() < 0.45:
                fits = [k for k in range(NUM_COUNTERS)
                        if COST_TABLE[Transport(k)][route.terrain] is not None]
                s.counters[r] = [rng.choice(fits)]
                if rng.random() < 0.15:
                    s.obstacle[r] = TREE
                elif rng.random() < 0.15:
                    s.gold_piece[r] = True
        elif rng.random() < 0.15:
            s.obstacle[r] = SEA_MONSTER
    hand = [0] * HAND_KINDS
    for _ in range(rng.randrange(3, 7)):
        hand[rng.randrange(7)] += 1
    if witch:
        hand[WITCH] = rng.randrange(0, 2)
    s.hands[0] = hand
    s.coins[0] = rng.choice([0, 1, 3, 5])
    s._legal = None
    return s


def brute(s: ElfengoldState, start_coins: int, start_markers: int, first: bool
          ) -> tuple[int, int, int]:
    """The best (new towns, 0, worth) over every sequence of the engine's legal steps (a
    magic flight only first, as the planner models it)."""
    p = s.current
    best = (s.markers(p) - start_markers, 0,
            s.earned - (start_coins - s.coins[p]) + CARD_COINS * sum(s.hands[p]))
    for a in s.legal_actions():
        if a.kind is Kind.END or (a.kind is Kind.FLY and not first):
            continue
        nxt = s.clone()
        nxt.apply_action(a)
        best = max(best, brute(nxt, start_coins, start_markers, False))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_gold_planner_equals_brute_force(seed: int) -> None:
    s = move_position(seed, witch=seed % 3 == 0)
    journey = plan_move(s, 0, max_steps=20, budget=10**7)
    assert journey.key == brute(s, s.coins[0], s.markers(0), True)
    after = s.clone()
    for a in journey.actions:
        assert a in after.legal_actions(), str(a)
        after.apply_action(a)
    assert after.markers(0) - s.markers(0) == journey.new_towns
    assert after.earned == journey.gold
    assert s.coins[0] - after.coins[0] == journey.coins_spent



@pytest.mark.parametrize("players", [2, 5])
def test_search_plays_legal_short_games(players: int) -> None:
    state = new(players, 70 + players, rounds=2, witch=True, random_gold=True)
    drive(state, ["search", "greedy", "random", "search", "greedy"][:players], 3)
    assert state.winners()


def test_levels_are_registered_for_elfengold() -> None:
    assert make_bot("greedy", "elfengold", 1).name == "greedy"
    search = make_bot("search", "elfengold", 1)
    assert search.name == "search"
    state = new(4, 9)
    while state.phase is not Phase.PLACE:
        state.apply_action(make_bot("greedy", "elfengold", 2).choose(state))
    assert isinstance(search, ElfengoldSearchBot)
    roots = search.candidates(state, state.legal_actions())
    assert roots[0] == search.greedy.pick(state, state.legal_actions())
    assert search.choose(state) in roots
    assert search.searches == (1 if len(roots) > 1 else 0)


def test_tournament_cli_runs_the_elfengold_levels(tmp_path: Path) -> None:
    out = tmp_path / "eg.json"
    code = main(["tournament", "--game", "elfengold", "--players", "2", "--bots",
                 "greedy,search", "--games", "1", "--quiet", "--search-seconds", "0.1",
                 "--out", str(out)])
    assert code in (0, None)
    data = json.loads(out.read_text())
    assert "greedy" in json.dumps(data) and "search" in json.dumps(data)
