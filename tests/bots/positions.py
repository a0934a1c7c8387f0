"""Random move-phase positions for the planner tests, built with ``load_position``."""

from __future__ import annotations

import random

import elfenland
from elfenland.core.transport import COST_TABLE, Transport
from elfenland.games.elfenland import load_board
from elfenland.games.elfenland.state import ElfenlandState

RULE_CHOICES = ({"rules": "amigo"}, {"rules": "moon"}, {"rules": "amigo", "destination": True})
KINDS = [t.slug for t in Transport]


def random_move_position(rng: random.Random, max_cards: int = 8,
                         counter_chance: float = 0.5, min_cards: int = 1,
                         rules: dict[str, object] | None = None) -> ElfenlandState:
    board = load_board()
    n = rng.randint(2, 6)
    me = rng.randrange(n)
    deck = [k for k in range(7) for _ in range((10, 10, 10, 10, 10, 10, 12)[k])]
    hand = {KINDS[k]: 0 for k in range(7)}
    for k in rng.sample(deck, rng.randint(min_cards, max_cards)):
        hand[KINDS[k]] += 1
    hands: list[dict[str, int]] = [{} for _ in range(n)]
    hands[me] = hand
    roads: dict[str, dict[str, object]] = {}
    used = [0] * 6
    for r in board.roads:
        if rng.random() < counter_chance:
            terrain = board.routes[r].terrain
            kinds = [k for k in range(6) if COST_TABLE[Transport(k)][terrain] is not None
                     and used[k] < 8]
            if kinds:
                k = rng.choice(kinds)
                used[k] += 1
                route = board.routes[r]
                roads[f"{board.towns[route.a].id}-{board.towns[route.b].id}"] = {
                    "counter": KINDS[k]}
    names = list(roads)
    for p in range(n):
        if names and rng.random() < 0.35:
            name = rng.choice(names)
            if "obstacle" not in roads[name]:
                roads[name]["obstacle"] = p
    towns = [t.id for t in board.towns]
    doc: dict[str, object] = dict(rng.choice(RULE_CHOICES) if rules is None else rules)
    doc.update(
        players=n, phase="move", current_player=me, starting_player=me, hands=hands,
        roads=roads, boots=[rng.choice(towns) for _ in range(n)],
        towns=[[t for t in towns[1:] if rng.random() < 0.3] for _ in range(n)],
    )
    if doc["rules"] == "moon" or doc.get("destination"):
        cards = rng.sample([board.towns[t].id for t in board.town_cards], n)
        doc["town_cards"] = cards
    state = elfenland.load_position(doc)
    assert isinstance(state, ElfenlandState)
    return state
