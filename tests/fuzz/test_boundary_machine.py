"""Issue #22: a Hypothesis state machine drives both engines of each game side by side
with a mix of legal and illegal actions, field writes of any integer, clones, resamples,
saved games and position round trips, asserting after every step that the two agree and
that nothing crashed (a crash would kill the test run; the sanitizer job in ``.ci/run``
runs this module under AddressSanitizer and UndefinedBehaviorSanitizer).

A write the compiled engine refuses must leave it unchanged; a write it takes is made on
the pure engine too, and from then on the two must still give the same answers.
``ELFENLAND_FUZZ_EXAMPLES`` sets the number of runs (``bench/fuzz.py`` runs it longer).
"""

from __future__ import annotations

import copy
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from elfenland.core.errors import ElfenlandError
from elfenland.core.game import GameState
from elfenland.core.rng import Rng

from .engines import NOT_NUMBERS, PAIRS, Pair, outcome, snapshot

EXAMPLES = int(os.environ.get("ELFENLAND_FUZZ_EXAMPLES", "25"))
ints = st.one_of(st.integers(-8, 80), st.integers(), st.sampled_from([2**31, 2**63, -2**31 - 1]))
values: st.SearchStrategy[Any] = st.one_of(
    ints, st.lists(ints, max_size=8),
    st.lists(st.lists(ints, max_size=20), max_size=7),
    st.just("x"), st.none(), st.booleans(),
)


class BothEngines(RuleBasedStateMachine):
    pair: Pair

    def __init__(self) -> None:
        super().__init__()
        self.pure: GameState
        self.comp: GameState

    @initialize(players=st.integers(2, 6), seed=st.integers(0, 2**63 - 1))
    def start(self, players: int, seed: int) -> None:
        self.pure = self.pair.pure(players=players, seed=seed)  # type: ignore[call-arg]
        self.comp = self.pair.compiled(players=players, seed=seed)  # type: ignore[call-arg]

    def same(self, call: Any) -> Any:
        a, b = outcome(lambda: call(self.pure)), outcome(lambda: call(self.comp))
        assert a == b, (a, b)
        return a

    @invariant()
    def agree(self) -> None:
        if hasattr(self, "pure"):
            assert snapshot(self.pure, self.pair.fields) == snapshot(self.comp, self.pair.fields)

    @rule(pick=st.integers(0, 10**6))
    def play_legal(self, pick: int) -> None:
        kind, legal = self.same(lambda s: [str(a) for a in s.legal_actions()])
        if kind == "ok" and legal:
            text = legal[pick % len(legal)]
            self.same(lambda s: s.apply_action(s.legal_actions()[pick % len(legal)]))
            assert str(self.pure.history[-1]) == text

    @rule(action=st.one_of(st.integers(-5, 2000), st.integers(),
                           st.text(max_size=30), st.sampled_from(["end", "pass", "draw"])))
    def play_anything(self, action: Any) -> None:
        self.same(lambda s: s.apply_action(action))

    @rule(pick=st.integers(0, 10**6), id_=st.integers(-3, 3000))
    def play_forged(self, pick: int, id_: int) -> None:
        """A legal action's copy carrying another's private id: played as what it says."""
        kind, legal = self.same(lambda s: s.legal_actions())
        if kind == "ok" and legal:
            forged = copy.copy(legal[pick % len(legal)])
            object.__setattr__(forged, "_id", id_)
            self.same(lambda s: s.apply_action(forged))

    @rule(field=st.sampled_from(sorted(set().union(*(p.fields for p in PAIRS.values())))),
          value=values)
    def write(self, field: str, value: Any) -> None:
        if field not in self.pair.fields or field in NOT_NUMBERS:
            return
        before = snapshot(self.comp, self.pair.fields)
        try:
            setattr(self.comp, field, copy.deepcopy(value))
        except ElfenlandError:
            assert snapshot(self.comp, self.pair.fields) == before, field
            return
        setattr(self.pure, field, copy.deepcopy(getattr(self.comp, field)))
        self.pure._legal = None  # type: ignore[attr-defined]
        if hasattr(self.pure, "_legal_ids"):
            self.pure._legal_ids = None

    @rule()
    def clone(self) -> None:
        self.pure, self.comp = self.pure.clone(), self.comp.clone()

    @rule(seed=st.integers(0, 2**32), seat=st.integers(0, 5))
    def resample(self, seed: int, seat: int) -> None:
        kind, _ = self.same(lambda s: s.resample_from_infostate(seat, Rng(seed)).to_position())
        if kind == "ok" and seed % 2:
            self.pure = self.pure.resample_from_infostate(seat, Rng(seed))
            self.comp = self.comp.resample_from_infostate(seat, Rng(seed))

    @precondition(lambda self: hasattr(self, "pure"))
    @rule()
    def save_and_load(self) -> None:
        kind, text = self.same(lambda s: s.serialize())
        if kind != "ok":
            return
        a = outcome(lambda: self.pair.deserialize_pure(text))
        b = outcome(lambda: self.pair.deserialize_compiled(text))
        assert a[0] == b[0], (a, b)
        if a[0] == "ok":
            assert snapshot(a[1], self.pair.fields) == snapshot(b[1], self.pair.fields)

    @rule()
    def position_round_trip(self) -> None:
        kind, doc = self.same(lambda s: s.to_position())
        if kind != "ok":
            return
        a = outcome(lambda: self.pair.from_position(copy.deepcopy(doc)))
        b = outcome(lambda: self.pair.from_state(self.pair.from_position(copy.deepcopy(doc))))
        assert a[0] == b[0], (a, b)
        if a[0] == "ok":
            assert a[1].to_position() == b[1].to_position() == doc


def machine(game: str) -> type[BothEngines]:
    cls = type(f"BothEngines_{game.replace('-', '_')}", (BothEngines,), {"pair": PAIRS[game]})
    cls.TestCase.settings = settings(  # type: ignore[attr-defined]
        max_examples=EXAMPLES, stateful_step_count=40, deadline=None,
        suppress_health_check=list(HealthCheck))
    return cls


pytestmark = pytest.mark.skipif(not all(p.available for p in PAIRS.values()),
                                reason="compiled engines not built")

TestElfenland = machine("elfenland").TestCase
TestKingOfTheElves = machine("king-of-the-elves").TestCase
TestElfengold = machine("elfengold").TestCase
