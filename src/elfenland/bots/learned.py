"""The ``learned`` level: the policy trained by ``examples/train_selfplay.py`` (the
greedy bot cloned with DAgger rounds, for King of the Elves then 200 rollouts of
self-play PPO; 4-player Elfenland and 4-player King of the Elves), played from weights
shipped with the package, without PyTorch.  The ``learned-planner`` level (Elfenland)
lets the greedy bot's exact planner make the policy's journeys: the move phase is where
the cloned policy falls furthest behind.

The trainer's network scores each legal action by a dot product: the observation of the
seat to act goes through two ReLU layers and a linear *query*; each action's structured
row (``elfenland.envs.action_rows``) selects one embedding per column, summed, then ReLU
and a linear *mix*.  The bot runs that forward pass with numpy when it is installed
(float32, as torch does) and in pure Python otherwise (float64; the same scores to about
1e-6, and the same choices), so a server without the ``[rl]`` extra can seat it too.
The pure path uses two facts: the observation is sparse (a few hundred of ~760 numbers
are non-zero), and ``mix`` is linear after the ReLU, so an action's score is
``relu(sum of its embeddings) · (mixᵀ query) + bias · query``: the per-action part does
not depend on the position and is cached by id.

The bot plays the policy's most likely action (the first of equal scores), which is
what the training log's win rates measure.  The weights file (``weights/*.elfw``,
written by ``examples/export_learned.py``) is a small header (JSON: the game, player
count, observation size and versions the policy was trained on, tensor shapes, training
figures) and the float32 tensors, little-endian: it loads with ``array`` and ``struct``.
A state whose game, player count or observation does not match raises
``ElfenlandError`` rather than play from a vector the network never saw.
"""

from __future__ import annotations

import json
import struct
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from ..core.errors import ElfenlandError
from ..core.game import Action, GameState
from .base import Bot

#: The first bytes of a weights file, and the version of its layout.
MAGIC: Final = b"ELFW"
FORMAT_VERSION: Final = 1

#: game -> the shipped weights file (in ``elfenland/bots/weights/``).
SHIPPED: Final[dict[str, str]] = {
    "elfenland": "elfenland-4p.elfw",
    "king-of-the-elves": "king-of-the-elves-4p.elfw",
}

#: The tensors a weights file holds, in order (the trainer's ``state_dict`` names).
TENSORS: Final = ("body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias",
                  "query.weight", "query.bias", "value.weight", "value.bias",
                  "embed.weight", "mix.1.weight", "mix.1.bias")


@dataclass(frozen=True)
class Weights:
    """One policy's tensors (flat float32 arrays, row-major) and what it was trained on."""

    header: dict[str, Any]
    tensors: dict[str, array[float]]
    shapes: dict[str, tuple[int, ...]]

    @property
    def game(self) -> str:
        return str(self.header["game"])

    @property
    def players(self) -> int:
        return int(self.header["players"])

    @property
    def obs_size(self) -> int:
        return int(self.header["obs_size"])

    @property
    def offsets(self) -> list[int]:
        """Where each action-row column's values start in ``embed.weight`` (a column's
        value v, from -1 up, is row ``v + 1 + offset``)."""
        return [int(o) for o in self.header["column_offsets"]]

    def fits_compiled(self, state: GameState) -> bool:
        """Whether ``state`` is this policy's game and player count on the compiled
        engine, whose observation buffer (``_observe_into``) it was trained on."""
        size = getattr(state, "_observation_size", None)
        return (state.game_name == self.game and state.num_players == self.players
                and size is not None and size() == self.obs_size)

    def matrix(self, name: str) -> list[array[float]]:
        """A 2-D tensor as a list of its rows."""
        rows, cols = self.shapes[name]
        flat = self.tensors[name]
        return [flat[r * cols:(r + 1) * cols] for r in range(rows)]

    def to_bytes(self) -> bytes:
        header = dict(self.header, tensors=[[n, list(self.shapes[n])] for n in TENSORS])
        text = json.dumps(header, sort_keys=True).encode()
        body = b"".join(_little_endian(self.tensors[n]).tobytes() for n in TENSORS)
        return MAGIC + struct.pack("<II", FORMAT_VERSION, len(text)) + text + body

    @classmethod
    def from_bytes(cls, data: bytes) -> Weights:
        if data[:4] != MAGIC or len(data) < 12:
            raise ElfenlandError("not a learned-policy weights file")
        version, size = struct.unpack_from("<II", data, 4)
        if version != FORMAT_VERSION:
            raise ElfenlandError(f"weights file format {version}; this code reads "
                                 f"{FORMAT_VERSION}")
        header = json.loads(data[12:12 + size])
        at = 12 + size
        tensors: dict[str, array[float]] = {}
        shapes: dict[str, tuple[int, ...]] = {}
        for name, shape in header.pop("tensors"):
            count = 1
            for d in shape:
                count *= int(d)
            flat = array("f")
            flat.frombytes(data[at:at + 4 * count])
            if len(flat) != count:
                raise ElfenlandError(f"weights file cut short in {name}")
            tensors[name] = _little_endian(flat)
            shapes[name] = tuple(int(d) for d in shape)
            at += 4 * count
        if at != len(data) or set(tensors) != set(TENSORS):
            raise ElfenlandError("weights file does not hold the policy's tensors")
        return cls(header, tensors, shapes)


def _little_endian(a: array[float]) -> array[float]:
    if sys.byteorder == "little":
        return a
    b = array("f", a)
    b.byteswap()
    return b


@cache
def shipped_weights(game: str) -> Weights:
    """The weights shipped for ``game`` (read once per process)."""
    try:
        name = SHIPPED[game]
    except KeyError:
        raise ElfenlandError(f"there are no learned weights for {game}") from None
    data = resources.files("elfenland.bots").joinpath("weights", name).read_bytes()
    return Weights.from_bytes(data)


# ----------------------------------------------------------------- forward passes


class PurePolicy:
    """The forward pass in pure Python (float64 arithmetic on the float32 weights)."""

    def __init__(self, weights: Weights) -> None:
        from ..envs.action_rows import row_function

        w = weights
        obs = w.shapes["body.0.weight"][1]
        # The first layer by input column: only the observation's non-zero numbers count.
        first = w.tensors["body.0.weight"]
        self.columns = [first[j::obs].tolist() for j in range(obs)]
        self.b1 = w.tensors["body.0.bias"].tolist()
        self.w2 = [r.tolist() for r in w.matrix("body.2.weight")]
        self.b2 = w.tensors["body.2.bias"].tolist()
        self.wq = [r.tolist() for r in w.matrix("query.weight")]
        self.bq = w.tensors["query.bias"].tolist()
        self.embed = [r.tolist() for r in w.matrix("embed.weight")]
        self.wm = [r.tolist() for r in w.matrix("mix.1.weight")]
        self.bm = w.tensors["mix.1.bias"].tolist()
        self.offsets = [o + 1 for o in w.offsets]
        self.row = row_function(w.game)
        self.cache: dict[int, list[float]] = {}

    def query(self, obs: Sequence[float]) -> list[float]:
        h = list(self.b1)
        for j, x in enumerate(obs):
            if x:
                h = [a + x * c for a, c in zip(h, self.columns[j], strict=True)]
        h = [a if a > 0 else 0.0 for a in h]
        h2 = [b + sum(w * x for w, x in zip(r, h, strict=True)) for r, b in zip(self.w2, self.b2,
                                                                             strict=True)]
        h2 = [a if a > 0 else 0.0 for a in h2]
        return [b + sum(w * x for w, x in zip(r, h2, strict=True))
                for r, b in zip(self.wq, self.bq, strict=True)]

    def action(self, action_id: int) -> list[float]:
        """``relu(sum of the action's column embeddings)``: independent of the position."""
        got = self.cache.get(action_id)
        if got is None:
            parts = [self.embed[v + o] for v, o in zip(self.row(action_id), self.offsets,
                                                       strict=True)]
            got = [s if s > 0 else 0.0 for s in map(sum, zip(*parts, strict=True))]
            self.cache[action_id] = got
        return got

    def scores(self, obs: Sequence[float], ids: Sequence[int]) -> list[float]:
        q = self.query(obs)
        # mix(e)·q = relu(e)·(mixᵀ q) + bias·q
        u = [sum(r[k] * qi for r, qi in zip(self.wm, q, strict=True))
             for k in range(len(self.bm))]
        c = sum(b * qi for b, qi in zip(self.bm, q, strict=True))
        return [c + sum(a * b for a, b in zip(self.action(i), u, strict=True)) for i in ids]


class NumpyPolicy:
    """The forward pass with numpy, in float32 and in the trainer's order of operations."""

    def __init__(self, weights: Weights) -> None:
        import numpy as np

        from ..envs.actions import action_table

        self.np = np

        def t(name: str) -> Any:
            return np.frombuffer(weights.tensors[name], dtype="<f4").reshape(
                weights.shapes[name])

        self.w1, self.b1 = t("body.0.weight"), t("body.0.bias")
        self.w2, self.b2 = t("body.2.weight"), t("body.2.bias")
        self.wq, self.bq = t("query.weight"), t("query.bias")
        self.embed, self.wm, self.bm = t("embed.weight"), t("mix.1.weight"), t("mix.1.bias")
        rows = action_table(weights.game).rows
        self.rows = rows.astype(np.int64) + 1 + np.asarray(weights.offsets, dtype=np.int64)

    def query(self, x: Any) -> Any:
        """The position's half of the scores: the body on the observation ``x`` (a
        float32 array), then the query."""
        np = self.np
        h = np.maximum(self.w1 @ x + self.b1, 0)
        h = np.maximum(self.w2 @ h + self.b2, 0)
        return self.wq @ h + self.bq

    def actions(self, ids: Any) -> Any:
        """The actions' half: ``mix(relu(sum of each action's embeddings))``."""
        np = self.np
        e = np.maximum(self.embed[self.rows[np.asarray(ids, dtype=np.int64)]].sum(-2), 0)
        return e @ self.wm.T + self.bm

    def scores(self, obs: Sequence[float], ids: Sequence[int]) -> list[float]:
        q = self.query(self.np.asarray(obs, dtype=self.np.float32))
        out: list[float] = (self.actions(ids) @ q).tolist()
        return out


Policy = PurePolicy | NumpyPolicy


def numpy_available() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def load_policy(weights: Weights, backend: str | None = None) -> Policy:
    """The forward pass of ``weights``: ``backend`` "numpy", "python", or None (numpy
    when it is installed)."""
    if backend is None:
        backend = "numpy" if numpy_available() else "python"
    if backend == "numpy":
        return NumpyPolicy(weights)
    if backend == "python":
        return PurePolicy(weights)
    raise ElfenlandError(f"no backend {backend!r}: numpy or python")


@cache
def _shipped_policy(game: str, backend: str | None) -> Policy:
    """One forward pass per game and backend in a process: it holds no game state (the
    pure one's cache of action embeddings is the same for every game), so every bot of
    a tournament shares it."""
    return load_policy(shipped_weights(game), backend)


# ----------------------------------------------------------------- the bot


def observation(state: GameState, player: int, size: int) -> Sequence[float]:
    """``player``'s observation vector (``elfenland.envs.observation``): written by the
    compiled engine into an ``array`` when the state runs on it, else by the Python
    encoder (which needs numpy)."""
    fill = getattr(state, "_observe_into", None)
    if fill is not None:
        if state._observation_size() != size:  # type: ignore[attr-defined]
            raise ElfenlandError("this position's observation is not the one the learned "
                                 "policy was trained on")
        out = array("f", bytes(4 * size))
        fill(out, player)
        return out
    if not numpy_available():
        raise ElfenlandError("the learned bot needs the compiled engine or numpy "
                             "(pip install elfenland[rl]) to encode a position")
    from ..envs.observation import encoder_for

    vector = encoder_for(state).encode(state, player)
    if len(vector) != size:
        raise ElfenlandError("this position's observation is not the one the learned "
                             "policy was trained on")
    values: list[float] = vector.tolist()
    return values


def _planner_mover(game: str, seed: int | None) -> Bot:
    """The greedy bot whose exact planner makes a ``planner_moves`` learned bot's
    journeys and discards: the phase the cloned policy plays worst (docs/research.md)."""
    if game != "elfenland":
        raise ElfenlandError(f"planner moves are an Elfenland option, not {game}'s")
    from .elfenland_greedy import ElfenlandGreedyBot

    return ElfenlandGreedyBot(seed)


def planner_phase(state: GameState) -> bool:
    """Whether a ``planner_moves`` bot hands this position to the planner: Elfenland's
    move phase (the trainer leaves these positions out of a planner-moves policy's
    cloning data: the network never decides them)."""
    from ..games.elfenland.state import ElfenlandState, Phase

    return isinstance(state, ElfenlandState) and state.phase is Phase.MOVE


class LearnedBot:
    """Plays the shipped policy's most likely legal action; with ``planner_moves``
    (Elfenland) the greedy bot's exact planner makes the journeys instead and the policy
    the draws, placements and keeps."""

    name = "learned"

    def __init__(self, game: str, seed: int | None = None, backend: str | None = None,
                 weights: Weights | None = None, planner_moves: bool | None = None) -> None:
        # ``seed`` is accepted like every level's; the policy is played greedily, so
        # the bot is deterministic (the planner's greedy bot draws from it only to
        # resample rivals' hands, which it never does in the move phase).
        if weights is None:
            self.weights, self.policy = shipped_weights(game), _shipped_policy(game, backend)
        else:
            self.weights, self.policy = weights, load_policy(weights, backend)
        if planner_moves is None:  # as the weights were trained (their header says)
            planner_moves = bool(self.weights.header.get("planner_moves", False))
        self.mover = _planner_mover(self.weights.game, seed) if planner_moves else None

    def _check(self, state: GameState) -> Weights:
        w = self.weights
        if state.game_name != w.game or state.num_players != w.players:
            raise ElfenlandError(f"the learned policy plays {w.game} with {w.players} "
                                 f"players, not {state.game_name} with {state.num_players}")
        return w

    def scores(self, state: GameState) -> tuple[list[Action], list[float]]:
        """The legal actions of the seat to act and the policy's score of each."""
        w = self._check(state)
        legal = list(state.legal_actions())
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        obs = observation(state, state.current_player(), w.obs_size)
        return legal, self.policy.scores(obs, [a.id for a in legal])

    def choose(self, state: GameState) -> Action:
        if self.mover is not None and planner_phase(state):
            self._check(state)
            return self.mover.choose(state)
        legal, scores = self.scores(state)
        return legal[max(range(len(legal)), key=scores.__getitem__)]
