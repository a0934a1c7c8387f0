"""A started server's long-lived objects leave the cyclic garbage collector's view.

Modules, the engines' action tables (some 22,000 actions) and the web framework are most of
a server's objects and live as long as it does; yet every full collection walked them
all, and under load such a pause showed as the slowest action->update latencies.  They
are built at start and frozen (``gc.freeze``): reference counting still frees whatever
of them is dropped, only the cycle search skips them.  Games created later are not
frozen, so a finished game's cycles are still collected."""

from __future__ import annotations

import gc

from ..games.registry import GAMES, new_game


def build_tables_and_freeze() -> None:
    for name in GAMES:
        state = new_game(game=name, players=2, seed=0)
        state.apply_action(state.legal_actions()[0])
        state.view(0)
    gc.collect()
    gc.freeze()
