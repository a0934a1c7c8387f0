"""Fixed-size numeric observations of the games for learning agents (Elfenland and
King of the Elves here; Elfengold's encoder is ``envs.elfengold_observation``, built on
this module's ``Layout``).

A vector holds what one player may see, nothing more: the same facts as the engine's
``view(player)`` (its own hand and secret counters or cards, the public board, the public
counts of the others), laid out in named blocks whose sizes depend only on the game, the
number of players and the rule set.  Seats are written relative to the observer (block
0 of every per-player part is the observer, then the next seats clockwise), so one policy
serves every seat.  The layout is printed by ``layout(...).describe()`` and documented
in ``docs/research.md``.

The encoders read the engine state's public attributes directly rather than going through
``view()``, which builds the whole game log on every call; the tests check that the
vector never changes when only hidden information does (a state resampled from the
observer's information state encodes to the same vector).

On the compiled engines (the default backend) the vector and the action mask are written
by C code appended to each ``_speedups.c`` (``_observe_into``, ``_legal_mask_into``)
straight into a numpy buffer, which takes about a microsecond instead of the tens the
Python encoder spends reading the state's attributes.  The Python encoders
(``encode_python``, ``action_mask_python``) stay the reference: the pure engine uses them,
and ``tests/envs/test_observation_fast.py`` demands the C numbers equal theirs bit for bit.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.game import GameState
from ..games.elfenland.actions import num_actions as elfenland_num_actions
from ..games.elfenland.board import load_board
from ..games.elfenland.state import (
    CARDS_PER_KIND,
    COUNTERS_PER_KIND,
    NO_PIECE,
    TOTAL_CARDS,
    TOTAL_COUNTERS,
    ElfenlandState,
)
from ..games.elfenland.state import Phase as ElfPhase
from ..games.kingelves.actions import num_actions as kingelves_num_actions
from ..games.kingelves.cards import NUM_KINDS, full_deck
from ..games.kingelves.rules import BUY_PRICES, ROUNDS, kingdom_size
from ..games.kingelves.state import (
    CLOCKWISE,
    GOLD,
    NO_ONE,
    OBSTACLE,
    TERRAIN,
    THIEF,
    KingOfTheElvesState,
    Pending,
    town_bit,
)
from ..games.kingelves.state import Phase as KingPhase

#: The observation layout's version: raised whenever a block is added, removed, resized,
#: moved or changes meaning, so that a trained policy can check the vector it was trained
#: on (``observation_layout(...).version``; listed with every change in docs/research.md).
OBSERVATION_VERSION = 1

FloatArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]

ELFENLAND = "elfenland"
KING_OF_THE_ELVES = "king-of-the-elves"
ELFENGOLD = "elfengold"
#: Per-seat observer-only blocks that stay hidden even once the game is over (a spectator
#: of a finished game sees town cards and gold, never a hand or a face-down counter or
#: item), across the three games.
ALWAYS_HIDDEN = ("hand", "secret", "face_down", "kept_face_down", "drawn")


@dataclass(frozen=True)
class Block:
    """A named run of numbers in the vector; ``high`` is the largest value any can take."""

    name: str
    size: int
    high: float
    #: Seat whose block this is, relative to the observer (None: shared by all).
    seat: int | None = None
    #: Only filled for the observer (or for everyone once the game is over).
    private: bool = False
    offset: int = 0


@dataclass
class Layout:
    """The named blocks of one game's vector (for one player count and rule set)."""

    blocks: list[Block] = field(default_factory=list)
    size: int = 0
    _by_name: dict[tuple[str, int | None], Block] = field(default_factory=dict)
    version: int = OBSERVATION_VERSION

    def add(self, name: str, size: int, high: float, seat: int | None = None,
            private: bool = False) -> None:
        block = Block(name, size, float(high), seat, private, self.size)
        self.blocks.append(block)
        self._by_name[name, seat] = block
        self.size += size

    def offset(self, name: str, seat: int | None = None) -> int:
        return self._by_name[name, seat].offset

    def block(self, name: str, seat: int | None = None) -> Block:
        return self._by_name[name, seat]

    def high(self) -> FloatArray:
        out = np.zeros(self.size, dtype=np.float32)
        for b in self.blocks:
            out[b.offset:b.offset + b.size] = b.high
        return out

    def slices(self) -> dict[str, slice]:
        """Every block by name: ``"phase"`` for a shared block, ``"hand@+1"`` for a
        seat's (relative to the observer: ``@+0`` is the observer)."""
        return {b.name if b.seat is None else f"{b.name}@+{b.seat}":
                slice(b.offset, b.offset + b.size) for b in self.blocks}

    def to_json(self) -> dict[str, Any]:
        """The layout as plain data (version, size, and each block's name, seat,
        offset, size, upper bound and whether only the observer sees it)."""
        return {"version": self.version, "size": self.size, "blocks": [
            {"name": b.name, "seat": b.seat, "offset": b.offset, "size": b.size,
             "high": b.high, "private": b.private} for b in self.blocks]}

    def describe(self) -> Iterator[str]:
        """One line per block: offset, size, name, bound (for the documentation)."""
        for b in self.blocks:
            who = "" if b.seat is None else f" [seat +{b.seat}]"
            hidden = " (observer only)" if b.private else ""
            yield f"{b.offset:5d} {b.size:4d}  {b.name}{who}{hidden}  ≤ {b.high:g}"


# ----------------------------------------------------------------- Elfenland

_ELF_PHASES = list(ElfPhase)
_ELF_PHASE_INDEX = {ph: i for i, ph in enumerate(_ELF_PHASES)}
_P_OVER = ElfPhase.OVER
#: The set bits of every 7-bit number (towns visited are a 21-bit mask).
_BITS = tuple(tuple(b for b in range(7) if m >> b & 1) for m in range(128))


class _Encoder:
    """What both games' encoders share: the compiled engine writes the vector itself."""

    layout: Layout

    def encode(self, s: Any, player: int) -> FloatArray:
        """The vector of ``player``: written by the compiled engine when ``s`` runs on it,
        else by ``encode_python`` (the reference the compiled encoder is tested against)."""
        fill = getattr(s, "_observe_into", None)
        if fill is None:
            return self.encode_python(s, player)
        out = np.empty(self.layout.size, dtype=np.float32)
        fill(out, player)
        return out

    def encode_python(self, s: Any, player: int) -> FloatArray:
        raise NotImplementedError


def _elfenland_layout(n: int, rules: Any) -> Layout:
    board = load_board()
    towns, roads = len(board.towns), len(board.roads)
    lay = Layout()
    lay.add("phase", len(_ELF_PHASES), 1)
    lay.add("discarding", 1, 1)
    lay.add("round", 1, rules.rounds)
    lay.add("rounds", 1, rules.rounds)
    lay.add("current_player", n, 1)
    lay.add("starting_player", n, 1)
    lay.add("face_up", 6, rules.face_up_counters)
    lay.add("counter_pile", 1, TOTAL_COUNTERS)
    lay.add("card_pile", 1, TOTAL_CARDS)
    lay.add("rules", 10, max(rules.hand_limit, rules.counter_draws, rules.counters_kept,
                             rules.mare_magnum_rafts, rules.mare_nebulae_rafts, 1))
    lay.add("road_counter", roads * 6, 1)
    lay.add("road_obstacle", roads * n, 1)
    diameter = max(max(row) for row in board.distances)
    for seat in range(n):
        lay.add("boot", towns, 1, seat)
        lay.add("towns", towns, 1, seat)
        lay.add("markers", 1, towns - 1, seat)
        lay.add("cards", 1, TOTAL_CARDS, seat)
        lay.add("counters", 6, COUNTERS_PER_KIND, seat)
        lay.add("kept_counters", 6, COUNTERS_PER_KIND, seat)
        lay.add("secret_counters", 1, TOTAL_COUNTERS, seat)
        lay.add("obstacle", 1, 1, seat)
        lay.add("hand", 7, max(CARDS_PER_KIND), seat, private=True)
        lay.add("secret", 6, COUNTERS_PER_KIND, seat, private=True)
        lay.add("town_card", towns, 1, seat, private=True)
        lay.add("distance", 1, diameter, seat, private=True)
    return lay


class ElfenlandEncoder(_Encoder):
    def __init__(self, n: int, rules: Any) -> None:
        self.n = n
        self.layout = _elfenland_layout(n, rules)
        lay = self.layout
        board = load_board()
        self.roads = board.roads
        self.num_towns = len(board.towns)
        self.o_phase = lay.offset("phase")
        self.o_discarding = lay.offset("discarding")
        self.o_round = lay.offset("round")
        self.o_current = lay.offset("current_player")
        self.o_starting = lay.offset("starting_player")
        self.o_face_up = lay.offset("face_up")
        self.o_piles = lay.offset("counter_pile")
        self.o_rules = lay.offset("rules")
        self.o_road_counter = lay.offset("road_counter")
        self.o_road_obstacle = lay.offset("road_obstacle")
        self.o_seat = [lay.offset("boot", s) for s in range(n)]
        # Offsets inside one seat's part (the same for every seat).
        base = self.o_seat[0]
        self.d = {name: lay.offset(name, 0) - base for name in (
            "boot", "towns", "markers", "cards", "counters", "kept_counters",
            "secret_counters", "obstacle", "hand", "secret", "town_card", "distance")}
        self.d_tuple = tuple(self.d.values())
        r = rules
        rules_values = [
            float(r.deal == "fresh"), float(r.keep_when == "after-placement"),
            float(r.boatmen), float(r.town_cards), float(r.early_end == "special-victory"),
            float(r.mare_magnum_rafts), float(r.mare_nebulae_rafts), float(r.hand_limit),
            float(r.counters_kept), float(r.counter_draws)]
        #: The zero vector with what never changes in a game filled in; each encoding
        #: starts from a copy (``array`` copies and item writes are cheap, and numpy
        #: then wraps the buffer without converting anything).
        self.template = array("f", bytes(4 * lay.size))
        self.template[self.o_rules:self.o_rules + 10] = array("f", rules_values)
        self.template[self.o_round + 1] = r.rounds

    def encode_python(self, s: ElfenlandState, player: int) -> FloatArray:
        n = self.n
        v = self.template[:]  # a copy of the zero vector with the rules block filled
        over = s.phase is _P_OVER
        v[self.o_phase + _ELF_PHASE_INDEX[s.phase]] = 1.0
        v[self.o_discarding] = s.discarding
        v[self.o_round] = s.round
        if not over:
            v[self.o_current + (s.current - player) % n] = 1.0
        v[self.o_starting + (s.starting - player) % n] = 1.0
        o = self.o_face_up
        for k, c in enumerate(s.face_up):
            v[o + k] = c
        v[self.o_piles] = sum(s.counter_pile)
        v[self.o_piles + 1] = sum(s.card_pile)
        counters, obstacles = s.route_counter, s.route_obstacle
        oc, oo = self.o_road_counter, self.o_road_obstacle
        for j, r in enumerate(self.roads):
            kind = counters[r]
            if kind >= 0:
                v[oc + j * 6 + kind] = 1.0
                owner = obstacles[r]
                if owner >= 0:
                    v[oo + j * n + (owner - player) % n] = 1.0
        (d_boot, d_towns, d_markers, d_cards, d_counters, d_kept, d_secret_n, d_obstacle,
         d_hand, d_secret, d_card, d_distance) = self.d_tuple
        hands, up, kept = s.hands, s.counters_up, s.kept_up
        secret, kept_secret = s.counters_secret, s.kept_secret
        for rel in range(n):
            p = (player + rel) % n
            base = self.o_seat[rel]
            v[base + d_boot + s.boots[p]] = 1.0
            visited = s.visited[p]
            ot = base + d_towns
            for t in _BITS[visited & 0x7F]:
                v[ot + t] = 1.0
            for t in _BITS[visited >> 7 & 0x7F]:
                v[ot + 7 + t] = 1.0
            for t in _BITS[visited >> 14 & 0x7F]:
                v[ot + 14 + t] = 1.0
            v[base + d_markers] = visited.bit_count()
            hand = hands[p]
            v[base + d_cards] = sum(hand)
            v[base + d_secret_n] = sum(secret[p]) + sum(kept_secret[p])
            v[base + d_obstacle] = s.obstacle_in_hand[p]
            o1, o2 = base + d_counters, base + d_kept
            for k, (c1, c2) in enumerate(zip(up[p], kept[p], strict=True)):
                v[o1 + k] = c1
                v[o2 + k] = c2
            if p == player:
                oh = base + d_hand
                for k, c in enumerate(hand):
                    v[oh + k] = c
                osec = base + d_secret
                for k, (c1, c2) in enumerate(zip(secret[p], kept_secret[p], strict=True)):
                    v[osec + k] = c1 + c2
            if (p == player or over) and s.town_cards[p] != NO_PIECE:
                v[base + d_card + s.town_cards[p]] = 1.0
                v[base + d_distance] = s.distance_to_card(p)
        return np.frombuffer(v, dtype=np.float32)


# ----------------------------------------------------------------- King of the Elves

_KING_PHASES = list(KingPhase)
_KING_PHASE_INDEX = {ph: i for i, ph in enumerate(_KING_PHASES)}
_PENDING = list(Pending)
_PENDING_INDEX = {p: i for i, p in enumerate(_PENDING)}
_K_OVER = KingPhase.OVER
_K_JOURNEY = KingPhase.JOURNEY


def _kingelves_layout(n: int, rules: Any) -> Layout:
    slots = kingdom_size(n)
    towns = n * slots
    deck = sum(full_deck(rules.land_transport_cards, rules.raft_cards, rules.action_cards))
    gold = rules.gold_supply
    lay = Layout()
    lay.add("phase", len(_KING_PHASES), 1)
    lay.add("pending", len(_PENDING), 1)
    lay.add("pending_count", 1, 4)
    lay.add("passes", 1, n)
    lay.add("round", 1, 6)
    lay.add("rounds", 1, 6)
    lay.add("dragon", n, 1)
    lay.add("current_player", n, 1)
    lay.add("deck", 1, deck)
    lay.add("discard", NUM_KINDS, deck)
    lay.add("set_aside", 1, 6 * sum(BUY_PRICES))
    lay.add("rules", 3, 1)
    lay.add("town", towns, 1)
    lay.add("town_terrain", towns * 6, 1)
    lay.add("town_gold", towns * n, 1)
    lay.add("town_thief", towns * n, 1)
    lay.add("town_obstacle", towns * n, 1)
    lay.add("journey", 1, 1)
    lay.add("at_castle", 1, 1)
    lay.add("at", towns, 1)
    lay.add("next", towns, 1)
    lay.add("clockwise", 1, 1)
    lay.add("turned", 1, 1)
    lay.add("escort", n, 1)
    lay.add("visited", towns, 1)
    lay.add("own_town_visited", 1, 1)
    lay.add("earned", 1, gold)
    lay.add("paid", 1, gold)
    for seat in range(n):
        lay.add("cards", 1, deck, seat)
        lay.add("banners", 1, 4, seat)
        lay.add("bought", 1, len(BUY_PRICES), seat)
        lay.add("seat_set_aside", 1, sum(BUY_PRICES), seat)
        lay.add("gold", 1, gold, seat, private=True)
        lay.add("hand", NUM_KINDS, deck, seat, private=True)
    return lay


class KingOfTheElvesEncoder(_Encoder):
    def __init__(self, n: int, rules: Any) -> None:
        self.n = n
        self.slots = kingdom_size(n)
        self.layout = _kingelves_layout(n, rules)
        lay = self.layout
        self.o = {b.name: b.offset for b in lay.blocks if b.seat is None}
        self.o_seat = [lay.offset("cards", s) for s in range(n)]
        base = self.o_seat[0]
        self.d = {name: lay.offset(name, 0) - base
                  for name in ("cards", "banners", "bought", "seat_set_aside", "gold", "hand")}
        self.d_tuple = tuple(self.d.values())
        self.template = array("f", bytes(4 * lay.size))
        self.template[self.o["rules"]:self.o["rules"] + 3] = array(
            "f", [float(rules.magic_spell), float(rules.weak_gold), float(rules.gold_for_all)])
        self.template[self.o["rounds"]] = ROUNDS[n]

    def _ref(self, k: int, i: int, player: int) -> int:
        return ((k - player) % self.n) * self.slots + i

    def encode_python(self, s: KingOfTheElvesState, player: int) -> FloatArray:
        n, o, slots = self.n, self.o, self.slots
        v = self.template[:]
        over = s.phase is _K_OVER
        v[o["phase"] + _KING_PHASE_INDEX[s.phase]] = 1.0
        v[o["pending"] + _PENDING_INDEX[s.pending]] = 1.0
        v[o["pending_count"]] = s.pending_count
        v[o["passes"]] = s.passes
        v[o["round"]] = s.round
        v[o["dragon"] + (s.dragon - player) % n] = 1.0
        v[o["deck"]] = sum(s.deck)
        v[o["set_aside"]] = sum(s.set_aside)
        if not over:
            v[o["current_player"] + (s.current - player) % n] = 1.0
        od = o["discard"]
        for c, m in enumerate(s.discard):
            v[od + c] = m
        o_town, o_terrain = o["town"], o["town_terrain"]
        o_gold, o_thief, o_obstacle = o["town_gold"], o["town_thief"], o["town_obstacle"]
        for k, kingdom in enumerate(s.kingdoms):
            first = ((k - player) % n) * slots
            for i, town in enumerate(kingdom):
                ref = first + i
                v[o_town + ref] = 1.0
                v[o_terrain + ref * 6 + town[TERRAIN]] = 1.0
                if town[GOLD] >= 0:
                    v[o_gold + ref * n + (town[GOLD] - player) % n] = 1.0
                if town[THIEF] >= 0:
                    v[o_thief + ref * n + (town[THIEF] - player) % n] = 1.0
                if town[OBSTACLE] >= 0:
                    v[o_obstacle + ref * n + (town[OBSTACLE] - player) % n] = 1.0
        if s.phase is _K_JOURNEY:
            self._journey(s, player, v)
        d_cards, d_banners, d_bought, d_set_aside, d_gold, d_hand = self.d_tuple
        for rel in range(n):
            p = (player + rel) % n
            base = self.o_seat[rel]
            v[base + d_cards] = sum(s.hands[p])
            v[base + d_banners] = s.banners_left(p)
            v[base + d_bought] = s.bought[p]
            v[base + d_set_aside] = s.set_aside[p]
            if p == player or over:
                v[base + d_gold] = s.gold[p]
            if p == player:
                oh = base + d_hand
                for c, m in enumerate(s.hands[p]):
                    v[oh + c] = m
        return np.frombuffer(v, dtype=np.float32)

    def _journey(self, s: KingOfTheElvesState, player: int, v: array[float]) -> None:
        o = self.o
        v[o["journey"]] = 1.0
        if s.at[0] == NO_ONE:
            v[o["at_castle"]] = 1.0
        else:
            v[o["at"] + self._ref(s.at[0], s.at[1], player)] = 1.0
        nxt = s.next_town()
        if nxt is not None:
            v[o["next"] + self._ref(nxt[0], nxt[1], player)] = 1.0
        if s.escort != NO_ONE:
            v[o["escort"] + (s.escort - player) % self.n] = 1.0
        for k, kingdom in enumerate(s.kingdoms):
            for i in range(len(kingdom)):
                if s.visited & town_bit((k, i)):
                    v[o["visited"] + self._ref(k, i, player)] = 1.0
        v[o["clockwise"]] = s.direction == CLOCKWISE
        v[o["turned"]] = s.turned
        v[o["own_town_visited"]] = s.own_visited
        v[o["earned"]] = s.earned
        v[o["paid"]] = s.paid


# ----------------------------------------------------------------- shared entry points

Encoder = _Encoder


def encoder_for(state: GameState) -> Encoder:
    """The encoder for ``state``'s game, player count and rule set."""
    encoder: Encoder
    if isinstance(state, ElfenlandState):
        encoder = ElfenlandEncoder(state.num_players, state.rules)
    elif isinstance(state, KingOfTheElvesState):
        encoder = KingOfTheElvesEncoder(state.num_players, state.rules)
    elif state.game_name == ELFENGOLD:
        # Imported here: that module builds on this one's ``Layout`` and ``_Encoder``.
        from .elfengold_observation import ElfengoldEncoder

        encoder = ElfengoldEncoder(state.num_players, state.rules)  # type: ignore[attr-defined]
    else:
        raise TypeError(f"no observation encoder for {type(state).__name__}")
    compiled_size = getattr(state, "_observation_size", None)
    if compiled_size is not None and compiled_size() != encoder.layout.size:
        # The C layout is rebuilt from the player count; a block added here and not
        # there must fail loudly rather than shift every number after it.
        raise AssertionError(f"the compiled encoder writes {compiled_size()} numbers, "
                             f"the layout has {encoder.layout.size}")
    return encoder


def observation_layout(game: str, players: int, **options: Any) -> Layout:
    """The declared layout of ``game``'s vector for ``players`` players and the rule
    options (as ``new_game`` takes them): named blocks with offsets, sizes and bounds,
    and the layout's ``version``.  ``layout.slices()["hand@+0"]`` cuts the observer's
    hand out of a vector (or of a batch, ``obs[:, s]``)."""
    from ..games.registry import game_info

    probe = game_info(game).new_game(players=players, seed=0, **options)
    return encoder_for(probe).layout


def num_actions(game: str) -> int:
    """Size of the game's fixed action space (the length of every action mask)."""
    if game == ELFENGOLD:
        from ..games.elfengold.actions import num_actions as elfengold_num_actions

        return elfengold_num_actions()
    return elfenland_num_actions() if game == ELFENLAND else kingelves_num_actions()


def action_mask(state: GameState, size: int | None = None) -> MaskArray:
    """1 for each legal action id of the player to act, else 0 (int8, the fixed space)."""
    fill = getattr(state, "_legal_mask_into", None)
    if fill is not None:
        mask = np.empty(size or num_actions(state.game_name), dtype=np.int8)
        fill(mask)
        return mask
    return action_mask_python(state, size)


def action_mask_python(state: GameState, size: int | None = None) -> MaskArray:
    """``action_mask`` from the legal-action list (the pure engine's way, and the
    reference for the compiled engine's mask)."""
    mask = np.zeros(size or num_actions(state.game_name), dtype=np.int8)
    if not state.is_terminal():
        mask[state.legal_action_ids()] = 1
    return mask


def observe(state: GameState, player: int) -> FloatArray:
    """The observation vector of ``player`` (a convenience; reuse an encoder in loops)."""
    return encoder_for(state).encode(state, player)
