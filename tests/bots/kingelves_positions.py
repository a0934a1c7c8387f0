"""Generated King of the Elves journey positions and the exhaustive referee for the
journey planner: every sequence of the engine's own legal actions, played on clones."""

from __future__ import annotations

import random
from typing import Any

import elfenland
from elfenland.bots.kingelves_journey import GOLD_UNIT, JOURNEY_CARDS
from elfenland.games.kingelves.actions import Kind
from elfenland.games.kingelves.cards import TOWN_KINDS, Card, obstacle_for
from elfenland.games.kingelves.rules import kingdom_size
from elfenland.games.kingelves.state import KingOfTheElvesState

VARIANTS = ({}, {"magic_spell": True}, {"weak_gold": True}, {"gold_for_all": True},
            {"magic_spell": True, "weak_gold": True, "gold_for_all": True})


def random_journey(rng: random.Random, max_cards: int = 7) -> KingOfTheElvesState:
    """A traveller about to set out (or part-way), over a random table with random
    gold, thief and obstacle cards, a small random hand and random gold."""
    n = rng.randint(2, 6)
    cap = kingdom_size(n)
    options = dict(rng.choice(VARIANTS))
    town_pool = {Card.PLAINS: 6, Card.FOREST: 5, Card.DESERT: 3, Card.MOUNTAIN: 4,
                 Card.RIVER: 6, Card.LAKE: 2}
    banners = [4] * n
    action_left = {Card.GOLD: 5, Card.THIEF: 5, Card.TREE: 5, Card.SEA_MONSTER: 5}
    kingdoms: list[list[Any]] = []
    total_towns = 0
    for k in range(n):
        towns: list[Any] = []
        for _ in range(rng.choice((0, 1, 1, 2, cap))):
            if total_towns >= 7:
                break
            terrain = rng.choice([c for c in TOWN_KINDS if town_pool[c] > 0])
            town_pool[terrain] -= 1
            total_towns += 1
            town: dict[str, Any] = {"town": Card(terrain).slug}
            for card in (Card.GOLD, Card.THIEF, obstacle_for(terrain)):
                owners = [q for q in range(n) if banners[q] > 0
                          and not (card is Card.GOLD and options.get("weak_gold") and q == k)]
                if owners and action_left[card] > 0 and rng.random() < 0.35:
                    q = rng.choice(owners)
                    banners[q] -= 1
                    action_left[card] -= 1
                    town[card.slug] = q
            towns.append(town)
        kingdoms.append(towns)
    traveller = rng.randrange(n)
    hand: dict[str, int] = {}
    for _ in range(rng.randint(1, max_cards)):
        card = rng.choice(JOURNEY_CARDS[:7] * 3 + JOURNEY_CARDS[7:])
        hand[card.slug] = hand.get(card.slug, 0) + 1
    hands: list[dict[str, int]] = [{} for _ in range(n)]
    hands[traveller] = hand
    gold = [rng.choice((0, 1, 2, 3, 4, 5, 6, 12)) for _ in range(n)]
    doc = {"format": "king-of-the-elves-position/1", "players": n, "options": options,
           "phase": "journey", "dragon": traveller, "current_player": traveller,
           "kingdoms": kingdoms, "hands": hands, "gold": gold}
    state = elfenland.load_position(doc)
    assert isinstance(state, KingOfTheElvesState)
    # Sometimes start part-way: a few random steps of the engine's own.
    for _ in range(rng.choice((0, 0, 1, 2, 3))):
        legal = [a for a in state.legal_actions() if a.kind is not Kind.STOP]
        if not legal:
            break
        state.apply_action(rng.choice(legal))
    return state


def objective(state: KingOfTheElvesState, p: int, gold0: int, values: tuple[int, ...]) -> int:
    kept = sum(v * state.hands[p][c] for v, c in zip(values, JOURNEY_CARDS, strict=True))
    return (state.gold[p] - gold0) * GOLD_UNIT + kept


def brute_best(state: KingOfTheElvesState, values: tuple[int, ...]) -> int:
    """The best objective over every sequence of legal actions up to ``stop``."""
    p = state.current
    gold0 = state.gold[p]
    memo: dict[tuple[Any, ...], int] = {}

    def rec(s: KingOfTheElvesState) -> int:
        key = (s.at, s.direction, s.turned, s.own_visited, s.escort, s.visited,
               s.bonus_paid, tuple(s.hands[p]), s.gold[p])
        if key in memo:
            return memo[key]
        best: int | None = None
        for a in s.legal_actions():
            if a.kind is Kind.STOP:
                value = objective(s, p, gold0, values)
            else:
                child = s.clone()
                child.apply_action(a)
                value = rec(child)
            if best is None or value > best:
                best = value
        assert best is not None
        memo[key] = best
        return best

    return rec(state)
