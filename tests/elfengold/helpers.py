"""Set-ups for the Elfengold tests: position documents with only what a test is about."""

from __future__ import annotations

from typing import Any

from elfenland.games.elfengold import ElfengoldState, from_position


def position(players: int = 3, **doc: Any) -> ElfengoldState:
    """A position document with ``doc``'s entries; the rest takes its defaults."""
    return from_position({"players": players, **doc})


def legal(s: ElfengoldState) -> set[str]:
    return {str(a) for a in s.legal_actions()}


def mover(hand: dict[str, int], roads: dict[str, Any], boot: str = "feodor",
          players: int = 3, coins: int = 12, **doc: Any) -> ElfengoldState:
    """Player 0 to move in round 1 with ``hand``, its boot in ``boot``."""
    hands = [hand] + [{} for _ in range(players - 1)]
    boots = [boot] + ["elvenhold"] * (players - 1)
    return position(players, phase="move", hands=hands, boots=boots, roads=roads,
                    coins=[coins] * players, **doc)
