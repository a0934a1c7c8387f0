"""Small builders for Elfenland test positions."""

from __future__ import annotations

from typing import Any

import elfenland
from elfenland.games.elfenland import ElfenlandState


def position(players: int = 2, **fields: Any) -> ElfenlandState:
    doc: dict[str, Any] = {"format": "elfenland-position/1", "players": players,
                           "phase": "move", "current_player": 0, "starting_player": 0}
    doc.update(fields)
    state = elfenland.load_position(doc)
    assert isinstance(state, ElfenlandState)
    return state


def texts(state: ElfenlandState) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def hand(state: ElfenlandState, player: int = 0) -> dict[str, int]:
    from elfenland.core.transport import Transport

    return {Transport(k).slug: n for k, n in enumerate(state.hands[player]) if n}
