"""The Elfengold position document: one JSON object for any position, hidden parts
included, so that tests and tools can set up the situation they want in one call.

Everything but ``players`` is optional.  What is left out takes its natural default:
every item not placed anywhere lies in the face-down pile, every card not placed anywhere
in the face-down supply, and coins default to the 12 each of a new game.  The loader
checks the invariants (``invariants.check_state``) and refuses an impossible position
with a ``PositionError``.
"""

from __future__ import annotations

import json
from typing import Any

from ...core.errors import PositionError
from ...core.game import TERMINAL, JSONDict, check_player
from ...core.rng import Rng, as_rng
from ...core.saving import build_position, parse_counts, per_player
from ..elfenland.board import load_board
from .actions import parse_route
from .invariants import check_state
from .items import (
    CARD_SLUGS,
    DOUBLE,
    FIXED_GOLD,
    GOLD_CARD,
    GOLD_PIECE,
    HAND_KINDS,
    ITEM_COUNTS,
    ITEM_SLUGS,
    NUM_COUNTERS,
    NUM_ITEMS,
    SEA_MONSTER,
    START_COINS,
    TREE,
    card_counts,
)
from .options import Rules, make_rules
from .state import NONE, ElfengoldState, Phase

FORMAT = "elfengold-position/1"
_OBSTACLES = {"tree": TREE, "sea-monster": SEA_MONSTER}


def _cards(counts: list[int]) -> dict[str, int]:
    return {CARD_SLUGS[k]: n for k, n in enumerate(counts) if n}


def _items(counts: list[int]) -> dict[str, int]:
    return {ITEM_SLUGS[k]: n for k, n in enumerate(counts) if n}


def to_position(s: ElfengoldState) -> JSONDict:
    board = s.board
    roads: JSONDict = {}
    for r, route in enumerate(board.routes):
        entry: JSONDict = {}
        if s.counters[r]:
            entry["counters"] = [ITEM_SLUGS[k] for k in s.counters[r]]
        if s.double[r]:
            entry["double"] = True
        if s.obstacle[r] != NONE:
            entry["obstacle"] = ITEM_SLUGS[s.obstacle[r]]
        if s.gold_piece[r]:
            entry["gold_piece"] = True
        if entry:
            roads[route.id] = entry
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
        "gold_values": {t.id: s.gold_values[t.index] for t in board.towns
                        if t.index != board.capital},
        "hands": [_cards(h) for h in s.hands],
        "supply": _cards(s.supply),
        "display": _cards(s.display),
        "discard": _cards(s.discard),
        "gold_deck": s.gold_deck,
        "item_pile": _items(s.item_pile),
        "removed": _items(s.removed),
        "items": [{"face_up": _items(s.items_up[p]), "face_down": _items(s.items_down[p]),
                   "kept_face_up": _items(s.kept_up[p]),
                   "kept_face_down": _items(s.kept_down[p])} for p in range(s.n)],
        "drawn": [ITEM_SLUGS[k] for k in s.drawn],
        "auction": {"row": [ITEM_SLUGS[k] for k in s.row], "high_bid": s.high_bid,
                    "high_bidder": s.high_bidder, "passed": s.passed,
                    "excluded": s.excluded},
        "roads": roads,
        "coins": s.coins[:],
        "bank": {"paid_out": s.paid_out, "paid_in": s.paid_in},
        "boots": [board.towns[t].id for t in s.boots],
        "towns": [[t.id for t in board.towns if s.visited[p] >> t.index & 1]
                  for p in range(s.n)],
        "town_cards": [board.towns[t].id if t != NONE else None for t in s.town_cards],
        "move": {"moved": s.moved, "earned": s.earned, "draws_left": s.draws_left,
                 "after_discard": s.after_discard},
        "rng": s.rng.to_json(),
    }
    if s.result is not None:
        doc["winners"] = s.result[:]
    return doc


def _card_counts(value: Any, what: str, kinds: int = HAND_KINDS + 1) -> list[int]:
    def kind(name: str) -> int:
        if name not in CARD_SLUGS[:kinds]:
            raise ValueError(f"unknown card {name!r}")
        return CARD_SLUGS.index(name)

    return parse_counts(value, HAND_KINDS + 1, what, kind)[:kinds] + \
        [0] * (HAND_KINDS + 1 - kinds)


def _item_counts(value: Any, what: str) -> list[int]:
    def kind(name: str) -> int:
        if name not in ITEM_SLUGS:
            raise ValueError(f"unknown item {name!r}")
        return ITEM_SLUGS.index(name)

    return parse_counts(value, NUM_ITEMS, what, kind)


def from_position(doc: JSONDict) -> ElfengoldState:
    """Build a state from a position document (raises ``PositionError``)."""
    return build_position(doc, FORMAT, _build)


def _int(doc: JSONDict, key: str, default: int, lo: int, hi: int) -> int:
    value = doc.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise PositionError(f"{key} must be an integer from {lo} to {hi}, not {value!r}")
    return value


def _build(doc: JSONDict) -> ElfengoldState:
    n = doc.get("players")
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 6:
        raise PositionError("players must be 2 to 6")
    rules_doc = doc.get("rules", "elfengold")
    rules = (Rules.from_json(rules_doc) if isinstance(rules_doc, dict)
             else make_rules(str(rules_doc), bool(doc.get("destination", False))))
    s = ElfengoldState.__new__(ElfengoldState)
    s.rules = rules
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
    default_step = (s.current - s.starting) % n if s.current >= 0 else 0
    s.step = _int(doc, "step", default_step, 0, 3 * n)
    s.passes = _int(doc, "passes", 0, 0, n - 1)

    values = doc.get("gold_values")
    if values is not None:
        if not isinstance(values, dict):
            raise PositionError("gold_values must map towns to values")
        s.gold_values = [0] * len(board.towns)
        for name, v in values.items():
            t = board.town(name)
            if t == board.capital or not isinstance(v, int) or isinstance(v, bool):
                raise PositionError(f"gold_values: bad entry {name!r}: {v!r}")
            s.gold_values[t] = v
        if sorted(v for t, v in enumerate(s.gold_values) if t != board.capital) \
                != sorted(FIXED_GOLD.values()):
            raise PositionError("gold_values must place the 20 gold value tokens, one a town")

    s.hands = [_card_counts(h, f"hands[{p}]", HAND_KINDS)[:HAND_KINDS]
               for p, h in enumerate(per_player(doc, "hands", n, None))]
    s.display = _card_counts(doc.get("display"), "display")
    s.discard = _card_counts(doc.get("discard"), "discard")
    s.gold_deck = _int(doc, "gold_deck", 0, 0, 7)
    for p, entry in enumerate(per_player(doc, "items", n, {})):
        if not isinstance(entry, dict):
            raise PositionError(f"items[{p}] must be an object")
        s.items_up[p] = _item_counts(entry.get("face_up"), f"items[{p}].face_up")
        s.items_down[p] = _item_counts(entry.get("face_down"), f"items[{p}].face_down")
        s.kept_up[p] = _item_counts(entry.get("kept_face_up"), f"items[{p}].kept_face_up")
        s.kept_down[p] = _item_counts(entry.get("kept_face_down"),
                                      f"items[{p}].kept_face_down")
    s.removed = _item_counts(doc.get("removed"), "removed")
    drawn = doc.get("drawn", [])
    if not isinstance(drawn, list):
        raise PositionError("drawn must be a list of items")
    s.drawn = [ITEM_SLUGS.index(x) if x in ITEM_SLUGS else _bad("drawn", x) for x in drawn]
    auction = doc.get("auction", {})
    if not isinstance(auction, dict):
        raise PositionError("auction must be an object")
    row = auction.get("row", [])
    if not isinstance(row, list):
        raise PositionError("auction.row must be a list of items")
    s.row = [ITEM_SLUGS.index(x) if x in ITEM_SLUGS else _bad("auction.row", x) for x in row]
    s.high_bid = _int(auction, "high_bid", 0, 0, 10**9)
    s.high_bidder = _int(auction, "high_bidder", NONE, NONE, n - 1)
    s.passed = _int(auction, "passed", 0, 0, (1 << n) - 1)
    s.excluded = _int(auction, "excluded", 0, 0, (1 << n) - 1)

    roads = doc.get("roads", {})
    if not isinstance(roads, dict):
        raise PositionError("roads must be an object")
    for name, entry in roads.items():
        r, _ = parse_route(board, name, "any")
        if not isinstance(entry, dict):
            raise PositionError(f"roads[{name!r}] must be an object")
        kinds = _item_counts(entry.get("counters", []), f"roads[{name!r}].counters")
        if any(kinds[NUM_COUNTERS:]):
            raise PositionError(f"roads[{name!r}].counters: only transport counters")
        s.counters[r] = [k for k in range(NUM_COUNTERS) for _ in range(kinds[k])]
        s.double[r] = entry.get("double", False) is True
        obstacle = entry.get("obstacle")
        if obstacle is not None:
            if obstacle not in _OBSTACLES:
                raise PositionError(f"roads[{name!r}].obstacle: tree or sea-monster")
            s.obstacle[r] = _OBSTACLES[obstacle]
        s.gold_piece[r] = entry.get("gold_piece", False) is True

    coins = per_player(doc, "coins", n, START_COINS)
    if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in coins):
        raise PositionError("coins must be whole numbers of at least 0")
    s.coins = list(coins)
    bank = doc.get("bank", {})
    if not isinstance(bank, dict):
        raise PositionError("bank must be an object")
    s.paid_in = _int(bank, "paid_in", 0, 0, 10**12)
    s.paid_out = _int(bank, "paid_out", sum(s.coins) + s.paid_in, 0, 10**12)
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
    s.town_cards = [NONE if c is None else board.town(c) for c in cards]
    if rules.town_cards != all(c != NONE for c in s.town_cards) or (
            not rules.town_cards and any(c != NONE for c in s.town_cards)):
        raise PositionError("town cards: one each with the town-card variant, else none")
    dealt = [c for c in s.town_cards if c != NONE]
    if len(set(dealt)) != len(dealt) or any(c not in board.town_cards for c in dealt):
        raise PositionError("town cards must be distinct cards of the 12")
    move = doc.get("move", {})
    if not isinstance(move, dict):
        raise PositionError("move must be an object")
    s.moved = move.get("moved", False) is True
    s.earned = _int(move, "earned", 0, 0, 10**9)
    s.draws_left = _int(move, "draws_left", 0, 0, 2)
    s.after_discard = str(move.get("after_discard", "next"))
    if s.after_discard not in ("next", "settle"):
        raise PositionError("move.after_discard is 'next' or 'settle'")

    _fill_piles(s, doc)
    if "winners" in doc:
        s.result = [int(p) for p in doc["winners"]]
    elif s.phase is Phase.OVER:
        s._finish()
    check_state(s)
    return s


def _bad(what: str, value: object) -> int:
    raise PositionError(f"{what}: unknown item {value!r}")


def _fill_piles(s: ElfengoldState, doc: JSONDict) -> None:
    """The supply and the item pile: given, or whatever the rest of the position leaves.
    The cards left over go to the supply, or to the discard pile when the document
    gives the supply but not the discard pile (so a test can fix what is drawn)."""
    total = card_counts(s.rules.witch)
    out = [sum(h[k] for h in s.hands) + s.display[k] for k in range(HAND_KINDS)]
    out.append(s.display[GOLD_CARD] + s.gold_deck)
    if "supply" in doc:
        s.supply = _card_counts(doc["supply"], "supply")
        if "discard" not in doc:
            s.discard = [max(0, total[k] - out[k] - s.supply[k])
                         for k in range(HAND_KINDS + 1)]
    else:
        s.supply = [max(0, total[k] - out[k] - s.discard[k]) for k in range(HAND_KINDS + 1)]
    used = _items_in_play(s)
    if "item_pile" in doc:
        s.item_pile = _item_counts(doc["item_pile"], "item_pile")
    else:
        s.item_pile = [max(0, ITEM_COUNTS[k] - used[k]) for k in range(NUM_ITEMS)]


def _items_in_play(s: ElfengoldState) -> list[int]:
    """Items anywhere but the face-down pile, by kind."""
    used = s.removed[:]
    for groups in (s.items_up, s.items_down, s.kept_up, s.kept_down):
        for row in groups:
            for k in range(NUM_ITEMS):
                used[k] += row[k]
    for k in (*s.drawn, *s.row):
        used[k] += 1
    for r in range(len(s.board.routes)):
        for k in s.counters[r]:
            used[k] += 1
        if s.double[r]:
            used[DOUBLE] += 1
        if s.gold_piece[r]:
            used[GOLD_PIECE] += 1
        if s.obstacle[r] != NONE:
            used[s.obstacle[r]] += 1
    return used


def resample(s: ElfengoldState, player: int, rng: Rng) -> ElfengoldState:
    """A state ``player`` cannot tell from ``s``: the other hands and the supply, the
    other players' face-down items (and the items another player has drawn and not yet
    laid down), the item pile and the other players' town cards dealt again at random
    from what ``player`` has not seen."""
    player = check_player(player, s.n)
    rng = as_rng(rng)
    new = s.clone()
    others = [p for p in range(s.n) if p != player]
    cards = s.supply[:]
    items = s.item_pile[:]
    for p in others:
        for k in range(HAND_KINDS):
            cards[k] += s.hands[p][k]
        for k in range(NUM_ITEMS):
            items[k] += s.items_down[p][k] + s.kept_down[p][k]
    drawn_by_other = s.phase is Phase.DRAW_ITEMS and s.current != player
    if drawn_by_other:
        for k in s.drawn:
            items[k] += 1
    for p in others:
        hand = [0] * HAND_KINDS
        for _ in range(sum(s.hands[p])):
            hand[_draw_hand_card(cards, rng)] += 1
        new.hands[p] = hand
        for table, source in ((new.items_down, s.items_down), (new.kept_down, s.kept_down)):
            fresh = [0] * NUM_ITEMS
            for _ in range(sum(source[p])):
                fresh[rng.draw_from_counts(items)] += 1
            table[p] = fresh
    if drawn_by_other:
        new.drawn = sorted(rng.draw_from_counts(items) for _ in s.drawn)
    new.supply = cards
    new.item_pile = items
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


def _draw_hand_card(pool: list[int], rng: Rng) -> int:
    """A card for a hand from the unseen pool: never a gold card (they go straight to
    the gold deck, so no hand holds one)."""
    hand_pool = [*pool[:HAND_KINDS], 0]
    k = rng.draw_from_counts(hand_pool)
    pool[k] -= 1
    return k

