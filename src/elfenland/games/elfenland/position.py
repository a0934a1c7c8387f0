"""The position format: one JSON document that can describe any Elfenland position.

It is to this engine what FEN is to chess: tests and tools write the situation they
want ("a dragon and an obstacle on Feodor–Lapphalya, this hand, boot in Feodor") and
load it with one call.  Everything but ``players`` is optional; what is left out takes
its natural default, and every card and counter not placed anywhere lies in its pile.
See ``docs/position-format.md``.
"""

from __future__ import annotations

import json
from typing import Any

from ...core.errors import PositionError
from ...core.game import TERMINAL, JSONDict, check_player
from ...core.rng import Rng, as_rng
from ...core.saving import build_position, parse_counts, parse_winners, per_player
from ...core.transport import COST_TABLE, Transport
from .actions import route_text
from .invariants import check_state
from .rules import Rules, make_rules
from .state import (
    CARDS_PER_KIND,
    COUNTERS_PER_KIND,
    NO_PIECE,
    ElfenlandState,
    Phase,
)

FORMAT = "elfenland-position/1"


def _slug_counts(counts: list[int]) -> dict[str, int]:
    return {Transport(k).slug: n for k, n in enumerate(counts) if n}


def _slug_list(counts: list[int]) -> list[str]:
    return [Transport(k).slug for k, n in enumerate(counts) for _ in range(n)]


def to_position(s: ElfenlandState) -> JSONDict:
    board = s.board
    roads: JSONDict = {}
    for r in range(len(board.routes)):
        entry: JSONDict = {}
        if s.route_counter[r] != NO_PIECE:
            entry["counter"] = Transport(s.route_counter[r]).slug
        if s.route_obstacle[r] != NO_PIECE:
            entry["obstacle"] = s.route_obstacle[r]
        if entry:
            roads[route_text(board, r)] = entry
    doc: JSONDict = {
        "format": FORMAT,
        "players": s.n,
        "rules": s.rules.to_json(),
        "round": s.round,
        "phase": s.phase.value,
        "starting_player": s.starting,
        "current_player": s.current_player(),
        "step": s.step,
        "passes": s.passes,
        "discarding": s.discarding,
        "hands": [_slug_counts(h) for h in s.hands],
        "card_pile": _slug_counts(s.card_pile),
        "face_up": _slug_list(s.face_up),
        "counter_pile": _slug_counts(s.counter_pile),
        "counters": [
            {"face_up": _slug_list(s.counters_up[p]), "secret": _slug_list(s.counters_secret[p]),
             "kept_face_up": _slug_list(s.kept_up[p]), "kept_secret": _slug_list(s.kept_secret[p])}
            for p in range(s.n)
        ],
        "roads": roads,
        "obstacles_left": s.obstacle_in_hand[:],
        "boots": [board.towns[t].id for t in s.boots],
        "towns": [[t.id for t in board.towns if s.visited[p] >> t.index & 1] for p in range(s.n)],
        "town_cards": [board.towns[t].id if t != NO_PIECE else None for t in s.town_cards],
        "rng": s.rng.to_json(),
    }
    if s.result is not None:
        doc["winners"] = s.result[:]
        doc["special_victory"] = s.special_victory
    return doc


def _counts(value: Any, kinds: int, what: str) -> list[int]:
    """Travel cards (7 kinds) or transportation counters (6: no raft counter)."""
    def kind(name: str) -> int:
        try:
            k = int(Transport.from_slug(name))
        except ValueError:
            raise ValueError(f"unknown kind {name!r}") from None
        if k >= kinds:
            raise ValueError(f"there are no {name} counters")
        return k

    return parse_counts(value, kinds, what, kind)


def from_position(doc: JSONDict) -> ElfenlandState:
    """Build a state from a position document (raises ``PositionError``)."""
    return build_position(doc, FORMAT, _build)


def _build(doc: JSONDict) -> ElfenlandState:
    n = doc.get("players")
    if not isinstance(n, int) or not 2 <= n <= 6:
        raise PositionError("players must be 2 to 6")
    rules_doc = doc.get("rules", "amigo")
    rules = (Rules.from_json(rules_doc) if isinstance(rules_doc, dict)
             else make_rules(rules_doc, bool(doc.get("destination", False))))
    s = ElfenlandState.__new__(ElfenlandState)
    s.rules = rules
    from .board import load_board

    s.board = board = load_board()
    seed = doc.get("seed", 0)
    s.seed = seed if isinstance(seed, int) else 0
    s.rng = Rng.from_json(doc["rng"]) if "rng" in doc else Rng(s.seed)
    s._init_empty(n)
    s.origin = json.loads(json.dumps(doc))
    s.round = _int(doc, "round", 1, 1, rules.rounds)
    try:
        s.phase = Phase(doc.get("phase", "move"))
    except ValueError:
        raise PositionError(f"unknown phase {doc.get('phase')!r}") from None
    s.starting = _int(doc, "starting_player", (s.round - 1) % n, 0, n - 1)
    if s.phase is Phase.OVER:
        s.current = TERMINAL
    else:
        s.current = _int(doc, "current_player", s.starting, 0, n - 1)
    s.step = _int(doc, "step", (s.current - s.starting) % n if s.current >= 0 else 0, 0, 10_000)
    s.passes = _int(doc, "passes", 0, 0, n - 1)
    s.discarding = bool(doc.get("discarding", False))

    s.hands = [_counts(h, 7, f"hands[{p}]") for p, h in
               enumerate(per_player(doc, "hands", n, None))]
    s.face_up = _counts(doc.get("face_up"), 6, "face_up")
    counters = per_player(doc, "counters", n, {})
    for p, c in enumerate(counters):
        if not isinstance(c, dict):
            raise PositionError(f"counters[{p}] must be an object")
        s.counters_up[p] = _counts(c.get("face_up"), 6, f"counters[{p}].face_up")
        s.counters_secret[p] = _counts(c.get("secret"), 6, f"counters[{p}].secret")
        s.kept_up[p] = _counts(c.get("kept_face_up"), 6, f"counters[{p}].kept_face_up")
        s.kept_secret[p] = _counts(c.get("kept_secret"), 6, f"counters[{p}].kept_secret")

    roads = doc.get("roads", {})
    if not isinstance(roads, dict):
        raise PositionError("roads must be an object")
    from .actions import _parse_route

    placed_obstacles: set[int] = set()
    for name, entry in roads.items():
        try:
            r, _ = _parse_route(board, name, road_only=True)
        except ValueError:
            raise PositionError(f"roads: no road {name!r}") from None
        if not isinstance(entry, dict):
            raise PositionError(f"roads[{name!r}] must be an object")
        if "counter" in entry:
            kind = _counts([entry["counter"]], 6, f"roads[{name!r}]").index(1)
            if COST_TABLE[Transport(kind)][board.routes[r].terrain] is None:
                raise PositionError(
                    f"a {Transport(kind).slug} counter cannot lie on the "
                    f"{board.routes[r].terrain.slug} road {name}")
            s.route_counter[r] = kind
        if "obstacle" in entry:
            owner = entry["obstacle"]
            if not isinstance(owner, int) or not 0 <= owner < n:
                raise PositionError(f"roads[{name!r}].obstacle must be a player number")
            if s.route_counter[r] == NO_PIECE:
                raise PositionError(f"the obstacle on {name} has no counter beside it")
            if owner in placed_obstacles:
                raise PositionError(f"player {owner} has two obstacles on the board")
            placed_obstacles.add(owner)
            s.route_obstacle[r] = owner
    left = doc.get("obstacles_left")
    if left is None:
        s.obstacle_in_hand = [p not in placed_obstacles for p in range(n)]
    else:
        left = per_player(doc, "obstacles_left", n, True)
        s.obstacle_in_hand = [bool(x) for x in left]
        for p in placed_obstacles:
            if s.obstacle_in_hand[p]:
                raise PositionError(f"player {p}'s obstacle is both on the board and in hand")

    s.boots = [board.town(t) for t in per_player(doc, "boots", n, board.capital)]
    for p, towns in enumerate(per_player(doc, "towns", n, [])):
        if not isinstance(towns, list):
            raise PositionError(f"towns[{p}] must be a list")
        for t in towns:
            i = board.town(t)
            if i == board.capital:
                raise PositionError("Elvenhold has no town pieces to collect")
            s.visited[p] |= 1 << i
    cards = per_player(doc, "town_cards", n, None)
    s.town_cards = [NO_PIECE if c is None else board.town(c) for c in cards]
    if any(c != NO_PIECE for c in s.town_cards) and not rules.town_cards:
        raise PositionError("town cards are dealt only with rules that use them")
    if rules.town_cards and NO_PIECE in s.town_cards:
        raise PositionError("these rules give every player a town card")
    dealt = [c for c in s.town_cards if c != NO_PIECE]
    if len(set(dealt)) != len(dealt) or any(c not in board.town_cards for c in dealt):
        raise PositionError("town cards must be distinct cards of the 12")

    _fill_piles(s, doc)
    if "winners" in doc:
        s.result = parse_winners(doc["winners"], s.n)
        s.special_victory = bool(doc.get("special_victory", False))
    elif s.phase is Phase.OVER:
        s._finish(None)
    if s.phase is not Phase.OVER and s.phase is not Phase.MOVE and s.discarding:
        raise PositionError("discarding happens only in the move phase")
    check_state(s)
    return s


def _fill_piles(s: ElfenlandState, doc: JSONDict) -> None:
    in_hands = [sum(h[k] for h in s.hands) for k in range(7)]
    if "card_pile" in doc:
        s.card_pile = _counts(doc["card_pile"], 7, "card_pile")
    else:
        s.card_pile = [CARDS_PER_KIND[k] - in_hands[k] for k in range(7)]
    for k in range(7):
        if in_hands[k] + s.card_pile[k] != CARDS_PER_KIND[k]:
            raise PositionError(
                f"{Transport(k).slug} travel cards: {in_hands[k]} in hands and "
                f"{s.card_pile[k]} in the pile, but the game has {CARDS_PER_KIND[k]}")
    used = [
        s.face_up[k] + sum(s.counters_up[p][k] + s.counters_secret[p][k] + s.kept_up[p][k]
                           + s.kept_secret[p][k] for p in range(s.n))
        + sum(1 for c in s.route_counter if c == k)
        for k in range(6)
    ]
    if "counter_pile" in doc:
        s.counter_pile = _counts(doc["counter_pile"], 6, "counter_pile")
    else:
        s.counter_pile = [COUNTERS_PER_KIND - used[k] for k in range(6)]
    for k in range(6):
        if used[k] + s.counter_pile[k] != COUNTERS_PER_KIND:
            raise PositionError(
                f"{Transport(k).slug} counters: {used[k]} in play and {s.counter_pile[k]} in "
                f"the pile, but the game has {COUNTERS_PER_KIND}")


def _int(doc: JSONDict, key: str, default: int, lo: int, hi: int) -> int:
    value = doc.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise PositionError(f"{key} must be an integer from {lo} to {hi}, not {value!r}")
    return value


def resample(s: ElfenlandState, player: int, rng: Rng) -> ElfenlandState:
    """A state ``player`` cannot tell from ``s``: the cards in other hands and the pile,
    the other players' secret counters and the face-down pile, and the other players'
    town cards are dealt again at random from what ``player`` has not seen."""
    player = check_player(player, s.n)
    rng = as_rng(rng)
    new = s.clone()
    others = [p for p in range(s.n) if p != player]
    card_pool = s.card_pile[:]
    counter_pool = s.counter_pile[:]
    for p in others:
        for k in range(7):
            card_pool[k] += s.hands[p][k]
        for k in range(6):
            counter_pool[k] += s.counters_secret[p][k] + s.kept_secret[p][k]
    for p in others:
        size = sum(s.hands[p])
        hand = [0] * 7
        for _ in range(size):
            hand[rng.draw_from_counts(card_pool)] += 1
        new.hands[p] = hand
        for secret_list, source in ((new.counters_secret, s.counters_secret),
                                    (new.kept_secret, s.kept_secret)):
            fresh = [0] * 6
            for _ in range(sum(source[p])):
                fresh[rng.draw_from_counts(counter_pool)] += 1
            secret_list[p] = fresh
    new.card_pile = card_pool
    new.counter_pile = counter_pool
    if s.rules.town_cards and not s.is_terminal():
        pool = [c for c in s.board.town_cards if c != s.town_cards[player]]
        rng.shuffle(pool)
        for i, p in enumerate(others):
            new.town_cards[p] = pool[i]
    new.rng = Rng(rng.randrange(2**63))
    new._chain = None
    new._length = 0
    new.origin = None
    new.origin = to_position(new)
    new._legal = None
    return new
