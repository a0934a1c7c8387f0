"""Shared helpers for the King of the Elves tests: positions written the way the rulebook
describes a table, and the accounting every state must satisfy."""

from __future__ import annotations

from typing import Any

import elfenland
from elfenland.games.kingelves.invariants import check_state
from elfenland.games.kingelves.state import KingOfTheElvesState

ANNE, BOB, CARL, DORIS = 0, 1, 2, 3


def load(**doc: Any) -> KingOfTheElvesState:
    """A position from keyword fields (``players`` defaults to 4)."""
    doc.setdefault("format", "king-of-the-elves-position/1")
    doc.setdefault("players", 4)
    state = elfenland.load_position(doc)
    assert isinstance(state, KingOfTheElvesState)
    return state


def journey(kingdoms: list[Any], hand: dict[str, int], traveller: int = 0,
            **doc: Any) -> KingOfTheElvesState:
    """The traveller in their castle, about to start their journey."""
    n = doc.pop("players", len(kingdoms))
    hands = doc.pop("hands", [{} for _ in range(n)])
    hands[traveller] = hand
    return load(players=n, phase="journey", dragon=doc.pop("dragon", traveller),
                current_player=traveller, kingdoms=kingdoms, hands=hands, **doc)


def play(state: KingOfTheElvesState, *actions: str) -> KingOfTheElvesState:
    for action in actions:
        state.apply_action(action)
    return state


def legal(state: KingOfTheElvesState) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def check_accounts(state: KingOfTheElvesState) -> None:
    """All the game's cards and all its gold are somewhere, none twice (and every other
    invariant of the engine holds)."""
    check_state(state)
    assert sum(state.all_cards()) == 120 or state.rules.land_transport_cards != 9


#: The rulebook's example table (Anne, Bob, Carl, Doris) with Anne in her castle, ready
#: for the first example's journey.
EXAMPLE_TABLE_DOC: dict[str, Any] = {
    "players": 4, "phase": "journey", "dragon": 0, "current_player": 0,
    "kingdoms": [
        [{"town": "river", "sea-monster": DORIS}],
        [{"town": "forest", "tree": CARL, "gold": ANNE}],
        [{"town": "desert", "thief": BOB}, {"town": "plains"}],
        [{"town": "mountain"}],
    ],
    "hands": [{"raft": 2, "unicorn": 2, "dragon": 1, "elfcycle": 1, "magic-cloud": 1},
              {}, {}, {}],
}
