"""What the three compiled engines' tests share: the module guard that skips (or, on CI,
fails) without a current compiled engine, the differential play of a compiled engine
against its pure reference, and the C-boundary checks run in a child interpreter.

Why one module: the three engines (Elfenland, King of the Elves, Elfengold) are held to
the same promise — the compiled state is the pure one, step for step — and a harness
written three times drifts (a check added to one engine's copy and not the others').
Each engine's test module keeps what is its own: its configurations, its ``brief``
and ``full_check`` (which fields make a position), and its step counts.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import random
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import pytest
from tests.elfenland_engine.crash import assert_refused, refused, run

from elfenland.core.errors import ElfenlandError, IllegalActionError
from elfenland.core.rng import Rng


def require_compiled(fast: ModuleType, title: str = "") -> None:
    """At a test module's top: skip it without the compiled engine (a failure on CI,
    which builds it), and fail it when the compiled engine lags the pure one."""
    engine = f"compiled {title} engine" if title else "compiled engine"
    if not fast.AVAILABLE:
        if os.environ.get("CI"):
            pytest.fail(f"the {engine} was not built on CI", pytrace=False)
        pytest.skip("the compiled engine is not built on this machine",
                    allow_module_level=True)
    if fast.STALE:
        pytest.fail(f"the {engine} lags the pure one: {', '.join(fast.STALE)}", pytrace=False)


@dataclasses.dataclass(frozen=True)
class EnginePair:
    """A pure engine and its compiled twin, and how a differential game compares them.

    ``by_id``: the legal actions are listed and chosen as ids (else as action objects,
    whose ids and, with ``compare_text``, texts are compared).  Every ``full_every``
    steps ``mid_check`` (by default ``full_check``) compares the whole state; every
    ``resample_every`` steps both are resampled and played on; ``after_step`` adds a
    check of the engine's own after every step."""

    pure: Callable[..., Any]
    compiled: Callable[..., Any]
    brief: Callable[[Any], tuple[Any, ...]]
    full_check: Callable[[Any, Any], None]
    num_actions: int
    end_text: str
    full_every: int
    resample_every: int
    by_id: bool = False
    compare_text: bool = False
    mid_check: Callable[[Any, Any], None] | None = None
    after_step: Callable[[Any, Any], None] | None = None

    def legal(self, state: Any) -> list[Any]:
        return state.legal_action_ids() if self.by_id else state.legal_actions()

    def ident(self, x: Any) -> int:
        return x if self.by_id else x.id

    def check_resample(self, a: Any, b: Any, seed: int, r: random.Random) -> int:
        """Resample both for the player to act, then play on from clones; the steps."""
        p = a.current_player()
        ra = a.resample_from_infostate(p, Rng(seed))
        rb = b.resample_from_infostate(p, Rng(seed))
        assert isinstance(rb, self.compiled)
        assert ra.to_position() == rb.to_position()
        assert ra.serialize() == rb.serialize()
        ca, cb = ra.clone(), rb.clone()
        steps = 0
        while steps < 25 and not ca.is_terminal():
            legal = self.legal(ca)
            assert [self.ident(x) for x in legal] == cb.legal_action_ids()
            x = legal[r.randrange(len(legal))]
            ca.apply_action(x)
            cb.apply_action(x)
            steps += 1
            assert self.brief(ca) == self.brief(cb)
        self.full_check(ca, cb)
        # The copies played on; the resampled states they came from did not move.
        assert ra.to_position() == rb.to_position() and rb._length == 0
        return steps

    def play_pair(self, n: int, seed: int, options: dict[str, Any],
                  preset: dict[str, Any] | None = None) -> int:
        """One random game on both engines from the same seed; the steps played."""
        a = self.pure(players=n, seed=seed, **options)
        b = self.compiled(players=n, seed=seed, **options)
        assert type(b) is self.compiled
        for name, value in (preset or {}).items():  # a position random play seldom reaches
            setattr(a, name, copy.deepcopy(value))
            setattr(b, name, copy.deepcopy(value))
        self.full_check(a, b)
        mid_check = self.mid_check or self.full_check
        r = random.Random(seed * 7919 + n)
        steps = 0
        while not a.is_terminal():
            legal = self.legal(a)
            fast_legal = self.legal(b)
            assert [self.ident(x) for x in legal] == [self.ident(x) for x in fast_legal]
            if self.compare_text:
                assert [str(x) for x in legal] == [str(x) for x in fast_legal]
            assert b.current_player() == a.current_player()
            x = legal[r.randrange(len(legal))]
            if steps % 11 == 3:
                # An illegal action: the same error and message, and nothing changes.
                bad = r.randrange(self.num_actions)
                if bad not in {self.ident(y) for y in legal}:
                    with pytest.raises(IllegalActionError) as err_a:
                        a.apply_action(bad)
                    with pytest.raises(IllegalActionError) as err_b:
                        b.apply_action(bad)
                    assert str(err_a.value) == str(err_b.value)
            action = a.parse_action(x) if self.by_id else x
            a.apply_action(action)
            # The compiled engine takes the action object, its text or its id alike.
            b.apply_action((action, str(action), self.ident(x))[steps % 3])
            steps += 1
            assert self.brief(a) == self.brief(b)
            if self.after_step:
                self.after_step(a, b)
            if steps % self.full_every == 0:
                mid_check(a, b)
            if steps % self.resample_every == 0 and not a.is_terminal():
                steps += self.check_resample(a, b, seed * 1000 + steps, r)
        assert b.is_terminal()
        self.full_check(a, b)
        with pytest.raises(ElfenlandError) as over_a:
            a.apply_action(self.end_text)
        with pytest.raises(ElfenlandError) as over_b:
            b.apply_action(self.end_text)
        assert str(over_a.value) == str(over_b.value)
        return steps

    def play_all(self, configs: Sequence[dict[str, Any]], players: Sequence[int],
                 steps_wanted: int) -> int:
        """Every configuration at every player count, seed after seed, until at least
        ``steps_wanted`` steps were compared; the steps."""
        total = 0
        seed = 0
        while total < steps_wanted:
            for options in configs:
                for n in players:
                    total += self.play_pair(n, seed, options)
            seed += 1
        return total

    def assert_bad_new_game_fails_alike(self, kwargs: dict[str, Any]) -> None:
        """The same typed error with the same message from both engines."""
        with pytest.raises(ElfenlandError) as pure:
            self.pure(**kwargs)
        with pytest.raises(ElfenlandError) as compiled:
            self.compiled(**kwargs)
        assert type(compiled.value) is type(pure.value)
        assert str(compiled.value) == str(pure.value)


def random_steps(state: Any, steps: int, r: random.Random, *, by_id: bool = False) -> Any:
    """Play ``steps`` random legal actions (fewer if the game ends); the state."""
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_action_ids() if by_id else state.legal_actions()
        state.apply_action(legal[r.randrange(len(legal))])
    return state


def assert_new_fields_are_named(fast: ModuleType, probe: Any, rules: type, field: str,
                                option: str) -> None:
    """``fast._gaps`` names a state field and a rule option the C code does not mirror
    (``fast.STALE`` would then switch the compiled engine off)."""
    assert fast._gaps(probe, rules, fast._KNOWN_STATE, fast._KNOWN_RULES) == []
    setattr(probe, field, 1)
    more = dataclasses.make_dataclass("MoreRules", [(option, bool, False)], bases=(rules,),
                                      frozen=True)
    assert fast._gaps(probe, more, fast._KNOWN_STATE, fast._KNOWN_RULES) == [
        f"state field {field}", f"rule option {option}"]


def field_write_test(writes: dict[str, tuple[str, str]],
                     then: str = "") -> Callable[[str], None]:
    """The test, parametrized over ``writes`` (a case's setup and write), that each bad
    write is refused in a child interpreter with a typed error, the state unchanged,
    and ``then`` runs on without a crash."""

    @pytest.mark.parametrize("case", sorted(writes))
    def test_a_bad_field_write_is_refused_before_anything_changes(case: str) -> None:
        setup, write = writes[case]
        assert_refused(refused(setup, write, then))

    return test_a_bad_field_write_is_refused_before_anything_changes


def assert_uninitialised_calls_raise(state_import: str, calls: Sequence[str]) -> None:
    """Each call on a state made with ``__new__`` alone (``state_import`` binds its class
    to ``F``) raises a typed ``ElfenlandError`` in a child interpreter, which exits
    cleanly."""
    lambdas = ",\n             ".join(f"lambda s: {call}" for call in calls)
    proc = run(f"""
from elfenland.core.rng import Rng
{state_import}
for call in ({lambdas},):
    s = F.__new__(F)
    try:
        call(s)
    except ElfenlandError as exc:
        print("typed:", exc)
print("clean exit")
""")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("typed:") == len(calls) and "clean exit" in proc.stdout, \
        proc.stdout


def reconfigure(module: str, config: str, probe: str, refusal: str = "Exception") -> str:
    """In a child interpreter, ``module``'s ``fast._speedups.configure(config)`` (a
    second, bad configuration) must raise ``refusal``; then ``probe`` runs (printing
    what the engine now holds).  Its output, for the caller to check that nothing
    changed."""
    proc = run(f"""
from {module} import fast
try:
    fast._speedups.configure({config})
except {refusal} as exc:
    print("refused", type(exc).__name__)
{probe}
""")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "refused" in proc.stdout, proc.stdout
    return proc.stdout


def assert_copies_are_the_game(b: Any, log: Callable[[Any], Any] = lambda s: s.log) -> None:
    """A pickled and a deep-copied compiled state are the same game (its log too), and
    share the engine's action objects."""
    for copy_ in (pickle.loads(pickle.dumps(b)), copy.deepcopy(b)):
        assert type(copy_) is type(b) and copy_ == b and log(copy_) == log(b)
        x = b.legal_actions()[0]
        assert copy_.legal_actions()[0] is x
