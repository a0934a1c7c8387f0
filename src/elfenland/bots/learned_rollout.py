"""The shipped learned policy (``bots/learned.py``) as a player inside a search's
rollouts: the same network and the same choices as the ``learned`` level, at a fraction
of its cost per step, for the quick bots to screen as their rollout policy.

Why a second forward pass: a rollout plays a dozen or more building steps and a quick
bot's decision runs tens of rollouts, so a step must cost microseconds, not the
``learned`` level's tenth of a millisecond.  Three things make it cheap:

- every action's half of the dot product, ``mix(relu(sum of its embeddings))``, does
  not depend on the position: it is computed once for every action id into a table
  (374 x 32 in King of the Elves), and a step gathers the legal rows;
- the observation is written by the compiled engine (``_observe_into``) into one
  preallocated buffer that a numpy array views, with no copy;
- the choice is the first of the highest scores, as the ``learned`` level's.

It needs numpy and the compiled engine: ``rollout_policy`` gives None without them
(or for a game or player count the shipped weights were not trained on), and the bots
then play as they do without it.  Nothing here imports numpy at module import.
"""

from __future__ import annotations

from array import array
from functools import cache
from typing import Any

from ..core.errors import ElfenlandError
from ..core.game import GameState
from .learned import SHIPPED, NumpyPolicy, Weights, numpy_available, shipped_weights


class RolloutPolicy:
    """The policy's most likely legal action for the seat to act, by action id."""

    def __init__(self, weights: Weights) -> None:
        import numpy as np

        self.np = np
        self.weights = weights
        self.net = NumpyPolicy(weights)
        # The actions' half of every score, for every action id, once.
        self.actions = self.net.actions(np.arange(len(self.net.rows)))
        self.buffer = array("f", bytes(4 * weights.obs_size))
        self.x = np.frombuffer(self.buffer, dtype=np.float32)
        #: Steps chosen (what a bench counts).
        self.steps = 0

    def fits(self, state: GameState) -> bool:
        """Whether this policy can play ``state``: its game and player count, on the
        compiled engine whose observation it was trained on."""
        return self.weights.fits_compiled(state)

    def scores(self, state: Any, ids: list[int]) -> Any:
        """The scores of ``ids`` for the seat to act (a numpy array)."""
        state._observe_into(self.buffer, state.current)
        return self.actions[ids] @ self.net.query(self.x)

    def choose(self, state: Any) -> int:
        """The id of the policy's most likely legal action (the first of equal scores)."""
        ids = state.legal_action_ids()
        if len(ids) == 1:
            return int(ids[0])
        self.steps += 1
        return int(ids[int(self.scores(state, ids).argmax())])


@cache
def _shipped(game: str) -> RolloutPolicy:
    return RolloutPolicy(shipped_weights(game))


def rollout_policy(state: GameState) -> RolloutPolicy | None:
    """The shipped policy as a rollout player for ``state``'s game, or None when it
    cannot play it (numpy absent, no weights for the game or its player count, not the
    compiled engine): the caller then plays its own rollout policy."""
    if state.game_name not in SHIPPED or not numpy_available():
        return None
    try:
        policy = _shipped(state.game_name)
    except ElfenlandError:
        return None
    return policy if policy.fits(state) else None
