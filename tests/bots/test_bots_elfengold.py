"""The Elfengold bots: legal over whole games (2–6 players, the witch, random gold, town
cards), bids that follow the plan, and a movement planner that equals an exhaustive
search over the engine's own legal moves."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfengold_greedy import RESERVE, ElfengoldGreedyBot, PlanCache
from elfenland.bots.elfengold_planner import CARD_COINS, plan_move
from elfenland.bots.elfengold_search import (
    BID_SHARE,
    COIN_LEAD,
    LAST_SHARE,
    LEAD_CARD_COINS,
    ElfengoldSearchBot,
    look_ahead,
    standing,
)
from elfenland.cli import main
from elfenland.core.transport import COST_TABLE, Transport
from elfenland.games.elfengold.actions import Action, Kind
from elfenland.games.elfengold.fast import FastElfengoldState
from elfenland.games.elfengold.items import (
    CARD_SLUGS,
    HAND_KINDS,
    NUM_COUNTERS,
    SEA_MONSTER,
    TREE,
    WITCH,
    card_counts,
)
from elfenland.games.elfengold.position import from_position
from elfenland.games.elfengold.state import NONE, ElfengoldState, Phase

CONFIGS: list[dict[str, Any]] = [
    {}, {"witch": True}, {"random_gold": True},
    {"witch": True, "random_gold": True, "town_cards": True},
]


def new(players: int, seed: int, **options: Any) -> ElfengoldState:
    state = elfenland.new_game("elfengold", players=players, seed=seed, **options)
    assert isinstance(state, ElfengoldState)
    return state


def pure(state: ElfengoldState) -> ElfengoldState:
    """The same game on the pure engine, whose lists a test may write into to set up a
    position (a compiled state hands out copies)."""
    return state.to_pure() if isinstance(state, FastElfengoldState) else state


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
    state = pure(state)
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
    s = pure(new(2, seed, witch=witch, random_gold=bool(seed % 2)))
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
    assert make_bot("search", "elfengold", 1).name == "search"
    search = ElfengoldSearchBot(1, place_search=True)
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


# ----------------------------------------------------------------- every option, search
OPTION_SETS: list[dict[str, Any]] = [
    {"witch": True, "town_cards": True, "eg_hand_limit": 4,
     "eg_hand_limit_when": "after-draw", "caravan": "only-if-needed"},
    {"witch": True, "eg_card_draw": "three-at-once", "eg_gold_in_display": "stays-face-up",
     "eg_overbid": "capped", "eg_used_obstacles": "remove", "eg_public_gold": False,
     "eg_flight_collects_piece": False, "eg_exchange_same_kind": True,
     "eg_witch_in_caravan": False, "eg_tiebreak": "coins-cards",
     "eg_defaulter_rebids": True, "random_gold": True},
]


@pytest.mark.parametrize("config", range(len(OPTION_SETS)))
def test_search_plays_legal_games_under_every_option(config: int) -> None:
    state = new(4, 100 + config, rounds=2, **OPTION_SETS[config])
    bots = [ElfengoldSearchBot(7 + i, iterations=2, seconds=None, look=i == 2,
                               place_search=i == 0)
            if i % 2 == 0 else ElfengoldGreedyBot(7 + i) for i in range(4)]
    phases: set[str] = set()
    while not state.is_terminal():
        legal = state.legal_actions()
        action = bots[state.current_player()].choose(state)
        assert action in legal, (state.phase, str(action))
        phases.add(state.phase.value)
        state.apply_action(action)
    assert {"auction", "place", "move", "keep"} <= phases
    assert state.winners()


# ----------------------------------------------------------------- clear placements
def place_position(hands: list[dict[str, int]], items: list[dict[str, int]],
                   roads: dict[str, Any], boots: list[str]) -> ElfengoldState:
    """Player 0 to place, round 1; every card nobody holds lies face up on the discard
    pile and the supply is empty, so a resampled deal gives every rival the hand it
    really holds: the right answer does not depend on a bot's guess."""
    used = [0] * len(CARD_SLUGS)
    for h in hands:
        for slug, c in h.items():
            used[CARD_SLUGS.index(slug)] += c
    total = card_counts(False)
    discard = {CARD_SLUGS[k]: total[k] - used[k] for k in range(len(total))
               if total[k] > used[k]}
    return from_position({
        "format": "elfengold-position/1", "players": len(hands), "phase": "place",
        "round": 1, "starting_player": 0, "current_player": 0, "hands": hands,
        "supply": {}, "display": {}, "discard": discard,
        "items": [{"face_up": it} for it in items], "roads": roads, "boots": boots,
        "towns": [[] for _ in hands]})


def cheapest_counter(s: ElfengoldState, route_id: str) -> int:
    route = next(r for r in s.board.routes if r.id == route_id)
    costs = [(c, k) for k in range(NUM_COUNTERS)
             if (c := COST_TABLE[Transport(k)][route.terrain]) is not None]
    return min(costs)[1]


def gold_position() -> ElfengoldState:
    """Player 0 in Elvenhold with counters on Elvenhold–Ergeren and Ergeren–Tichih and
    the cards to go there and back: gold is paid at every arrival, so its best move
    crosses Ergeren–Tichih three times and the gold piece earns most there (3 + 5 + 3),
    not on the road into the richest town (Ergeren, 5)."""
    probe = new(2, 1)
    k10, k11 = cheapest_counter(probe, "r10"), cheapest_counter(probe, "r11")
    hand: dict[str, int] = {}
    for k in (k10, k11):
        hand[Transport(k).slug] = hand.get(Transport(k).slug, 0) + 2
    return place_position([hand, {}], [{"gold-piece": 1}, {}],
                          {"r10": {"counters": [Transport(k10).slug]},
                           "r11": {"counters": [Transport(k11).slug]}},
                          ["elvenhold", "beata"])


def test_gold_piece_goes_where_the_bots_own_move_earns_most_from_it() -> None:
    s = gold_position()
    golds = [a for a in s.legal_actions() if a.kind is Kind.GOLD]
    earned = {}
    for a in golds:
        after = s.clone()
        after.apply_action(a)
        earned[str(a)] = plan_move(after, 0).gold
    best = max(earned, key=lambda k: earned[k])
    assert best == "gold tichih-ergeren" and earned[best] > earned["gold elvenhold-ergeren"]
    assert str(ElfengoldGreedyBot(1).choose(s)) == best
    assert str(ElfengoldSearchBot(1, iterations=4, seconds=None, place_search=True)
               .choose(s)) == best


def test_sea_monster_goes_on_the_rivals_planned_lake_crossing() -> None:
    """Player 1 stands in Strykhaven with two rafts and no counter on the board: its one
    new town is Virst over the ferry link; a sea monster there (3 rafts) stops it."""
    s = place_position([{}, {"raft": 2}], [{"sea-monster": 1}, {}], {},
                       ["elvenhold", "strykhaven"])
    rival = plan_move(s, 1)
    assert rival.new_towns == 1
    crossing = s.board.routes[rival.actions[0].route].id
    assert crossing == "r45"  # strykhaven-virst, a lake link
    for bot in (ElfengoldGreedyBot(1),
                ElfengoldSearchBot(1, iterations=4, seconds=None, place_search=True)):
        action = bot.choose(s)
        assert isinstance(action, Action)
        assert action.kind is Kind.MONSTER and action.route == rival.actions[0].route
        after = s.clone()
        after.apply_action(action)
        assert plan_move(after, 1).new_towns == 0


# ----------------------------------------------------------------- budgets
def placing_state(seed: int) -> ElfengoldState:
    state = new(4, seed)
    bot = ElfengoldGreedyBot(2)
    while state.phase is not Phase.PLACE or len(state.legal_actions()) < 3:
        state.apply_action(bot.choose(state))
    return state


def test_planner_deadline_is_checked_inside_the_search() -> None:
    s = move_position(3, witch=True)
    assert plan_move(s, 0).actions  # a move exists
    past = time.perf_counter() - 1.0
    cut = plan_move(s, 0, deadline=past)
    # The clock is read at the first state: no length was searched in full.
    assert cut.actions == () and cut.new_towns == 0


def test_search_time_budget_holds_inside_an_iteration() -> None:
    """A budget of 0 s allows no iteration at all: the deadline is checked between the
    candidates and inside every plan, so no deal is half counted and the greedy choice
    is played."""
    s = placing_state(4)
    bot = ElfengoldSearchBot(5, iterations=1000, seconds=0.0, place_search=True)
    legal = s.legal_actions()
    action = bot.choose(s)
    assert action in legal
    assert bot.searches <= 1 and bot.iterations_done == 0


def test_search_iteration_budget_does_not_depend_on_the_clock() -> None:
    s = placing_state(6)
    a = ElfengoldSearchBot(11, iterations=3, seconds=None, place_search=True)
    b = ElfengoldSearchBot(11, iterations=3, seconds=None, place_search=True)
    assert a.choose(s.clone()) == b.choose(s.clone())
    assert a.iterations_done == b.iterations_done == 3 * a.searches


@pytest.mark.parametrize("seed", range(12))
def test_look_ahead_move_collects_as_many_towns_and_stands_better(seed: int) -> None:
    s = move_position(seed, witch=seed % 3 == 0)
    plain = plan_move(s, 0)
    ahead = look_ahead(s, 0, PlanCache())
    assert ahead.key[:2] == plain.key[:2]
    assert standing(s, 0, ahead) >= standing(s, 0, plain)
    after = s.clone()
    for a in ahead.actions:
        assert a in after.legal_actions(), str(a)
        after.apply_action(a)
    assert after.markers(0) - s.markers(0) == ahead.new_towns


# ----------------------------------------------------------------- the search bot's play
def test_search_bids_within_its_share_of_its_own_worth() -> None:
    """The search bot bids up to ``BID_SHARE`` of what an item adds to its own move (no
    denial), ``LAST_SHARE`` in the last round (whose coins only break ties), and never
    past its coins less the reserve; where the greedy bot (which adds half a rival's
    gain) would raise, it passes at times: the coins kept break ties.  In the last round
    it bids past ``BID_SHARE`` at times: the coins are turned into towns."""
    bids = passes_where_greedy_raises = last_round_raises = 0
    for seed in (3, 4, 5, 6):
        state = new(4, seed, rounds=2)
        me = ElfengoldSearchBot(seed, iterations=1, seconds=None)
        bots: list[ElfengoldGreedyBot | ElfengoldSearchBot] = [me] + [
            ElfengoldGreedyBot(seed + i) for i in range(1, 4)]
        while not state.is_terminal():
            p = state.current_player()
            if p == 0 and state.phase is Phase.AUCTION:
                greedy_pick = ElfengoldGreedyBot(99).pick(state, state.legal_actions())
                action = me.choose(state)
                assert isinstance(action, Action)
                own = me.greedy.worth(state, 0, state.row[0], denial=False)
                last = state.round >= state.rules.rounds
                if action.kind is Kind.BID:
                    bids += 1
                    assert action.amount <= int((LAST_SHARE if last else BID_SHARE) * own)
                    assert action.amount <= state.coins[0] - RESERVE
                    last_round_raises += last and action.amount > int(BID_SHARE * own)
                elif greedy_pick.kind is Kind.BID:
                    passes_where_greedy_raises += 1
            else:
                action = bots[p].choose(state)
            state.apply_action(action)
    assert bids and passes_where_greedy_raises and last_round_raises


def test_search_moves_for_gold_in_the_last_round() -> None:
    """In the last round cards score nothing: the move the search bot makes collects as
    many towns as the planner's and earns at least as much gold, and on some boards more
    (the planner alone keeps cards worth ``CARD_COINS`` each instead)."""
    more = 0
    for seed in range(16):
        s = move_position(seed, witch=seed % 3 == 0)
        s.round = s.rules.rounds
        plain = plan_move(s, 0)
        last = plan_move(s, 0, card_coins=0)
        assert last.new_towns == plain.new_towns
        net = last.gold - last.coins_spent
        assert net >= plain.gold - plain.coins_spent
        more += net > plain.gold - plain.coins_spent
        assert ElfengoldSearchBot(1, iterations=1, seconds=None).choose(s) == last.first
    assert more


def test_search_is_deterministic_for_a_seed() -> None:
    logs = []
    for _ in range(2):
        state = new(3, 12, rounds=2)
        bots: list[ElfengoldGreedyBot | ElfengoldSearchBot] = [
            ElfengoldSearchBot(4, iterations=2, seconds=None, place_search=True),
            ElfengoldGreedyBot(5), ElfengoldSearchBot(6, iterations=2, seconds=None)]
        log = []
        while not state.is_terminal():
            action = bots[state.current_player()].choose(state)
            log.append(str(action))
            state.apply_action(action)
        logs.append(log)
    assert logs[0] == logs[1]


def drawing_state(seed: int) -> ElfengoldState:
    """A four-player game at its first card draw, three gold cards on the gold deck."""
    state = new(4, seed)
    bot = make_bot("greedy", "elfengold", seed)
    while state.phase is not Phase.DRAW_CARDS:
        state.apply_action(bot.choose(state))
    state = pure(state)
    state.gold_deck = 3
    state._legal = None
    return state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_leaves_the_gold_deck_when_it_leads_in_coins(seed: int) -> None:
    """The greedy bot takes a gold deck of 3 cards (9 coins); the search bot does too
    while its coins lead the richest rival's by less than ``COIN_LEAD``, and draws a
    travel card instead when they lead by that much or more (the coins would widen a
    lead that already wins the ties, a card may add a town)."""
    state = drawing_state(seed)
    me = state.current
    take = next(a for a in state.legal_actions() if a.kind is Kind.TAKE_GOLD)
    assert ElfengoldGreedyBot(seed).choose(state) == take
    for lead, takes in ((COIN_LEAD - 1, True), (COIN_LEAD, False), (30, False)):
        s = state.clone()
        s.coins = [10] * 4
        s.coins[me] = 10 + lead
        s._legal = None
        action = ElfengoldSearchBot(seed, iterations=1, seconds=None).choose(s)
        assert isinstance(action, Action) and action in s.legal_actions()
        assert (action == take) is takes
        if not takes:
            assert action.kind in (Kind.DRAW, Kind.DRAW_BLIND)


def settling_state(seed: int) -> ElfengoldState:
    """A four-player game (pure engine) at the first choice of coins or two cards
    where the greedy bot takes the coins (the move earned enough)."""
    state = new(4, seed)
    bots = [make_bot("greedy", "elfengold", seed + q) for q in range(4)]
    while True:
        if state.phase is Phase.SETTLE and len(state.legal_actions()) > 1:
            got = ElfengoldGreedyBot(seed).choose(state)
            assert isinstance(got, Action)
            if got.kind is Kind.COLLECT:
                return pure(state)
        state.apply_action(bots[state.current_player()].choose(state))


@pytest.mark.parametrize("seed", [1, 2])
def test_search_takes_two_cards_after_a_move_when_it_leads_in_coins(seed: int) -> None:
    """Where the greedy bot takes the coins a move earned, the search bot takes two
    cards instead while its coins lead the richest rival's by ``COIN_LEAD`` or more
    (before the last round); a coin behind, or in the last round (cards are worth
    nothing at the end), it takes the coins as the greedy bot does."""
    state = settling_state(seed)
    me = state.current
    assert state.round < state.rules.rounds
    legal = state.legal_actions()
    collect = next(a for a in legal if a.kind is Kind.COLLECT)
    cards = next(a for a in legal if a.kind is Kind.CARDS)
    for lead, last, want in ((COIN_LEAD, False, cards), (30, False, cards),
                             (COIN_LEAD - 1, False, collect), (30, True, collect)):
        s = state.clone()
        s.coins = [10] * 4
        s.coins[me] = 10 + lead
        if last:
            s.round = s.rules.rounds
        s._legal = None
        assert ElfengoldGreedyBot(seed).choose(s) == collect
        assert ElfengoldSearchBot(seed, iterations=1, seconds=None).choose(s) == want


def test_search_keeps_cards_on_its_move_when_it_leads_in_coins() -> None:
    """Before the last round, while its coins lead the richest rival's by ``COIN_LEAD``
    or more, the search bot moves as the planner with cards worth ``LEAD_CARD_COINS``:
    as many towns as the planner's own move, never fewer cards kept, more on some
    boards; a coin behind, it makes the planner's own move."""
    differs = 0
    for seed in range(24):
        s = move_position(seed, witch=seed % 3 == 0)
        for lead in (COIN_LEAD, COIN_LEAD - 1):
            s.coins = [5 + lead, 5]  # the witch's flight depends on the coins
            s._legal = None
            plain = plan_move(s, 0)
            keep = plan_move(s, 0, card_coins=LEAD_CARD_COINS)
            assert keep.new_towns == plain.new_towns
            assert keep.cards_left >= plain.cards_left
            want = keep.first if lead >= COIN_LEAD else plain.first
            assert ElfengoldSearchBot(1, iterations=1, seconds=None).choose(s) == want
            differs += lead >= COIN_LEAD and keep.first != plain.first
    assert differs
