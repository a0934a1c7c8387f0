"""The shipped learned value (``value.weight`` of ``weights/king-of-the-elves-4p.elfw``)
as an evaluation for the quick King of the Elves bot (issue #25).

The PPO trainer (``examples/train_selfplay.py``) learned, beside its policy, a value:
the expected result of the game (1 for a win, shared among the winners; a sigmoid of
a linear head on the policy's body) for the seat whose observation it reads.  The
policy plays; the value was never used.  A search that ends its rollouts before the
last round needs exactly that: who is likely to win from here, where
``round_outcome`` guesses it from this round's journeys and the gold.

Each seat's value reads that seat's own observation (the view hides the rivals' gold
and hands; the determinised state the search holds has them, so each seat is asked
with what it knows).  The seats' values are made a share that sums to 1, the bot's
share being its chance of winning.  Only where the weights fit (4 players, numpy, the
compiled engine whose observation they were trained on): ``value_head`` is None
elsewhere, and the bot evaluates as before.  Nothing here imports numpy at import.
"""

from __future__ import annotations

from array import array
from functools import cache
from typing import Any

from ..core.errors import ElfenlandError
from ..core.game import GameState
from .learned import NumpyPolicy, Weights, numpy_available, shipped_weights

#: No seat's value counts below this (a share of values all near 0 is noise).
FLOOR = 1e-4


class ValueHead:
    """The learned value of every seat of a state, and the bot's share of them."""

    def __init__(self, weights: Weights) -> None:
        import numpy as np

        self.np = np
        self.weights = weights
        self.net = NumpyPolicy(weights)
        self.wv = np.frombuffer(weights.tensors["value.weight"], dtype="<f4").reshape(
            weights.shapes["value.weight"])[0]
        self.bv = float(np.frombuffer(weights.tensors["value.bias"], dtype="<f4")[0])
        n, size = weights.players, weights.obs_size
        self.buffers = [array("f", bytes(4 * size)) for _ in range(n)]
        self.x = np.zeros((n, size), dtype=np.float32)
        #: Evaluations made (what a bench counts).
        self.calls = 0

    def fits(self, state: GameState) -> bool:
        """Whether the value can read ``state``: its game and player count, on the
        compiled engine whose observation it was trained on."""
        return self.weights.fits_compiled(state)

    def values(self, state: Any) -> list[float]:
        """Each seat's learned value (the trainer's ``sigmoid(value(body))``: its
        expected result, in (0, 1)), from its own observation."""
        np, net = self.np, self.net
        for q, buffer in enumerate(self.buffers):
            state._observe_into(buffer, q)
            self.x[q] = np.frombuffer(buffer, dtype=np.float32)
        h = np.maximum(self.x @ net.w1.T + net.b1, 0)
        h = np.maximum(h @ net.w2.T + net.b2, 0)
        out: list[float] = (1.0 / (1.0 + np.exp(-(h @ self.wv + self.bv)))).tolist()
        return out

    def share(self, state: Any, me: int) -> float:
        """``me``'s value over the seats' values (each at least ``FLOOR``), in [0, 1]."""
        self.calls += 1
        v = [max(FLOOR, x) for x in self.values(state)]
        return v[me] / sum(v)


@cache
def _shipped(game: str) -> ValueHead:
    return ValueHead(shipped_weights(game))


def value_head(state: GameState) -> ValueHead | None:
    """The shipped value for ``state``'s game, or None where it cannot read it (numpy
    absent, no weights for the game or its player count, not the compiled engine)."""
    if state.game_name != "king-of-the-elves" or not numpy_available():
        return None
    try:
        head = _shipped(state.game_name)
    except ElfenlandError:
        return None
    return head if head.fits(state) else None
