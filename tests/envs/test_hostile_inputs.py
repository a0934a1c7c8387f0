"""The research APIs under careless or hostile input: the batched environment, its
Gymnasium wrapper, the structured action table, the PettingZoo and OpenSpiel adapters.
Every bad input gets a typed error with a clear message (an ``ElfenlandError`` or
another ``ValueError``/``TypeError``, or the adapter's own error that is also one), and
a refused call changes nothing."""

from __future__ import annotations

import base64
import gc
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from .conftest import need

np = need("numpy")
need("gymnasium")

from elfenland.core.errors import ActionParseError, ElfenlandError, IllegalActionError  # noqa: E402
from elfenland.envs.actions import action_table  # noqa: E402
from elfenland.envs.vector import VectorEnv, VectorGames  # noqa: E402

BACKENDS = [None, False]  # the C loop, the Python loop

_ARRAYS = ("obs", "mask", "legal_ids", "num_legal", "player", "actor", "rewards",
           "terminated", "truncated", "seeds", "moves")


def snapshot(v: VectorGames) -> list[Any]:
    return [getattr(v, name).copy() for name in _ARRAYS] + [
        [v.state(i).history_length() for i in range(v.num_envs)]]


def assert_unchanged(v: VectorGames, before: list[Any]) -> None:
    now = snapshot(v)
    for name, a, b in zip((*_ARRAYS, "histories"), before, now, strict=True):
        assert np.array_equal(a, b), name


# ----------------------------------------------------------------- the batch: action ids


@pytest.mark.parametrize("compiled", BACKENDS)
def test_float_bool_and_wrapped_action_ids_are_refused(compiled: bool | None) -> None:
    """Before: floats were cut to integers and played (legal id + 0.5 played the id),
    a bool array played ids 0 and 1, NaN became -2**63; a uint64 id beyond 2**63 was
    reported as a negative id."""
    v = VectorGames("elfenland", 4, 3, compiled=compiled)
    v.reset(1)
    good = v.legal_ids[:, 0].astype(np.int64)
    before = snapshot(v)
    for bad in (good + 0.5, good.astype(np.float64), np.full(4, np.nan), np.ones(4, bool),
                [float(a) for a in good], np.array([object()] * 4, dtype=object)):
        with pytest.raises(IllegalActionError, match="integers"):
            v.step(bad)
    with pytest.raises(IllegalActionError, match=str(2**63 + 5)):
        v.step(np.full(4, 2**63 + 5, np.uint64))
    assert_unchanged(v, before)
    for fine in (good.astype(np.int32), good.astype(np.uint16), list(good), good[::-1][::-1]):
        w = VectorGames("elfenland", 4, 3, compiled=compiled)
        w.reset(1)
        w.step(fine)
        assert (w.moves == 1).all()


def _arm(callback: Callable[[], None]) -> Iterator[None]:
    """Runs ``callback`` once at the first garbage collection inside the block: with a
    threshold of 1 the first allocation of a container collects, so Python code runs in
    the middle of a step, where a game ends and the factory starts the next one."""
    fired = []

    def hook(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and not fired:
            fired.append(True)
            callback()

    old = gc.get_threshold()
    gc.callbacks.append(hook)
    gc.set_threshold(1)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.callbacks.remove(hook)
    assert fired


arm = contextmanager(_arm)


@pytest.mark.parametrize("compiled", BACKENDS)
def test_an_id_changed_during_the_step_is_not_played(compiled: bool | None) -> None:
    """Before (the C loop): the ids were checked, then read again game by game, so an
    array changed while the step ran Python (a game's end: the factory) played an id
    never checked (here -1: the engine refused it, the batch then needed a reset)."""
    v = VectorGames("elfenland", 3, 3, compiled=compiled, max_game_length=1)
    v.reset(0)
    ids = v.legal_ids[:, 0].astype(np.int64)
    np.copyto(v.actions, ids)

    def scribble() -> None:
        v.actions[:] = -1

    with arm(scribble):
        v.step(v.actions)  # every game ends at its first action (max_game_length=1)
    assert (v.actor == 0).all() and v.truncated.all()
    assert list(v.seeds) == [3, 4, 5]
    v.step(v.legal_ids[:, 0].astype(np.int64))  # still usable


@pytest.mark.parametrize("compiled", BACKENDS)
def test_a_step_from_inside_a_step_is_refused(compiled: bool | None) -> None:
    """Before (the C loop): a second step started from Python code the first one ran
    (a game's end) played the batch half-way through the first."""
    v = VectorGames("elfenland", 3, 3, compiled=compiled, max_game_length=1)
    twin = VectorGames("elfenland", 3, 3, compiled=compiled, max_game_length=1)
    v.reset(0)
    twin.reset(0)
    refused: list[str] = []

    def again() -> None:
        try:
            v.step(v.legal_ids[:, 0].astype(np.int64))
        except RuntimeError as exc:
            refused.append(str(exc))
        try:
            v.reset(5)
        except RuntimeError as exc:
            refused.append(str(exc))

    ids = v.legal_ids[:, 0].astype(np.int64)
    with arm(again):
        v.step(ids)
    twin.step(ids)
    assert len(refused) == 2 and all("busy" in r for r in refused)
    for name in _ARRAYS:
        assert np.array_equal(getattr(v, name), getattr(twin, name)), name


# ----------------------------------------------------------------- the batch: seeds


@pytest.mark.parametrize("compiled", BACKENDS)
def test_reset_takes_an_integer_seed_in_range(compiled: bool | None) -> None:
    """Before: a negative seed was taken (the engines play seed -s as seed s, so slots
    of seeds -1 and 1 played one game), 2**64 + 3 raised OverflowError, a numpy integer
    was refused."""
    v = VectorGames("elfenland", 4, 3, compiled=compiled)
    v.reset(7)
    before = snapshot(v)
    for bad in (-1, -5, 2**63, 2**64 + 3):
        with pytest.raises(ValueError, match="seed"):
            v.reset(bad)
    for bad in (1.5, "3", True, None, [1, 2], np.float64(2.0)):
        with pytest.raises(TypeError, match="seed"):
            v.reset(bad)  # type: ignore[arg-type]
    assert_unchanged(v, before)
    v.reset(np.int64(3))
    w = VectorGames("elfenland", 4, 3, compiled=compiled)
    w.reset(3)
    for name in _ARRAYS:
        assert np.array_equal(getattr(v, name), getattr(w, name)), name


@pytest.mark.parametrize("compiled", BACKENDS)
def test_seeds_near_the_top_wrap_below_2_63(compiled: bool | None) -> None:
    """Before: base + i + N·k overflowed a signed 64-bit integer (undefined behaviour in
    C, which gave negative seeds; the Python loop raised OverflowError half-way through
    a reset, leaving the batch half reset)."""
    top = 2**63 - 1
    v = VectorGames("elfenland", 4, 3, compiled=compiled, max_game_length=1)
    v.reset(top - 1)
    assert [int(s) for s in v.seeds] == [top - 1, top, 0, 1]
    v.step(v.legal_ids[:, 0].astype(np.int64))  # every game ends: seed + 4
    assert [int(s) for s in v.seeds] == [2, 3, 4, 5]


def test_gymnasium_reset_does_not_cut_a_float_seed() -> None:
    """Before: ``VectorEnv.reset(seed=1.7)`` played seed 1, ``seed="12"`` seed 12."""
    env = VectorEnv("elfenland", 2, 3)
    env.reset(seed=4)
    before = snapshot(env.games)
    for bad in (1.7, "12", True):
        with pytest.raises(TypeError, match="seed"):
            env.reset(seed=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-2)
    assert_unchanged(env.games, before)
    env.reset(seed=np.uint64(4))
    assert list(env.games.seeds) == [4, 5]


def test_a_closed_gymnasium_env_refuses_to_play() -> None:
    """Before: a closed ``VectorEnv`` kept stepping and resetting."""
    from gymnasium.error import ClosedEnvironmentError

    env = VectorEnv("elfenland", 2, 3)
    env.reset(seed=0)
    env.close()
    for call in (lambda: env.step(np.zeros(2, np.int64)), lambda: env.reset(seed=1),
                 env.sample_legal_actions):
        with pytest.raises(ClosedEnvironmentError) as info:
            call()
        assert isinstance(info.value, ElfenlandError)
    env.close()  # twice is fine


@pytest.mark.parametrize("compiled", BACKENDS)
def test_state_takes_an_index_in_range(compiled: bool | None) -> None:
    """Before: the Python loop's ``state(-1)`` gave the last game, the C loop refused a
    numpy integer."""
    v = VectorGames("elfenland", 3, 3, compiled=compiled)
    v.reset(0)
    for bad in (-1, 3, 2**70):
        with pytest.raises(IndexError, match="no game"):
            v.state(bad)
    with pytest.raises(TypeError):
        v.state(1.0)  # type: ignore[arg-type]
    assert v.state(np.int64(2)) is v.state(2)


def test_the_constructor_checks_its_sizes() -> None:
    """Before: threads=2**40 raised OverflowError (the C int), max_game_length=2**70
    OverflowError and 1.5 was cut to 1, num_envs=True a bare "an integer is required",
    a numpy num_envs was refused, and 2**40 games asked numpy for 2 PiB."""
    assert VectorGames("elfenland", 3, 2, threads=2**40).threads in (1, 3)
    assert VectorGames("elfenland", np.int64(2), 2).num_envs == 2
    with pytest.raises(ValueError, match="max_game_length"):
        VectorGames("king-of-the-elves", 2, 2, max_game_length=2**70)
    for bad in ({"max_game_length": 1.5}, {"num_envs": True}, {"threads": 2.0},
                {"num_envs": "3"}):
        with pytest.raises(TypeError):
            VectorGames("elfenland", **{"num_envs": 2, "players": 2, **bad})
    with pytest.raises(ValueError, match="GiB"):
        VectorGames("elfenland", 2**40, 2)


# ----------------------------------------------------------------- structured actions


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves"])
def test_of_refuses_ids_outside_the_action_space(game: str) -> None:
    """Before: id ``num_actions`` gave the padding's row of -1, -2 the last action's
    row, 1.5 the row of 1 and True the row of 1, all silently."""
    table = action_table(game)
    n = len(table.rows)
    for bad in ([n], [-2], [0, 5, -n], np.array([[0, n + 7]]), [2**40]):
        with pytest.raises(ActionParseError, match="id"):
            table.of(bad)
    for bad in ([1.5], [True], np.ones(3, bool), [None]):
        with pytest.raises(ActionParseError, match="integers"):
            table.of(bad)
    assert np.array_equal(table.of([-1, 0, n - 1]), table.padded[[-1, 0, n - 1]])
    assert table.of([]).shape == (0, len(table.columns))
    assert table.of(np.array([[3, -1]], np.int32)).shape == (1, 2, len(table.columns))


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves"])
def test_compose_refuses_a_row_of_non_integers(game: str) -> None:
    """Before: each value went through ``int()``, so a row of floats near an action's
    row composed to that action."""
    table = action_table(game)
    i = next(i for i in range(len(table.rows)) if table.rows[i].min() >= 0)
    assert table.compose(table.rows[i]) == i
    with pytest.raises(ActionParseError, match="integers"):
        table.compose([float(x) + 0.4 for x in table.rows[i]])
    with pytest.raises(ActionParseError, match="integers"):
        table.compose(["1"] * len(table.columns))


# ----------------------------------------------------------------- PettingZoo


def test_pettingzoo_raw_env_without_an_agent_to_act() -> None:
    """Before: the bare environment raised AttributeError (step, last before reset) or
    KeyError (once every agent had left), and ``observe`` of an unknown agent a bare
    KeyError."""
    need("pettingzoo")
    from elfenland.envs.pettingzoo import NoAgentToAct, UnknownAgent, raw_env

    env = raw_env("king-of-the-elves", players=2)
    with pytest.raises(NoAgentToAct, match="reset"):
        env.step(0)
    with pytest.raises(NoAgentToAct, match="reset"):
        env.last()
    env.reset(seed=np.int64(4))
    twin = raw_env("king-of-the-elves", players=2)
    twin.reset(seed=4)
    assert env.infos == twin.infos
    for bad in ("player_2", None, 0):
        with pytest.raises(UnknownAgent) as info:
            env.observe(bad)  # type: ignore[arg-type]
        assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
        assert "no agent" in str(info.value)
    rng = np.random.default_rng(0)
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(env.infos[env.agent_selection]["legal_actions"])))
    with pytest.raises(ValueError, match="None"):  # PettingZoo's: a dead agent steps None
        env.step(0)
    while env.agents:
        env.step(None)
    for call in (lambda: env.step(None), lambda: env.step(3), env.last):
        with pytest.raises(NoAgentToAct, match="left"):
            call()


# ----------------------------------------------------------------- OpenSpiel

_called: list[str] = []


def _mark(*args: Any) -> dict[str, Any]:
    """What a hostile saved state makes pickle call (module level, so pickle finds it)."""
    _called.append("called")
    return {}


class _Hostile:
    def __reduce__(self) -> tuple[Any, ...]:
        return (_mark, ("x",))


def _spiel() -> Any:
    need("pyspiel")
    import pyspiel

    import elfenland.envs.openspiel as adapter
    return pyspiel, adapter


def test_deserialize_state_of_garbage_raises_and_changes_nothing() -> None:
    """Before: OpenSpiel's own checks (``SpielError`` "python_games.cc:413 pieces.size()
    == 3"), pickle's ``UnpicklingError`` for a cut text, and each refused text had
    already drawn a seed from the game's sequence (the next new game changed)."""
    pyspiel, adapter = _spiel()
    game = pyspiel.load_game("python_elfenland", {"players": 3})
    twin = pyspiel.load_game("python_elfenland", {"players": 3})
    good = game.new_initial_state()
    twin.new_initial_state()
    good.apply_action(good.legal_actions()[0])
    text = good.serialize()
    head = text.split("\n")[0] + "\n" + text.split("\n")[1] + "\n__dict__="
    for bad in ("", "garbage", "{}", "1\n2\n3", text[: len(text) // 2], text + "!",
                text.replace("history=", "history=x:y,"), head + "@@@@",
                head + base64.b64encode(pickle.dumps({"_e": 3})).decode(),
                head + base64.b64encode(pickle.dumps([1, 2])).decode()):
        with pytest.raises(adapter.BadSpielState) as info:
            game.deserialize_state(bad)
        assert isinstance(info.value, pyspiel.SpielError)
        assert isinstance(info.value, ElfenlandError)
    with pytest.raises(TypeError):
        game.deserialize_state(None)
    with pytest.raises(TypeError):
        adapter.deserialize_game_and_state(None)
    assert str(game.new_initial_state()) == str(twin.new_initial_state())
    again = game.deserialize_state(text)
    assert str(again) == str(good) and again.history() == good.history()


def test_deserialize_state_runs_no_code_from_the_text() -> None:
    """Before: the text's pickle was loaded with ``pickle.loads``, which called any
    function the text named."""
    pyspiel, adapter = _spiel()
    game = pyspiel.load_game("python_king_of_the_elves", {"players": 2})
    evil = "history=\nmove_number=0\n__dict__=" + base64.b64encode(
        pickle.dumps({"_e": _Hostile()})).decode()
    _called.clear()
    with pytest.raises(adapter.BadSpielState, match="names no"):
        game.deserialize_state(evil)
    assert _called == []


def test_deserialize_state_of_another_game_is_refused() -> None:
    """Before: a 4-player state read into a 3-player game (or a Moon state into an Amigo
    game) was taken silently: a game of 3 players holding a 4-player engine."""
    pyspiel, adapter = _spiel()
    three = pyspiel.load_game("python_elfenland", {"players": 3})
    for other in ({"players": 4}, {"players": 3, "rules": "moon"}):
        text = pyspiel.load_game("python_elfenland", other).new_initial_state().serialize()
        with pytest.raises(adapter.BadSpielState, match=r"another game|other parameters"):
            three.deserialize_state(text)
    koe = pyspiel.load_game("python_king_of_the_elves", {"players": 3})
    with pytest.raises(adapter.BadSpielState):
        koe.deserialize_state(three.new_initial_state().serialize())


def test_resample_checks_its_sampler() -> None:
    """Before: a sampler giving 1e300 raised OverflowError, one giving -0.5 or 1.5
    (outside OpenSpiel's [0, 1)) was used as it was."""
    pyspiel, _ = _spiel()
    game = pyspiel.load_game("python_elfenland", {"players": 3})
    state = game.new_initial_state()
    for draw in (1e300, -0.5, 1.0, 1.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="sampler"):
            state.resample_from_infostate(0, lambda d=draw: d)
    assert state.resample_from_infostate(0, lambda: 0.25).current_player() == 0
