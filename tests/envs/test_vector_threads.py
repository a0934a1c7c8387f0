"""The batched environment split across native threads (``threads=k``, issue #25): the
arrays are bit-identical to one thread whatever k and N (k up to 8, N not a multiple of
k, k > N clamped); an illegal action still changes nothing; an engine error in any slice,
or in what the calling thread finishes, leaves the batch needing a reset and is raised
first in slot order; the threads run with the GIL released (another Python thread makes
progress during one ``step``)."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

import pytest

from .conftest import need

np = need("numpy")
need("gymnasium")

from elfenland.core.errors import IllegalActionError  # noqa: E402
from elfenland.envs.vector import VectorEnv, VectorGames  # noqa: E402

GAMES = ["elfenland", "king-of-the-elves"]
#: players → (threads, games in the batch): k ∈ {2, 3, 8}, N never a multiple of k.
SPLITS = {2: (2, 13), 3: (3, 29), 4: (8, 21), 5: (3, 17), 6: (8, 45)}
STEPS = 20_000  # agent-steps per (game, players): 100,000 per game
ARRAYS = ("obs", "mask", "legal_ids", "num_legal", "player", "actor", "rewards",
          "terminated", "truncated", "seeds", "moves")

compiled_only = pytest.mark.skipif(
    not VectorGames("elfenland", 1, 2).compiled, reason="needs the compiled batch")


def batch(game: str, n: int, players: int, threads: int, **kw: Any) -> VectorGames:
    cap = 400 if game == "king-of-the-elves" else None
    return VectorGames(game, n, players, max_game_length=cap, threads=threads, **kw)


def assert_same(a: VectorGames, b: VectorGames) -> None:
    for name in ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def snapshot(v: VectorGames) -> dict[str, Any]:
    return {name: getattr(v, name).copy() for name in ARRAYS}


def lockstep(one: VectorGames, many: VectorGames, steps: int, seed: int) -> int:
    """Both batches driven by the same actions (the sampler's on even calls, which must
    agree, numpy's pick on odd ones); every array compared after every call."""
    n = one.num_envs
    rng = np.random.default_rng(seed)
    rows = np.arange(n)
    ends = 0
    for t in range(steps // n):
        if t % 2 == 0:
            actions = one.sample_legal_actions().copy()
            assert np.array_equal(many.sample_legal_actions(), actions)
        else:
            pick = (rng.random(n) * one.num_legal).astype(np.int64)
            actions = one.legal_ids[rows, pick].astype(np.int64)
        one.step(actions)
        many.step(actions)
        assert_same(one, many)
        ends += int(one.terminated.sum() + one.truncated.sum())
    return ends


@compiled_only
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", sorted(SPLITS))
def test_bit_identical_to_one_thread(game: str, players: int) -> None:
    k, n = SPLITS[players]
    assert n % k
    one, many = batch(game, n, players, 1), batch(game, n, players, k)
    assert (one.threads, many.threads) == (1, k)
    one.reset(77 * players)
    many.reset(77 * players)
    assert_same(one, many)
    ends = lockstep(one, many, STEPS, players)
    assert ends > 0  # resets (ends by the rules, or King of the Elves' cap) were compared


@compiled_only
@pytest.mark.parametrize("game", GAMES)
def test_the_threads_play_the_games(game: str) -> None:
    # Every game step is played by a slice without the GIL, except (King of the Elves)
    # the actions whose logged fact is a tuple, played by the calling thread.
    v = batch(game, 19, 4, 3)
    v.reset(6)
    calls = 400
    for _ in range(calls):
        v.step(v.sample_legal_actions())
    b = v._batch
    assert b.nogil_steps + b.gil_steps == calls * 19
    if game == "elfenland":
        assert b.gil_steps == 0
    else:
        assert 0 < b.gil_steps < b.nogil_steps / 10


@compiled_only
@pytest.mark.parametrize("game", GAMES)
def test_more_threads_than_games_are_clamped(game: str) -> None:
    one, many = batch(game, 5, 3, 1), batch(game, 5, 3, 8)
    assert many.threads == 5
    one.reset(3)
    many.reset(3)
    lockstep(one, many, 2_000, 3)


@compiled_only
def test_a_game_the_threads_cannot_play_is_played_by_the_calling_thread() -> None:
    # A clone shares its original's Rng (copied at the next draw, with Python): such a
    # game is left to the thread holding the GIL, and the arrays stay the same.
    one, many = batch("elfenland", 11, 4, 1), batch("elfenland", 11, 4, 3)
    one.reset(9)
    many.reset(9)
    for v in (one, many):
        for i in (0, 5, 10):  # one in each slice
            v.state(i).clone()
    lockstep(one, many, 3_000, 9)
    assert many._batch.gil_steps > 0 and one._batch.gil_steps == 0


@compiled_only
@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_raises_and_changes_nothing(game: str) -> None:
    one, many = batch(game, 10, 3, 1), batch(game, 10, 3, 4)
    one.reset(5)
    many.reset(5)
    lockstep(one, many, 500, 5)
    before = snapshot(many)
    actions = many.sample_legal_actions().copy()
    bad = actions.copy()
    bad[8] = int(np.flatnonzero(many.mask[8] == 0)[0])  # a game in the last slice
    with pytest.raises(IllegalActionError, match="game 8"):
        many.step(bad)
    for name, array in before.items():
        assert np.array_equal(getattr(many, name), array), name
    assert np.array_equal(one.sample_legal_actions(), actions)
    one.step(actions)
    many.step(actions)
    assert_same(one, many)


def over(v: VectorGames, i: int) -> None:
    """Game i made to refuse every action (its phase set to the game's end)."""
    state: Any = v.state(i)
    state.phase = type(state.phase)["OVER"]


def needs_reset(v: VectorGames) -> None:
    with pytest.raises(RuntimeError, match="reset"):
        v.step(v.actions)
    with pytest.raises(RuntimeError, match="reset"):
        v.sample_legal_actions()


@compiled_only
@pytest.mark.parametrize("slot", [2, 9, 14])  # the calling thread's slice, the 2nd, the 3rd
def test_an_engine_error_in_a_slice_leaves_the_batch_needing_reset(slot: int) -> None:
    v = batch("elfenland", 15, 3, 3)
    v.reset(1)
    v.sample_legal_actions()
    over(v, slot)
    with pytest.raises(RuntimeError, match=f"game {slot}: the engine refused"):
        v.step(v.actions)
    needs_reset(v)
    v.reset(1)  # and a reset makes it whole again, as on one thread
    one = batch("elfenland", 15, 3, 1)
    one.reset(1)
    assert_same(one, v)
    lockstep(one, v, 600, 1)


@compiled_only
def test_an_engines_own_error_crosses_from_its_thread_with_its_type() -> None:
    # An empty counter pile: the draw fails inside the engine, on a thread without the
    # GIL; the engine's error (type and message) is raised by the calling thread.
    v = batch("elfenland", 7, 3, 3)
    v.reset(1)
    state: Any = v.state(5)
    assert state.phase == type(state.phase)["DRAW_SECRET"]
    state.counter_pile = [0] * len(state.counter_pile)
    v.sample_legal_actions()
    with pytest.raises(ValueError, match="draw from an empty pile"):
        v.step(v.actions)
    needs_reset(v)


@compiled_only
def test_the_first_error_in_slot_order_is_raised() -> None:
    # Slices [0, 5), [5, 10), [10, 15): failures in the third and the second slice, and
    # in a game the calling thread plays after the join (a clone's: shared Rng).
    v = batch("elfenland", 15, 3, 3)
    v.reset(2)
    v.sample_legal_actions()
    over(v, 13)
    over(v, 8)
    with pytest.raises(RuntimeError, match="game 8: "):
        v.step(v.actions)
    v.reset(2)
    v.sample_legal_actions()
    over(v, 13)
    v.state(7).clone()
    over(v, 7)
    with pytest.raises(RuntimeError, match="game 7: "):
        v.step(v.actions)
    needs_reset(v)


@compiled_only
def test_a_games_end_that_fails_in_the_calling_thread_leaves_the_batch_needing_reset(
        monkeypatch: pytest.MonkeyPatch) -> None:
    v = batch("elfenland", 9, 2, 3)
    v.reset(4)
    cls = type(v.state(0))

    def broken(self: Any) -> Any:
        raise ZeroDivisionError("returns() broke")

    monkeypatch.setattr(cls, "returns", broken)
    with pytest.raises(ZeroDivisionError, match="returns"):  # at the first game's end
        for _ in range(100_000):
            v.step(v.sample_legal_actions())
    assert v.moves.max() > 10
    needs_reset(v)


def steps_with_company(threads: int, steps: int) -> list[int]:
    """How far a Python thread counts during each ``step`` of 4,096 games.

    With a 60 s switch interval the calling thread keeps the GIL through Python code, so
    the counter can only count while a step runs without the GIL. Whether the counter's
    thread is woken within a step's millisecond is up to the OS scheduler (on a loaded
    machine it often is not), so the steps are repeated: the callers ask for *some* count
    with threads and *none* without.
    """
    v = batch("elfenland", 4096, 2, threads)
    v.reset(0)
    v.sample_legal_actions()
    count, done, started = [0], threading.Event(), threading.Event()

    def counter() -> None:
        started.set()
        while not done.is_set():
            count[0] += 1
            if count[0] % 1000 == 0:
                time.sleep(0)  # hands the GIL back when the step wants it

    interval = sys.getswitchinterval()
    sys.setswitchinterval(60.0)
    thread = threading.Thread(target=counter, daemon=True)
    progress: list[int] = []
    try:
        thread.start()
        started.wait()
        for _ in range(steps):
            before = count[0]
            v.step(v.actions)
            progress.append(count[0] - before)
            v.sample_legal_actions()
            if threads > 1 and sum(p > 0 for p in progress) >= 3:
                break
    finally:
        done.set()
        sys.setswitchinterval(interval)
        thread.join()
    return progress


@compiled_only
def test_the_threads_run_with_the_gil_released() -> None:
    progress = steps_with_company(2, 2000)
    assert any(p > 0 for p in progress), f"no count in {len(progress)} steps"


@compiled_only
def test_one_thread_keeps_the_gil_through_a_step() -> None:
    # The control: the same measure cannot count while a one-thread step holds the GIL.
    assert steps_with_company(1, 50) == [0] * 50


@compiled_only
def test_a_second_call_during_a_threaded_step_is_refused() -> None:
    v = batch("elfenland", 2048, 2, 2)
    v.reset(0)
    v.sample_legal_actions()
    refused: list[str] = []
    done = threading.Event()

    def intruder() -> None:
        while not done.is_set() and not refused:
            try:
                v.state(0)
            except RuntimeError as error:
                refused.append(str(error))
            time.sleep(0)

    thread = threading.Thread(target=intruder, daemon=True)
    thread.start()
    try:
        for _ in range(2000):
            if refused:
                break
            v.step(v.sample_legal_actions())
    finally:
        done.set()
        thread.join()
    assert refused and "busy" in refused[0]


def test_threads_is_a_positive_integer() -> None:
    for bad in (0, -1, True, 2.0, "2"):
        with pytest.raises(ValueError, match="threads"):
            VectorGames("elfenland", 4, 2, threads=bad)  # type: ignore[arg-type]


def test_the_python_loop_takes_threads_and_runs_on_one() -> None:
    py = VectorGames("elfenland", 5, 3, threads=3, compiled=False)
    assert py.threads == 1
    ref = VectorGames("elfenland", 5, 3, threads=3)
    py.reset(8)
    ref.reset(8)
    for _ in range(60):
        actions = ref.sample_legal_actions().copy()
        assert np.array_equal(py.sample_legal_actions(), actions)
        py.step(actions)
        ref.step(actions)
        assert_same(py, ref)


@compiled_only
def test_the_gymnasium_env_takes_threads() -> None:
    one, many = VectorEnv("elfenland", 7, 3), VectorEnv("elfenland", 7, 3, threads=2)
    assert many.games.threads == 2
    one.reset(seed=4)
    many.reset(seed=4)
    for _ in range(200):
        actions = one.sample_legal_actions().copy()
        assert np.array_equal(many.sample_legal_actions(), actions)
        oa, ra, ta, ua, ia = one.step(actions)
        ob, rb, tb, ub, ib = many.step(actions)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb) and np.array_equal(ua, ub)
        assert np.array_equal(ia["rewards"], ib["rewards"])


@compiled_only
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_starts_its_own_threads() -> None:
    # The pool belongs to the process that started it (a forked child, as Gymnasium's
    # AsyncVectorEnv makes, has none of its threads): the child starts its own.
    import os

    one, many = batch("elfenland", 9, 3, 1), batch("elfenland", 9, 3, 3)
    one.reset(12)
    many.reset(12)
    lockstep(one, many, 90, 12)  # the parent's pool is running
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports by its exit status
        status = 1
        try:
            lockstep(one, many, 900, 13)
            status = 0 if many._batch.nogil_steps > 90 else 2
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    lockstep(one, many, 900, 13)  # and the parent's pool still works
