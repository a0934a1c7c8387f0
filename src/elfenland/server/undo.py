"""Taking back an action.  Nothing is deleted: an undo is an event naming the stored
action row it takes back, and the game is its stored actions without the undone rows.

The rule, in one sentence: a player may take back the game's last action if it was
theirs and it showed nobody anything new — it drew nothing at random (the engine's
random generator is untouched) and, replayed on states the player cannot tell from the
real one, it leaves the player's view the same.  Taking back repeatedly goes further
back through the player's own actions; an action of another player stops it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.errors import ElfenlandError
from ..core.game import GameState, JSONDict
from ..core.rng import Rng
from .store import EventRecord

#: States the action is replayed on, each with the hidden parts dealt again.
RESAMPLES = 3


def effective_actions(actions: Sequence[str], events: Sequence[EventRecord]
                      ) -> tuple[list[str], list[int]]:
    """The actions the game consists of, and the store row (1-based) of each."""
    undone = {int(e.body["row"]) for e in events if e.kind == "undo"}
    rows = [i + 1 for i in range(len(actions)) if i + 1 not in undone]
    return [actions[r - 1] for r in rows], rows


def undo_refusal(before: GameState, action: str) -> str | None:
    """Why ``action`` (played from ``before`` by the seat to act there) cannot be taken
    back, or None if it can."""
    player = before.current_player()
    after = before.clone()
    after.apply_action(action)
    rng_before, rng_after = getattr(before, "rng", None), getattr(after, "rng", None)
    if rng_before is not None and rng_after is not None and \
            rng_before.getstate() != rng_after.getstate():
        return "it drew at random (a card, a counter or a shuffle)"
    seen = _seen(after, player)
    for k in range(RESAMPLES):
        other = before.resample_from_infostate(player, Rng(k))
        try:
            other.apply_action(action)
        except ElfenlandError:
            return "it showed you something that was hidden"
        if _seen(other, player) != seen:
            return "it showed you something that was hidden"
    return None


def _seen(state: GameState, player: int) -> JSONDict:
    """The player's view, with the log reduced to the last entry (a resampled state has
    no history, so earlier entries and the counts are not compared)."""
    view = state.view(player)
    log = view.pop("log", [])
    view.pop("seq", None)
    view["last"] = {k: v for k, v in log[-1].items() if k != "seq"} if log else None
    return view
