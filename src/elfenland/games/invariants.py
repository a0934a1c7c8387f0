"""The invariants of any game's state, by game: what the position loader, the property
tests and ``bench/soak.py`` check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import InvariantError
from ..core.game import GameState
from .elfengold.invariants import check_state as check_elfengold
from .elfengold.state import ElfengoldState
from .elfenland.invariants import check_state as check_elfenland
from .elfenland.state import ElfenlandState
from .kingelves.invariants import check_state as check_kingelves
from .kingelves.state import KingOfTheElvesState

_CHECKS: dict[type, Callable[[Any], None]] = {
    ElfenlandState: check_elfenland,
    KingOfTheElvesState: check_kingelves,
    ElfengoldState: check_elfengold,
}


def check_game_state(state: GameState) -> None:
    """The game's own invariants, then what every game promises: the player to act has
    a legal action, each listed once, and a finished game has winners."""
    check = _CHECKS.get(type(state))
    if check is not None:
        check(state)
    if state.is_terminal():
        if state.legal_actions() or not state.winners():
            raise InvariantError("a finished game offers no action and has winners")
        return
    ids = state.legal_action_ids()
    if not ids:
        raise InvariantError(f"player {state.current_player()} is to act but has no "
                             "legal action")
    if len(set(ids)) != len(ids):
        raise InvariantError("a legal action is listed twice")
