"""Reading a rival's travel cards from how it drew and placed this round, by a model of
how it chooses: a filter over deals for the quick Elfenland level (``belief=3``).

``resample_from_infostate`` deals the rivals' travel cards again at random; the
``belief=1`` deals (``elfenland_belief``) make them pay for the counters each rival
laid.  But a rival's draws and placements say far more than what it paid for: a
``search`` bot draws exactly as the greedy bot draws (the face-up counter that most
improves its wish journey, which its travel cards decide) and keeps the greedy bot's
placement unless its search beats it.  So each deal here is weighted by how often the
greedy bot, given that deal's travel cards and secret counters in the rival's seat,
makes the choices the rival made this round: 1 where it does, ``eps_draw`` or
``eps_place`` where it does not.  On 496 positions of games of two ``search`` bots
(``bench/belief_accuracy.py --game elfenland``) this takes the deals' travel cards from
a distance of 6.2 (``belief=1``) to 4.8 of the rival's true ones (0: the oracle, worth
10.5 points head to head in session 24), and the kinds held agree 0.75 against 0.67.
In play it gained +1.9 ± 4.7 points over 800 games even with its upkeep left out of the
budget (session 24, ``docs/bots.md``): the oracle's worth is the exact hand, which no
record holds.  So it is a switch for benches, off.

How it runs within a round, where no travel card is dealt or shown:

- the positions the rival chose in are rebuilt from the player's own positions (each
  ``observe``d when it is asked to choose) by applying the actions logged since; every
  part of them the player cannot see (the rivals' travel cards and secret counters, the
  piles) is then the deal's (``seated``), so nothing of the true hands is read;
- a pool of ``size`` deals (``Reading``), each scored once per rival choice, the new
  choices only at each later decision; when the weights leave fewer than a quarter of
  the pool in effect, the pool is drawn again (``belief=1`` deals) and scored on every
  choice of the round;
- a rollout's deal is the engine's deal with the pool's hidden parts put in, a deal
  of the pool drawn by weight: the travel cards and secret counters the player cannot
  see stay the same in all (``unseen``), so only how they are shared changes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.rng import Rng
from ..games.elfenland.actions import Kind, from_id
from ..games.elfenland.state import ElfenlandState, Phase
from .elfenland_belief import claims, paying_deal
from .elfenland_greedy import ElfenlandGreedyBot

#: The actions of a round's draw and placement phases; a walk back through the log
#: stops at any other (the last round's move or keep).
_ROUND = frozenset({Kind.DRAW_SECRET, Kind.DRAW, Kind.DRAW_BLIND, Kind.PLACE,
                    Kind.OBSTACLE, Kind.PASS})
_DRAWS = frozenset({Kind.DRAW, Kind.DRAW_BLIND})
_CHOICES = frozenset({Kind.DRAW, Kind.DRAW_BLIND, Kind.PLACE, Kind.OBSTACLE, Kind.PASS})

#: The odds of a draw, and of a placement, that the greedy bot with the deal's hand
#: would not make (``search`` draws as the greedy bot; it keeps its placement about
#: two times in three).  Measured alike: (0.01, 0.1) a little sharper, (0.2, 0.5) less.
EPS_DRAW = 0.05
EPS_PLACE = 0.3
#: A state's log: (player, action id, public facts, private facts) per action.
Log = Sequence[tuple[int, int, dict[str, Any], Any]]
#: Deals in the pool.
SIZE = 32


@dataclass
class Hidden:
    """What the player cannot see of the rivals in one deal: every seat's travel cards
    and secret counters (the player's own as they are), and the deal's weight."""

    hands: list[list[int]]
    secret: list[list[int]]
    weight: float = 1.0


def round_choices(log: Log, me: int) -> list[int]:
    """The log indices of the rivals' choices of this round's draws and placements
    (``log``: a state's ``log``, read once: a compiled state builds it at each read)."""
    out = []
    for k in range(len(log) - 1, -1, -1):
        who, aid = log[k][0], log[k][1]
        kind = from_id(aid).kind
        if kind not in _ROUND:
            break
        if who != me and kind in _CHOICES:
            out.append(k)
    return out[::-1]


def unseen(s: ElfenlandState, me: int) -> tuple[list[int], list[int]]:
    """The travel cards and counters ``me`` cannot see: the piles and the rivals'
    hands and secret counters (the same in every deal of ``me``'s position)."""
    cards = list(s.card_pile)
    counters = list(s.counter_pile)
    for q in range(s.n):
        if q == me:
            continue
        for k, n in enumerate(s.hands[q]):
            cards[k] += n
        for k, n in enumerate(s.counters_secret[q]):
            counters[k] += n
    return cards, counters


def put(t: ElfenlandState, me: int, hands: Sequence[Sequence[int]],
        secret: Sequence[Sequence[int]]) -> bool:
    """Give the rivals of ``me`` in ``t`` these travel cards and secret counters, in
    place, the piles what ``me`` cannot see less those; False (``t`` unchanged) if what
    is unseen cannot hold them."""
    cards, counters = unseen(t, me)
    for q in range(t.n):
        if q == me:
            continue
        for k, n in enumerate(hands[q]):
            cards[k] -= n
        for k, n in enumerate(secret[q]):
            counters[k] -= n
    if min(cards) < 0 or min(counters) < 0:
        return False
    # Assigned whole: the compiled engine's lists are copies.
    t.hands = [list(t.hands[q]) if q == me else list(hands[q]) for q in range(t.n)]
    t.counters_secret = [list(t.counters_secret[q]) if q == me else list(secret[q])
                         for q in range(t.n)]
    t.card_pile = cards
    t.counter_pile = counters
    t._legal = None
    return True


class Reading:
    """The quick level's pool of weighted deals for one player, kept through a round."""

    def __init__(self, me: int, rng: random.Random, size: int = SIZE,
                 eps_draw: float = EPS_DRAW, eps_place: float = EPS_PLACE) -> None:
        self.me = me
        self.rng = rng
        self.size = size
        self.eps_draw = eps_draw
        self.eps_place = eps_place
        self.greedy = ElfenlandGreedyBot(rng.randrange(2**32))
        #: The player's own positions this round, by the length of the log then.
        self.memory: dict[int, ElfenlandState] = {}
        #: The rivals' positions rebuilt, by log index of their choice.
        self.positions: dict[int, ElfenlandState | None] = {}
        self.pool: list[Hidden] = []
        #: The rival choices the pool's weights have scored.
        self.scored: set[int] = set()
        self.round = -1
        #: Pools drawn and choices scored (benches, tests).
        self.draws = 0
        self.replays = 0

    def recall(self, me: int, memory: dict[int, ElfenlandState]) -> None:
        """Read as player ``me`` with these positions remembered, the rivals' rebuilt
        afresh: for a bench that holds a game's record instead of playing it."""
        self.me = me
        self.memory = memory
        self.positions = {}

    def observe(self, s: ElfenlandState) -> None:
        """Remember the player's own position (the base the rivals' are rebuilt on)."""
        if s.round != self.round:
            self.round = s.round
            self.memory.clear()
            self.positions.clear()
            self.pool = []
            self.scored = set()
        self.memory.setdefault(len(s.log), s.clone())

    def position(self, log: Log, k: int) -> ElfenlandState | None:
        """The position the choice at log index ``k`` was made in: the player's latest
        remembered position before it, with the actions logged since applied (the
        engine is deterministic, so these are the game's own); None if none is
        remembered, or the replay does not draw what the log shows."""
        if k in self.positions:
            return self.positions[k]
        base = max((n for n in self.memory if n <= k), default=None)
        got: ElfenlandState | None = None
        if base is not None:
            t = self.memory[base].clone()
            for i in range(base, k):
                t.apply_action(log[i][1])
            if all(a[2] == b[2] for a, b in zip(t.log[base:k], log[base:k], strict=True)):
                got = t  # else a draw's public facts differ: not the game's position
        self.positions[k] = got
        return got

    def likelihood(self, log: Log, hidden: Hidden, choices: Sequence[int]) -> float:
        """How well the greedy bot, given ``hidden`` in the rivals' seats, explains
        their ``choices`` (log indices)."""
        w = 1.0
        for k in choices:
            t0 = self.position(log, k)
            if t0 is None:
                continue
            aid = log[k][1]
            t = self.seated(t0, hidden, log[k:])
            if t is None:
                return 0.0
            self.replays += 1
            if self.greedy.choose(t).id == aid:
                continue
            w *= self.eps_draw if from_id(aid).kind in _DRAWS else self.eps_place
        return w

    def seated(self, t0: ElfenlandState, hidden: Hidden,
               since: Log
               ) -> ElfenlandState | None:
        """A copy of ``t0`` with the rivals' travel cards and secret counters the deal's
        as they were then (a counter laid from secret since was still held), and the
        piles what the player could not see then less those: so that nothing of the
        true deal is left in it.  None if the deal cannot have been so then."""
        me = self.me
        secret = [list(c) for c in hidden.secret]
        for who, aid, public, _ in since:
            if public.get("from_secret"):
                a = from_id(aid)
                if a.transport is not None:
                    secret[who][int(a.transport)] += 1
        t = t0.clone()
        return t if put(t, me, hidden.hands, secret) else None

    def fresh(self, s: ElfenlandState) -> Hidden:
        """A deal of the engine's, paying for the counters the rivals laid (``belief=1``)."""
        det = s.resample_from_infostate(self.me, Rng(self.rng.randrange(2**63)))
        need = claims(s, self.me)
        if need:
            paying_deal(det, self.me, need, self.rng)
        return Hidden([list(h) for h in det.hands], [list(c) for c in det.counters_secret])

    def update(self, s: ElfenlandState) -> None:
        """Score the rival choices made since the last update, drawing the pool again
        (and scoring it on every choice of the round) when too few deals are left."""
        self.observe(s)
        if s.phase is not Phase.PLACE and s.phase is not Phase.DRAW_COUNTERS:
            return
        log = s.log
        choices = round_choices(log, self.me)
        new = [k for k in choices if k not in self.scored]
        if self.pool and new:
            for k in new:  # a secret counter laid since the pool was drawn: spent
                if log[k][2].get("from_secret"):
                    kind = from_id(log[k][1]).transport
                    for h in self.pool:
                        row = h.secret[log[k][0]]
                        if kind is None or row[int(kind)] == 0:
                            h.weight = 0.0
                        else:
                            row[int(kind)] -= 1
            for h in self.pool:
                if h.weight > 0:
                    h.weight *= self.likelihood(log, h, new)
        self.scored.update(new)
        if not self.pool or self.effective() < 0.25:
            self.draws += 1
            self.pool = [self.fresh(s) for _ in range(self.size)]
            for h in self.pool:
                h.weight = self.likelihood(log, h, choices)

    def effective(self) -> float:
        """The share of the pool in effect (effective sample size over size)."""
        total = sum(h.weight for h in self.pool)
        squares = sum(h.weight * h.weight for h in self.pool)
        return 0.0 if squares == 0 else total * total / squares / len(self.pool)

    def pick(self) -> Hidden | None:
        """A deal of the pool, drawn by weight (None if the pool is empty or all 0)."""
        total = sum(h.weight for h in self.pool)
        if total <= 0:
            return None
        x = self.rng.random() * total
        for h in self.pool:
            x -= h.weight
            if x <= 0:
                return h
        return self.pool[-1]

    def refine(self, det: ElfenlandState) -> None:
        """Put a deal of the pool into ``det`` (a deal of the engine's for the player),
        in place, if it fits what is unseen now."""
        h = self.pick()
        if h is None:
            return
        if any(sum(h.hands[q]) != sum(det.hands[q])
               or sum(h.secret[q]) != sum(det.counters_secret[q])
               for q in range(det.n) if q != self.me):
            return
        put(det, self.me, h.hands, h.secret)
