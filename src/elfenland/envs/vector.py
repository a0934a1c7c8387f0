"""A batched environment: N games of one game and rule set stepped by one call.

``VectorGames(game, num_envs, players, **options)`` holds N games and a set of numpy
arrays allocated once; ``reset(seed)`` starts every game, ``step(actions)`` plays one
action id in each and rewrites the arrays in place:

* ``obs`` (N × observation size, float32): the observation of the seat to act now
  (``observation_layout``), relative to that seat;
* ``mask`` (N × action space, int8) and ``legal_ids`` (N × ``legal_width``, int32, the
  legal ids ascending, then -1) with ``num_legal`` (N): the legal actions of that seat;
* ``player`` (N): the seat to act; ``actor`` (N): the seat that played the last action;
* ``rewards`` (N × players, float32): each seat's return when a game ended at this step
  (the engine's ``returns()``: the winners share 1), else 0;
* ``terminated`` / ``truncated`` (N, bool): a game ended at this step, by the rules or at
  ``max_game_length`` actions (King of the Elves only, by default; see
  ``elfenland.envs.openspiel``, where the same cap is explained).  The game is then
  started again at once (automatic reset), so ``obs`` and the legal actions are already
  the new game's;
* ``seeds`` (N, int64): the seed of each slot's current game; ``moves`` (N): its actions;
* ``actions`` (N, int64, writable): the batch's own action array, which
  ``sample_legal_actions()`` fills and ``step`` takes without a conversion or a buffer
  export (the cheapest call at N = 1).

Random play: ``sample_legal_actions(out=None)`` writes a uniformly random legal id of
every game (into ``actions``, or ``out``), drawn in C by a splitmix64 generator per game
that is seeded from the game's own seed at each (re)start: a game's random play depends
on its seed alone, not on N or its slot, and a run is reproducible.

Seeding: ``reset(seed)`` starts slot i with seed ``seed + i``; the k-th game of slot i
(k = 0, 1, …) has seed ``seed + i + N·k``, so no two games of a batch share a seed and a
run is reproducible.  Each game is exactly the single-game engine's
``new_game(game, players=…, seed=…, **options)``: ``tests/envs/test_vector.py`` plays
over 100,000 steps of each game, 2 to 6 players, and demands bit-identical arrays.

On the compiled engines the loop is C (``_vector.c``): it calls the engines' own C
methods through function pointers, with no Python per game per step (a new game and the
final returns go through Python once per game).  On the pure engine (or without a C
compiler) the same loop runs in Python, slowly but alike.

Threads: ``VectorGames(..., threads=k)`` splits the N games into k contiguous slices
(k is clamped to N) played on k native threads with the GIL released: the calling
thread plays the first slice, a pool of k - 1 threads kept for the batch's life the
others, and both ``step`` and ``sample_legal_actions`` use them.  The actions are
checked against the masks before any thread starts (an illegal one still changes
nothing); a thread plays a game only where the step touches no Python object (the
engine's C entry says so per game: its draws come from its random.Random's generator
read in C, its history buffer from the raw allocator) and leaves the rest to the
calling thread, which, with the GIL again, does them in slot order: the games that
ended (their ``returns()``, the factory's next game), the few actions whose logged fact
is a Python tuple (King of the Elves' "no town card" and "stop"), and the first failure
in slot order, raised as on one thread (the batch then needs a reset).  The arrays are
bit-identical to ``threads=1`` whatever k and N (``tests/envs/test_vector_threads.py``).
``threads=1`` (the default) is the single-threaded loop, unchanged.  While a threaded
call runs, other Python threads run too; they must not use the batch (a second call
raises) nor play on its states.  The pure-Python loop accepts ``threads`` and runs on
one thread.

``VectorEnv`` wraps it as a Gymnasium ``VectorEnv`` (turn-based: each observation is the
seat to act's; see ``docs/research.md`` for its conventions and PufferLib).
"""

from __future__ import annotations

import functools
import operator
import os
import sys
from collections.abc import Callable
from typing import Any, Final

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.error import ClosedEnvironmentError
from gymnasium.vector import AutoresetMode

from ..core.errors import ElfenlandError, IllegalActionError
from ..core.game import GameState
from ..games.registry import game_info
from .actions import action_table
from .observation import Layout, encoder_for, num_actions

try:
    from . import _vector  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - built without a C compiler
    _vector = None

#: The sampler of a game of seed s starts at ``_mix64(s ^ SAMPLER_SALT)`` (``_vector.c``).
SAMPLER_SALT: Final = 0x5851F42D4C957F2D
_GAMMA: Final = 0x9E3779B97F4A7C15
_MASK64: Final = (1 << 64) - 1
_INT64_MAX: Final = (1 << 63) - 1

#: King of the Elves has no bound of its own (an empty-handed player may draw and discard
#: for ever): a game is truncated after this many actions, as in the OpenSpiel adapter.
KING_OF_THE_ELVES_MAX_LENGTH: Final = 50_000


def legal_width(game: str) -> int:
    """An upper bound on the legal actions of any position of ``game``: the padded width
    of ``legal_ids``.  Elfenland: every action that is not a move, plus the most moves
    from one town (the boot moves from one town at a time): 2,044."""
    if game != "elfenland":
        return num_actions(game)
    rows = action_table(game).rows
    moves = rows[rows[:, 0] == 9]  # Kind.MOVE
    most = max(int((moves[:, 3] == town).sum()) for town in range(int(moves[:, 3].max()) + 1))
    return int((rows[:, 0] != 9).sum()) + most


def engine_c_api(state: GameState) -> Any:
    """The C entry (a capsule, ``core/_engine_api.h``) of the compiled engine ``state``
    is a state of: its module's ``_c_api`` beside its ``Core``; None on the pure engine."""
    for cls in type(state).__mro__:
        module = sys.modules.get(cls.__module__)
        if getattr(module, "Core", None) is cls:
            return getattr(module, "_c_api", None)
    return None


def _mix64(z: int) -> int:
    """splitmix64's output function (as ``mix64`` in ``_vector.c``)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


class _Sampler:
    """One game's sampler in Python, draw for draw the C loop's (for the pure engine)."""

    def __init__(self, seed: int) -> None:
        self.state = _mix64((seed & _MASK64) ^ SAMPLER_SALT)

    def _next(self) -> int:
        self.state = (self.state + _GAMMA) & _MASK64
        return _mix64(self.state)

    def below(self, bound: int) -> int:
        """Uniform in [0, bound): Lemire's multiply-and-reject, as ``bounded`` in C."""
        m = self._next() * bound
        if m & _MASK64 < bound:
            floor = ((1 << 64) - bound) % bound
            while m & _MASK64 < floor:
                m = self._next() * bound
        return m >> 64


def _action_ids(num_envs: int, actions: Any) -> npt.NDArray[np.int64]:
    """Any action ids other than an int64 array of N, as one (or the error).  A function
    of N alone, not a method: the C batch holds it, and a batch holding its owner would
    make a cycle through a type the garbage collector does not see (a leak).

    Only integers are ids: floats (1.5 would be cut to 1, NaN to an arbitrary integer),
    booleans (a mask's True would be id 1) and objects are refused, not converted."""
    try:
        ids = np.asarray(actions)
    except (TypeError, ValueError, OverflowError) as error:
        raise IllegalActionError(f"action ids, not {actions!r}") from error
    if ids.dtype.kind not in "iu":
        raise IllegalActionError(f"action ids are integers, not {ids.dtype} "
                                 f"({_short(actions)})")
    if ids.dtype.kind == "u" and ids.size and int(ids.max()) > _INT64_MAX:
        raise IllegalActionError(f"action id {int(ids.max())} is out of range")
    if ids.shape != (num_envs,):
        raise IllegalActionError(f"one action id per game: shape ({num_envs},), "
                                 f"not {ids.shape}")
    return np.ascontiguousarray(ids, dtype=np.int64)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class NotAnInteger(ElfenlandError, TypeError):
    """A size, seed or index that is not an integer: a ``TypeError``, and an
    ``ElfenlandError`` (a ``ValueError``, as these arguments' other errors are)."""


def _integer(value: Any, what: str) -> int:
    """``value`` as an int: a Python or numpy integer, not a bool, a float or a string
    (``int()`` would cut 1.7 to 1 or read "12")."""
    if isinstance(value, bool | np.bool_):
        raise NotAnInteger(f"{what} is an integer, not {value!r}")
    try:
        index: int = operator.index(value)
        return index
    except TypeError:
        raise NotAnInteger(f"{what} is an integer, not {_short(value)}") from None


def _seed(seed: Any) -> int:
    """A batch's base seed: an integer in [0, 2**63).  A negative seed is refused: the
    engines play seed -s as seed s, so slot seeds -1 and 1 would be one game."""
    value = _integer(seed, "a seed")
    if not 0 <= value <= _INT64_MAX:
        raise ValueError(f"a seed is in [0, 2**63), not {value}")
    return value


def _memory_limit() -> int | None:
    """The machine's memory: a batch whose arrays need more is refused up front (numpy
    allocates zeroed arrays lazily, and the first writes would meet the OOM killer)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


class VectorGames:
    """N games of one game, player count and rule set, stepped together.

    ``step(actions)``: play ``actions[i]`` (an action id) in game i, for every i.  An id
    that is not legal (by ``mask``) raises ``IllegalActionError`` before any game moves.
    ``actions`` is best the batch's own ``actions`` array (read as it is) or another
    int64 array of N (read through its buffer); anything else is converted.

    ``sample_legal_actions(out=None)``: a uniformly random legal id of every game, in
    ``out`` (a writable int64 array of N) or else in ``actions``; returns that array.
    Deterministic: each game's draws depend on its seed alone (see the module's text).

    Both are attributes set at construction to the loop's own methods, so that a call
    reaches the C loop with no Python frame between.

    ``threads``: the games are split into that many slices played on native threads
    without the GIL (see the module's text); ``self.threads`` is the number used: at most
    N, and 1 on the pure-Python loop (which runs single-threaded) or where the engine's
    draws cannot be made without Python.
    """

    def __init__(self, game: str = "elfenland", num_envs: int = 64, players: int = 4, *,
                 max_game_length: int | None = None, compiled: bool | None = None,
                 threads: int = 1, **options: Any) -> None:
        num_envs = _integer(num_envs, "num_envs")
        if num_envs < 1:
            raise ValueError(f"num_envs is a positive integer, not {num_envs!r}")
        threads = _integer(threads, "threads")
        if threads < 1:
            raise ValueError(f"threads is a positive integer, not {threads!r}")
        threads = min(threads, num_envs)  # the loop clamps k to N (and takes a C int)
        if max_game_length is not None:
            max_game_length = _integer(max_game_length, "max_game_length")
            if not 0 <= max_game_length <= _INT64_MAX:
                raise ValueError(f"max_game_length is 0 (none) or positive (below 2**63), "
                                 f"not {max_game_length}")
        new_game = game_info(game).new_game
        probe = new_game(players=players, seed=0, **options)
        self.game, self.num_envs, self.players, self.options = game, num_envs, players, options
        self.layout: Layout = encoder_for(probe).layout
        self.max_game_length = (KING_OF_THE_ELVES_MAX_LENGTH if game != "elfenland" else 0) \
            if max_game_length is None else max_game_length
        n, size, nact = num_envs, self.layout.size, num_actions(game)
        self.num_actions = nact
        self.legal_width = legal_width(game)
        need = n * (4 * size + nact + 4 * self.legal_width + 4 * 4 + 4 * players + 2 + 8 * 4)
        limit = _memory_limit()
        if limit is not None and need > limit:
            raise ValueError(f"num_envs={n}: the arrays need {need / 2**30:.1f} GiB, more "
                             f"than this machine's {limit / 2**30:.1f} GiB of memory")
        # The loop writes into these; the public attributes are read-only views of them,
        # so that a learner writing into an observation (normalising it in place, say)
        # fails loudly instead of corrupting the batch (the mask is also what ``step``
        # checks the actions against).
        w: dict[str, Any] = {
            "obs": np.zeros((n, size), np.float32),
            "mask": np.zeros((n, nact), np.int8),
            "legal_ids": np.full((n, self.legal_width), -1, np.int32),
            "num_legal": np.zeros(n, np.int32),
            "player": np.zeros(n, np.int32),
            "actor": np.full(n, -1, np.int32),
            "rewards": np.zeros((n, players), np.float32),
            "terminated": np.zeros(n, np.bool_),
            "truncated": np.zeros(n, np.bool_),
            "seeds": np.zeros(n, np.int64),
            "moves": np.zeros(n, np.int64),
            "actions": np.zeros(n, np.int64),
        }
        self._w = w
        #: The batch's own action ids (writable: a learner may write its choices here):
        #: ``step(games.actions)`` reads it with no conversion.
        self.actions: npt.NDArray[np.int64] = w["actions"]

        def view(name: str) -> Any:
            out = w[name].view()
            out.flags.writeable = False
            return out

        self.obs: npt.NDArray[np.float32] = view("obs")
        self.mask: npt.NDArray[np.int8] = view("mask")
        self.legal_ids: npt.NDArray[np.int32] = view("legal_ids")
        self.num_legal: npt.NDArray[np.int32] = view("num_legal")
        self.player: npt.NDArray[np.int32] = view("player")
        self.actor: npt.NDArray[np.int32] = view("actor")
        self.rewards: npt.NDArray[np.float32] = view("rewards")
        self.terminated: npt.NDArray[np.bool_] = view("terminated")
        self.truncated: npt.NDArray[np.bool_] = view("truncated")
        self.seeds: npt.NDArray[np.int64] = view("seeds")
        self.moves: npt.NDArray[np.int64] = view("moves")

        def factory(seed: int) -> GameState:
            return new_game(players=players, seed=seed, **options)

        c_api = engine_c_api(probe)
        fast = _vector is not None and c_api is not None and hasattr(probe, "_observe_into")
        if compiled and not fast:
            raise ValueError("the compiled batch needs the compiled engine and _vector")
        self.compiled = fast if compiled is None else bool(compiled)
        self._batch: Any
        convert = functools.partial(_action_ids, n)
        if self.compiled:
            self._batch = _vector.Batch(
                factory, probe, c_api, n, players, size, nact, self.legal_width,
                self.max_game_length, IllegalActionError, convert, *(w[k] for k in (
                    "obs", "mask", "legal_ids", "num_legal", "player", "actor", "rewards",
                    "terminated", "truncated", "seeds", "moves", "actions")), threads)
            self.threads: int = self._batch.threads
        else:
            self._batch = _PythonBatch(self, factory, convert)
            self.threads = 1
        # The calls a learner makes every step go to the loop with no Python frame
        # between (at N = 1 a frame was a tenth of a step): see the class's text.
        self.step: Callable[[Any], None] = self._batch.step
        self.sample_legal_actions: Callable[..., npt.NDArray[np.int64]] = self._batch.sample

    def reset(self, seed: int = 0) -> None:
        """Every slot starts a new game: slot i with seed ``seed + i`` (an integer in
        [0, 2**63); the seeds of later games wrap around below 2**63)."""
        self._batch.reset(_seed(seed))

    def state(self, i: int) -> GameState:
        """Game i's engine state (to read; playing on it breaks the batch's arrays)."""
        i = _integer(i, "a game index")
        if not 0 <= i < self.num_envs:
            raise IndexError(f"no game {i}: the games are 0 to {self.num_envs - 1}")
        return self._batch.state(i)  # type: ignore[no-any-return]


class _Arrays:
    """The batch's writable arrays and sizes, by the names ``VectorGames`` shows."""

    def __init__(self, games: VectorGames) -> None:
        self.num_envs, self.num_actions = games.num_envs, games.num_actions
        self.legal_width, self.max_game_length = games.legal_width, games.max_game_length
        for name, array in games._w.items():
            setattr(self, name, array)

    obs: Any
    mask: Any
    legal_ids: Any
    num_legal: Any
    player: Any
    actor: Any
    rewards: Any
    terminated: Any
    truncated: Any
    seeds: Any
    moves: Any
    actions: Any


class _PythonBatch:
    """The same loop in Python, for the pure engine (the C loop's semantics exactly);
    single-threaded whatever ``threads`` the batch was given (Python holds the GIL)."""

    def __init__(self, games: VectorGames, factory: Callable[[int], GameState],
                 convert: Callable[[Any], npt.NDArray[np.int64]]) -> None:
        self.g = _Arrays(games)
        self.factory = factory
        self.convert = convert
        self.states: list[GameState] = []
        self.samplers: list[_Sampler] = []
        self.episode = [0] * games.num_envs
        self.base = 0
        self.encoder = encoder_for(factory(0))
        self.started = False
        #: A step or reset runs (the C loop's ``busy``: a call from inside it is refused).
        self.busy = False

    def _enter(self) -> None:
        if self.busy:
            raise RuntimeError("the batch is busy (called again from inside its own step "
                               "or reset)")
        self.busy = True

    def _start(self, i: int) -> None:
        g = self.g
        seed = (self.base + i + g.num_envs * self.episode[i]) & _INT64_MAX
        self.states[i] = self.factory(seed)
        self.samplers[i] = _Sampler(seed)
        g.seeds[i] = seed
        g.moves[i] = 0

    def _refresh(self, i: int) -> None:
        g, s = self.g, self.states[i]
        p = s.current_player()
        g.player[i] = p
        g.obs[i] = self.encoder.encode(s, p)
        ids = sorted(s.legal_action_ids())
        if len(ids) > g.legal_width:
            raise RuntimeError(f"game {i}: {len(ids)} legal actions (width {g.legal_width})")
        old = int(g.num_legal[i])
        g.mask[i, g.legal_ids[i, :old]] = 0
        g.legal_ids[i, :len(ids)] = ids
        g.legal_ids[i, len(ids):max(old, len(ids))] = -1
        g.mask[i, ids] = 1
        g.num_legal[i] = len(ids)

    def reset(self, seed: int) -> None:
        self._enter()
        try:
            self._reset(seed)
        finally:
            self.busy = False

    def _reset(self, seed: int) -> None:
        g = self.g
        self.base = seed
        self.episode = [0] * g.num_envs
        self.states = [self.factory(0)] * g.num_envs
        self.samplers = [_Sampler(0)] * g.num_envs
        g.mask[:] = 0
        g.legal_ids[:] = -1
        g.num_legal[:] = 0
        g.rewards[:] = 0
        g.terminated[:] = False
        g.truncated[:] = False
        g.actor[:] = -1
        for i in range(g.num_envs):
            self._start(i)
            self._refresh(i)
        self.started = True

    def step(self, actions: Any) -> None:
        self._enter()
        try:
            self._step(actions)
        finally:
            self.busy = False

    def _step(self, actions: Any) -> None:
        g = self.g
        if not self.started:
            raise IllegalActionError("reset() first")
        if not (isinstance(actions, np.ndarray) and actions.dtype == np.int64
                and actions.shape == (g.num_envs,)):
            actions = self.convert(actions)
        # One copy, checked and then played (the C loop's too): nothing the step runs
        # can change an id between its check and its play.
        ids = actions.tolist()
        for i, a in enumerate(ids):
            if not 0 <= a < g.num_actions or not g.mask[i, a]:
                raise IllegalActionError(f"game {i}: action {a} is not legal now")
        g.rewards[:] = 0
        g.terminated[:] = False
        g.truncated[:] = False
        for i, a in enumerate(ids):
            s = self.states[i]
            s.apply_action(a)
            g.actor[i] = g.player[i]
            g.moves[i] += 1
            if s.is_terminal():
                g.rewards[i] = s.returns()
                g.terminated[i] = True
            elif g.max_game_length and g.moves[i] >= g.max_game_length:
                g.truncated[i] = True
            if g.terminated[i] or g.truncated[i]:
                self.episode[i] += 1
                self._start(i)
            self._refresh(i)

    def sample(self, out: Any = None) -> Any:
        g = self.g
        if not self.started:
            raise IllegalActionError("reset() first")
        if out is None:
            out = g.actions
        elif not (isinstance(out, np.ndarray) and out.dtype == np.int64
                  and out.shape == (g.num_envs,) and out.flags.writeable
                  and out.flags.c_contiguous):
            raise ValueError(f"out: a writable int64 array of {g.num_envs} ids")
        for i, sampler in enumerate(self.samplers):
            out[i] = g.legal_ids[i, sampler.below(int(g.num_legal[i]))]
        return out

    def state(self, i: int) -> GameState:
        return self.states[i]


class ClosedVectorEnv(ElfenlandError, ClosedEnvironmentError):
    """A closed ``VectorEnv`` was stepped, reset or sampled: Gymnasium's
    ``ClosedEnvironmentError``, and an ``ElfenlandError`` (a ``ValueError``)."""


class VectorEnv(gymnasium.vector.VectorEnv):
    """``VectorGames`` as a Gymnasium ``VectorEnv``, turn-based.

    * observation: a dict of ``observation`` (N × size, the seat to act's vector) and
      ``action_mask`` (N × action space, int8), as the PettingZoo environment's;
    * action: one action id per game (``MultiDiscrete``);
    * reward: the return of the seat that just acted, when its game ended at this step
      (else 0); every seat's is in ``info["rewards"]`` (N × players), which a
      self-play learner credits to the seats' own past steps;
    * ``info`` also holds ``player`` (the seat to act now), ``actor``, ``legal_ids`` and
      ``num_legal``, ``seeds``;
    * autoreset: ``SAME_STEP`` (the observation after an end is already the new game's);
    * ``sample_legal_actions()``: a uniformly random legal id per game, drawn in C and
      seeded by ``reset`` (what ``action_space.sample(mask=tuple(obs["action_mask"]))``
      draws, without numpy's cost per game or its own seeding).
    * ``threads=k``: the games stepped on k native threads without the GIL (see
      ``VectorGames``; 1 on the pure-Python loop).

    The arrays are the batch's own, rewritten by the next ``step``: copy what you keep.
    """

    def __init__(self, game: str = "elfenland", num_envs: int = 64, players: int = 4, *,
                 threads: int = 1, **options: Any) -> None:
        self.games = VectorGames(game, num_envs, players, threads=threads, **options)
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
        num_envs = self.num_envs = self.games.num_envs
        g = self.games
        high = g.layout.high()
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (g.num_actions,), dtype=np.int8)})
        self.single_action_space = spaces.Discrete(g.num_actions)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.tile(high, (num_envs, 1)), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (num_envs, g.num_actions), dtype=np.int8)})
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, g.num_actions))
        self._reward = np.zeros(num_envs, np.float32)
        self._rows = np.arange(num_envs)

    def _observation(self) -> dict[str, Any]:
        return {"observation": self.games.obs, "action_mask": self.games.mask}

    def _info(self) -> dict[str, Any]:
        g = self.games
        return {"player": g.player, "actor": g.actor, "rewards": g.rewards,
                "legal_ids": g.legal_ids, "num_legal": g.num_legal, "seeds": g.seeds}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        self._check_open()
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**62)  # type: ignore[operator]
        self.games.reset(seed)
        return self._observation(), self._info()

    def _check_open(self) -> None:
        if self.closed:
            raise ClosedVectorEnv("the environment is closed")

    def sample_legal_actions(self, out: Any = None) -> npt.NDArray[np.int64]:
        """A uniformly random legal id of every game (see ``VectorGames``)."""
        if self.closed:
            self._check_open()
        return self.games.sample_legal_actions(out)

    def step(self, actions: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        if self.closed:
            self._check_open()
        g = self.games
        g.step(actions)
        np.copyto(self._reward, g.rewards[self._rows, g.actor])
        return self._observation(), self._reward, g.terminated, g.truncated, self._info()
