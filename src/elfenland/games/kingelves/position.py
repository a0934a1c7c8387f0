"""The position format: one JSON document that can describe any King of the Elves position.

Tests and tools write the situation they want (these towns in these kingdoms, a thief of
Bob's beside Carl's desert, this hand, this much gold) and load it with one call.
Everything but ``players`` is optional: hands default to empty, gold to the starting
gold, the discard pile to empty, and every card not placed anywhere lies in the deck,
every coin not held by a player in the bank.  What is given is checked: all the game's
cards and all its gold must be accounted for.  See ``docs/king-of-the-elves.md``.
"""

from __future__ import annotations

import json
from typing import Any

from ...core.errors import PositionError
from ...core.game import TERMINAL, JSONDict, check_player
from ...core.rng import Rng, as_rng
from ...core.saving import build_position, parse_counts, per_player
from .cards import NUM_KINDS, TOWN_KINDS, Card, card_from_text, counts_to_dict, obstacle_for
from .invariants import check_state
from .rules import BANNERS, BUY_PRICES, ROUNDS, Rules, kingdom_size, make_rules
from .state import (
    CLOCKWISE,
    COUNTERCLOCKWISE,
    GOLD,
    NO_ONE,
    OBSTACLE,
    TERRAIN,
    THIEF,
    KingOfTheElvesState,
    Pending,
    Phase,
    TownRef,
    town_bit,
)

FORMAT = "king-of-the-elves-position/1"
_DIRECTIONS = {"clockwise": CLOCKWISE, "counterclockwise": COUNTERCLOCKWISE}


def _ref_text(ref: TownRef) -> str:
    return f"{ref[0]}.{ref[1]}"


def to_position(s: KingOfTheElvesState) -> JSONDict:
    kingdoms = []
    for kingdom in s.kingdoms:
        towns = []
        for t in kingdom:
            entry: JSONDict = {"town": Card(t[TERRAIN]).slug}
            if t[GOLD] != NO_ONE:
                entry["gold"] = t[GOLD]
            if t[THIEF] != NO_ONE:
                entry["thief"] = t[THIEF]
            if t[OBSTACLE] != NO_ONE:
                entry[obstacle_for(t[TERRAIN]).slug] = t[OBSTACLE]
            towns.append(entry)
        kingdoms.append(towns)
    doc: JSONDict = {
        "format": FORMAT,
        "players": s.n,
        "options": s.rules.to_json(),
        "seed": s.seed,
        "round": s.round,
        "phase": s.phase.value,
        "dragon": s.dragon,
        "current_player": s.current_player(),
        "passes": s.passes,
        "pending": s.pending.value or None,
        "pending_count": s.pending_count,
        "hands": [counts_to_dict(h) for h in s.hands],
        "gold": s.gold[:],
        "set_aside": s.set_aside[:],
        "bought": s.bought[:],
        "bank": s.bank,
        "deck": counts_to_dict(s.deck),
        "discard": counts_to_dict(s.discard),
        "kingdoms": kingdoms,
        "rng": s.rng.to_json(),
    }
    if s.phase is Phase.JOURNEY:
        doc["journey"] = {
            "at": None if s.at[0] == NO_ONE else _ref_text(s.at),
            "direction": "clockwise" if s.direction == CLOCKWISE else "counterclockwise",
            "turned": s.turned,
            "own_visited": s.own_visited,
            "escort": None if s.escort == NO_ONE else s.escort,
            "visited": [_ref_text(r) for r in s.ring() if s.visited & town_bit(r)],
            "bonus_paid": s.bonus_paid,
            "earned": s.earned,
            "paid": s.paid,
        }
        if s.escort_towns:
            doc["journey"]["escort_towns"] = [_ref_text(r) for r in s.ring()
                                              if s.escort_towns & town_bit(r)]
    if s.result is not None:
        doc["winners"] = s.result[:]
    return doc


def from_position(doc: JSONDict) -> KingOfTheElvesState:
    """Build a state from a position document (raises ``PositionError``)."""
    return build_position(doc, FORMAT, _build)


def _counts(value: Any, what: str) -> list[int]:
    return parse_counts(value, NUM_KINDS, what, card_from_text)


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise PositionError(f"{what} must be an integer from {lo} to {hi}, not {value!r}")
    return value


def _seat(value: Any, what: str, n: int) -> int:
    if value is None:
        return NO_ONE
    return _int(value, what, 0, n - 1)


def _build(doc: JSONDict) -> KingOfTheElvesState:
    n = doc.get("players")
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 6:
        raise PositionError("players must be 2 to 6")
    options = doc.get("options")
    rules = Rules.from_json(options) if isinstance(options, dict) else make_rules()
    s = KingOfTheElvesState.__new__(KingOfTheElvesState)
    s.rules = rules
    seed = doc.get("seed", 0)
    s.seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else 0
    s.rng = Rng.from_json(doc["rng"]) if "rng" in doc else Rng(s.seed)
    s._init_empty(n)
    s.origin = json.loads(json.dumps(doc))
    s.round = _int(doc.get("round", 1), "round", 1, ROUNDS[n])
    try:
        s.phase = Phase(doc.get("phase", "building"))
    except ValueError:
        raise PositionError(f"unknown phase {doc.get('phase')!r}") from None
    s.dragon = _int(doc.get("dragon", (s.round - 1) % n), "dragon", 0, n - 1)
    s.current = TERMINAL if s.phase is Phase.OVER else _int(
        doc.get("current_player", s.dragon), "current_player", 0, n - 1)
    s.passes = _int(doc.get("passes", 0), "passes", 0, n - 1)
    try:
        s.pending = Pending(doc.get("pending") or "")
    except ValueError:
        raise PositionError(f"unknown pending step {doc.get('pending')!r}") from None
    discarding = s.pending in (Pending.DISCARD, Pending.DISCARD_OTHER)
    s.pending_count = _int(doc.get("pending_count", int(discarding)), "pending_count", 0, 4)
    if s.pending is not Pending.NONE and s.phase is not Phase.BUILDING:
        raise PositionError("a pending step belongs to the building phase")
    if discarding != (s.pending_count > 0) or \
            (s.pending is Pending.DISCARD_OTHER and s.pending_count != 1):
        raise PositionError("pending_count counts the cards still to discard")
    hand = _counts(per_player(doc, "hands", n, None)[s.current]
                   if s.pending is not Pending.NONE else None, "hands")
    if s.pending_count > sum(hand):
        raise PositionError("the player has fewer cards than they must discard")

    s.hands = [_counts(h, f"hands[{p}]") for p, h in enumerate(per_player(doc, "hands", n, None))]
    s.kingdoms = _kingdoms(doc, s)
    _gold(doc, s)
    _cards(doc, s)
    if s.phase is Phase.JOURNEY:
        _journey(doc.get("journey") or {}, s)
    elif "journey" in doc and doc["journey"] is not None:
        raise PositionError("a journey belongs to the journey phase")
    if s.phase is Phase.OVER:
        if any(s.kingdoms):
            raise PositionError("a finished game has no towns on the table")
        s._finish()
    check_state(s)
    return s


def _kingdoms(doc: JSONDict, s: KingOfTheElvesState) -> list[list[list[int]]]:
    n = s.n
    cap = kingdom_size(n)
    out: list[list[list[int]]] = []
    for k, kingdom in enumerate(per_player(doc, "kingdoms", n, [])):
        if not isinstance(kingdom, list) or len(kingdom) > cap:
            raise PositionError(f"kingdoms[{k}]: a list of at most {cap} towns")
        towns = []
        for i, entry in enumerate(kingdom):
            where = f"kingdoms[{k}][{i}]"
            if isinstance(entry, str):
                entry = {"town": entry}
            if not isinstance(entry, dict) or "town" not in entry:
                raise PositionError(f"{where}: a town is {{\"town\": terrain, ...}}")
            terrain = card_from_text(str(entry["town"]))
            if not terrain.is_town:
                raise PositionError(f"{where}: {terrain.slug} is not a town card")
            town = [int(terrain), _seat(entry.get("gold"), f"{where}.gold", n),
                    _seat(entry.get("thief"), f"{where}.thief", n), NO_ONE]
            obstacle = obstacle_for(terrain)
            wrong = Card.SEA_MONSTER if obstacle is Card.TREE else Card.TREE
            if entry.get(wrong.slug) is not None:
                raise PositionError(f"{where}: no {wrong.slug} on a {terrain.slug} town")
            owner = entry.get(obstacle.slug, entry.get("obstacle"))
            town[OBSTACLE] = _seat(owner, f"{where}.{obstacle.slug}", n)
            unknown = set(entry) - {"town", "gold", "thief", "obstacle", "tree", "sea-monster"}
            if unknown:
                raise PositionError(f"{where}: unknown keys {sorted(unknown)}")
            if s.rules.weak_gold and town[GOLD] == k:
                raise PositionError(f"{where}: the weaker gold card is never in its owner's "
                                    "kingdom")
            towns.append(town)
        out.append(towns)
    s.kingdoms = out
    for p in range(n):
        if s.banners_left(p) < 0:
            raise PositionError(f"player {p} has more than {BANNERS} banners on the table")
    return out


def _gold(doc: JSONDict, s: KingOfTheElvesState) -> None:
    n = s.n
    r = s.rules
    s.gold = [_int(g, f"gold[{p}]", 0, r.gold_supply)
              for p, g in enumerate(per_player(doc, "gold", n, r.starting_gold))]
    s.bought = [_int(b, f"bought[{p}]", 0, len(BUY_PRICES))
                for p, b in enumerate(per_player(doc, "bought", n, 0))]
    building = s.phase is Phase.BUILDING
    default_aside = [sum(BUY_PRICES[:b]) if building else 0 for b in s.bought]
    s.set_aside = [_int(g, f"set_aside[{p}]", 0, sum(BUY_PRICES))
                   for p, g in enumerate(doc.get("set_aside") or default_aside)]
    if len(s.set_aside) != n:
        raise PositionError(f"set_aside: one entry per player ({n})")
    if s.set_aside != default_aside:
        raise PositionError("set_aside is the price of the cards bought this round, paid to "
                            "the bank when the building phase ends")
    held = sum(s.gold) + sum(s.set_aside)
    s.bank = _int(doc.get("bank", r.gold_supply - held), "bank", 0, r.gold_supply)
    if s.bank + held != r.gold_supply:
        raise PositionError(f"gold: the players hold {held} and the bank {s.bank}, but the "
                            f"game has {r.gold_supply}")


def _cards(doc: JSONDict, s: KingOfTheElvesState) -> None:
    s.discard = _counts(doc.get("discard"), "discard")
    # An escort in play counts among the table's cards; set it before counting.
    journey = doc.get("journey") or {}
    if s.phase is Phase.JOURNEY and isinstance(journey, dict) \
            and journey.get("escort") is not None:
        s.escort = _int(journey["escort"], "journey.escort", 0, s.n - 1)
    table = s.table_cards()
    used = [sum(h[c] for h in s.hands) + s.discard[c] + table[c] for c in range(NUM_KINDS)]
    total = s.all_cards()
    if "deck" in doc:
        s.deck = _counts(doc["deck"], "deck")
    else:
        s.deck = [total[c] - used[c] for c in range(NUM_KINDS)]
    for c in range(NUM_KINDS):
        if used[c] + s.deck[c] != total[c] or s.deck[c] < 0:
            raise PositionError(
                f"{Card(c).slug} cards: {used[c]} in hands, on the table and discarded and "
                f"{max(s.deck[c], 0)} in the deck, but the game has {total[c]}")
    if s.pending is Pending.TAKE and not any(s.deck[t] for t in TOWN_KINDS):
        raise PositionError("no town card is left in the deck to take")


def _journey(j: Any, s: KingOfTheElvesState) -> None:
    if not isinstance(j, dict):
        raise PositionError("journey must be an object")
    unknown = set(j) - {"at", "direction", "turned", "own_visited", "escort", "visited",
                        "bonus_paid", "earned", "paid", "escort_towns"}
    if unknown:
        raise PositionError(f"journey: unknown keys {sorted(unknown)}")
    ring = s.ring()

    def ref(text: Any, what: str) -> TownRef:
        k, _, i = str(text).partition(".")
        if not (k.isdigit() and i.isdigit()) or (int(k), int(i)) not in ring:
            raise PositionError(f"{what}: no town {text!r} on the table")
        return int(k), int(i)

    s.at = (NO_ONE, NO_ONE) if j.get("at") is None else ref(j["at"], "journey.at")
    try:
        s.direction = _DIRECTIONS[j.get("direction", "clockwise")]
    except (KeyError, TypeError):
        raise PositionError("journey.direction is clockwise or counterclockwise") from None
    s.turned = bool(j.get("turned", False))
    visited = j.get("visited", [] if s.at[0] == NO_ONE else [_ref_text(s.at)])
    if not isinstance(visited, list):
        raise PositionError("journey.visited must be a list of towns")
    for text in visited:
        s.visited |= town_bit(ref(text, "journey.visited"))
    if s.at[0] != NO_ONE and not s.visited & town_bit(s.at):
        raise PositionError("journey.at must be a visited town")
    p = s.current
    own = any(s.visited & town_bit((p, i)) for i in range(len(s.kingdoms[p])))
    s.own_visited = bool(j.get("own_visited", own))
    s.bonus_paid = bool(j.get("bonus_paid", bool(ring) and s.visited == s._all_bits()))
    escorted = j.get("escort_towns", [])
    if not isinstance(escorted, list):
        raise PositionError("journey.escort_towns must be a list of towns")
    for text in escorted:
        s.escort_towns |= town_bit(ref(text, "journey.escort_towns"))
    s.earned = _int(j.get("earned", 0), "journey.earned", 0, s.rules.gold_supply)
    s.paid = _int(j.get("paid", 0), "journey.paid", 0, s.rules.gold_supply)


def resample(s: KingOfTheElvesState, player: int, rng: Rng) -> KingOfTheElvesState:
    """A state ``player`` cannot tell from ``s``: the other players' hands and the deck
    are dealt again at random from the cards ``player`` has not seen, each hand keeping
    its size.  Gold stays: every payment is public at the table, so an attentive player
    knows every total even though the view does not show it.  A hand shown on declaring
    "no town card" stays as it is while that player finishes the declaration; once they
    have, what they showed is no longer used as a constraint.

    The player's own choices may tell them about the deck's town cards: while taking a
    town card they look through the deck, and whether they may declare "no town card"
    at all says whether the deck holds one.  The sample agrees with that."""
    player = check_player(player, s.n)
    rng = as_rng(rng)
    new = s.clone()
    acting = player == s.current and s.phase is Phase.BUILDING
    if acting and s.pending is Pending.TAKE:
        _deal_unseen(s, new, player, rng, keep_deck_towns=True)
    else:
        declare = s._may_declare_no_town(player)
        for _ in range(20):
            _deal_unseen(s, new, player, rng, keep_deck_towns=False)
            if not acting or s.pending is not Pending.NONE \
                    or new._may_declare_no_town(player) == declare:
                break
        else:
            _deal_unseen(s, new, player, rng, keep_deck_towns=True)
    new.rng = Rng(rng.randrange(2**63))
    new._history = []
    new.log = []
    new.origin = None
    new.origin = to_position(new)
    new._legal = None
    new._legal_ids = None
    return new


def _deal_unseen(s: KingOfTheElvesState, new: KingOfTheElvesState, player: int, rng: Rng,
                 keep_deck_towns: bool) -> None:
    """Deal the other hands and the deck again from the cards hidden from ``player``;
    with ``keep_deck_towns`` the deck keeps exactly its town cards, so the town cards
    the others hold stay with the others (though not with the same ones)."""
    # A player in the middle of "no town card" has shown their hand (and the town card
    # they took): everyone knows it.
    shown = s.current if s.pending in (Pending.TAKE, Pending.DISCARD_OTHER) else NO_ONE
    others = [p for p in range(s.n) if p not in (player, shown)]
    pool = s.deck[:]
    for p in others:
        for c in range(NUM_KINDS):
            pool[c] += s.hands[p][c]
    hands = {p: [0] * NUM_KINDS for p in others}
    seats = [p for p in others for _ in range(sum(s.hands[p]))]
    if keep_deck_towns:
        towns = [0] * NUM_KINDS
        for t in TOWN_KINDS:
            towns[t] = pool[t] - s.deck[t]
            pool[t] = s.deck[t]
        rng.shuffle(seats)
        held = sum(towns)
        for p in seats[:held]:
            hands[p][rng.draw_from_counts(towns)] += 1
        seats = seats[held:]
        non_town = pool[:]
        for t in TOWN_KINDS:
            non_town[t] = 0
        for p in seats:
            c = rng.draw_from_counts(non_town)
            hands[p][c] += 1
            pool[c] -= 1
    else:
        for p in seats:
            hands[p][rng.draw_from_counts(pool)] += 1
    for p in others:
        new.hands[p] = hands[p]
    new.deck = pool
