"""Taking back an action.  Nothing is deleted: an undo is an event naming the stored
action row it takes back, and the game is its stored actions without the undone rows.

The rule is the engine's (``take_back_seat`` on each game's state, also in every view as
``take_back``): a player may take back the game's last action if it was theirs and it
showed nobody anything new (no draw, no deal, nothing hidden offered).  The server asks
the engine rather than guessing, so the browser's button and the server's answer agree.
Taking back repeatedly goes further back through the player's own actions; an action of
another player stops it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.game import GameState
from .store import EventRecord


def effective_actions(actions: Sequence[str], events: Sequence[EventRecord]
                      ) -> tuple[list[str], list[int]]:
    """The actions the game consists of, and the store row (1-based) of each."""
    undone = {int(e.body["row"]) for e in events if e.kind == "undo"}
    rows = [i + 1 for i in range(len(actions)) if i + 1 not in undone]
    return [actions[r - 1] for r in rows], rows


def undo_refusal(before: GameState, action: str) -> str | None:
    """Why ``action`` (played from ``before`` by the seat to act there) cannot be taken
    back, or None if it can: the engine's ``take_back_seat`` after it, in words."""
    player = before.current_player()
    after = before.clone()
    after.apply_action(action)
    if take_back_seat(after) == player:
        return None
    return "it drew at random or showed something hidden (a card, a counter, a deal)"


def take_back_seat(state: GameState) -> int | None:
    """The seat that may take back ``state``'s last action, or None (engines without
    the rule allow none)."""
    ask = getattr(state, "take_back_seat", None)
    return ask() if callable(ask) else None
