"""The structured row of one action (``elfenland.envs.actions``), without numpy.

``action_table`` stacks these rows into numpy arrays for learners; a trained policy
playing as a bot (``elfenland.bots.learned``) needs only the rows of the legal actions
and must run with the standard library alone, so the functions that read an action into
its row live here, imported by both.  The columns are ``actions.COLUMNS``.
"""

from __future__ import annotations

from typing import Any

from ..core.transport import Transport


def elfenland_row(a: Any, board: Any) -> list[int]:
    """The row of an Elfenland action (``COLUMNS["elfenland"]``) on ``board``."""
    from ..games.elfenland.actions import Kind

    frm = to = -1
    if a.route is not None:
        route = board.routes[a.route]
        frm, to = (route.a, route.b) if a.direction == 0 else (route.b, route.a)
    cards = list(a.cards) if a.cards is not None else [0] * len(Transport)
    return [int(a.kind), -1 if a.transport is None else int(a.transport),
            -1 if a.route is None else a.route, frm, to,
            a.direction if a.kind is Kind.MOVE else 0, int(a.secret), int(a.pay),
            sum(cards), *cards]


def kingelves_row(a: Any) -> list[int]:
    """The row of a King of the Elves action (``COLUMNS["king-of-the-elves"]``)."""
    spell = list(a.cards) if a.cards is not None else [0] * len(Transport)
    return [int(a.kind), -1 if a.card is None else int(a.card), a.kingdom, a.town,
            a.count, sum(spell), *spell]


def row_function(game: str) -> Any:
    """``id -> row`` for ``game``'s whole action space (each call reads the engine's own
    action for the id)."""
    if game == "elfenland":
        from ..games.elfenland.actions import from_id
        from ..games.elfenland.board import load_board

        board = load_board()
        return lambda i: elfenland_row(from_id(i), board)
    if game == "king-of-the-elves":
        from ..games.kingelves.actions import from_id as king_from_id

        return lambda i: kingelves_row(king_from_id(i))
    raise ValueError(f"no action rows for {game!r}")
