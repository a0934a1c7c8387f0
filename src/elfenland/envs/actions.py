"""A structured action space beside the flat action ids.

Every action id of a game decomposes into one fixed-width row of small integers (its
kind, the town or road it is about, the transport, the card counts it pays …), so that a
policy can score the legal actions with one shared network over their features instead
of one table row per id: ``move A-B`` by dragon and ``move A-B`` by caravan share the road
and both towns.  ``action_table(game).rows`` holds the rows of every id (row ``i`` is id
``i``), ``table.of(ids)`` those of some ids, padded ids (-1) giving a row of -1;
``table.compose(row)`` gives the id back.  The columns, for each game, are listed in
``COLUMNS`` and documented in ``docs/research.md``; ``ACTION_TABLE_VERSION`` changes with
them.

The rows are read from the engines' own action values (``from_id``), once per process,
so they can never disagree with the ids the engines hand out; ``compose`` goes back
through the engines' ``canonical``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..core.errors import ActionParseError
from ..core.once import once
from ..core.transport import Transport
from .action_rows import elfenland_row as _elfenland_row
from .action_rows import kingelves_row as _kingelves_row

#: Raised whenever a column is added, removed, moved or changes meaning.
ACTION_TABLE_VERSION: Final = 1

Rows = npt.NDArray[np.int16]

#: The columns of each game's rows, in order (-1: does not apply to this kind).
COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "elfenland": (
        "kind",       # elfenland.games.elfenland.actions.Kind (0 draw secret … 9 move)
        "transport",  # the counter or card kind (core.transport.Transport), -1 none
        "route",      # board route index (road, river or lake), -1 none
        "from_town",  # move: the town left; place/obstacle: the road's first town
        "to_town",    # move: the town reached; place/obstacle: the road's second town
        "direction",  # move: 0 from the route's first town, 1 the other way
        "secret",     # keep: 1 for a secret counter
        "pay",        # move: 0 the counter's cards, 1 caravan, 2 boatmen
        "cards",      # move: number of cards paid by caravan or boatmen (0 otherwise)
        *(f"cards_{t.name.lower()}" for t in Transport),  # those cards, counted by kind
    ),
    "king-of-the-elves": (
        "kind",       # elfenland.games.kingelves.actions.Kind (0 pass … 13 spell)
        "card",       # the card (kingelves.cards.Card, 0..18), -1 none
        "kingdom",    # play / place: the kingdom (owner's seat, absolute), -1 none
        "town",       # place / remove: the town within the kingdom, -1 none
        "count",      # visit: number of cards paid
        "cards",      # spell: number of cards paid (4), 0 otherwise
        *(f"cards_{t.name.lower()}" for t in Transport),  # spell: those cards by transport kind
    ),
    "elfengold": (
        "kind",       # elfenland.games.elfengold.actions.Kind (0 draw … 12 move … 18 keep)
        "card",       # draw/discard: the card kind (Transport 0..6, 7 witch); a normal or
                      # witch move: the travel card paid (the counter's transport, or raft)
        "item",       # hide/keep/place/double: the item kind (games.elfengold.items:
                      # counters 0..5, 6 tree, 7 sea monster, 8 gold piece, 9 Double,
                      # 10 Exchange); tree/monster/gold: 6/7/8; exchange: the first
                      # counter; a move on a road without caravan: the counter used
        "route",      # board route index (road, river or lake), -1 none
        "from_town",  # move: the town left; on a route: its first town
        "to_town",    # move: the town reached; on a route: its second town; fly: where to
        "direction",  # move: 0 from the route's first town, 1 the other way
        "bid",        # bid: the coins bid (1..500), 0 otherwise
        "item2",      # exchange: the second counter, -1 otherwise
        "route2",     # exchange: the second road, -1 otherwise
        "secret",     # keep: 1 for a face-down item
        "pay",        # move: 0 the counter's cards, 1 with the witch (1 coin), 2 caravan
        "cards",      # move by caravan: number of cards paid (3, or 4 over an obstacle)
        *(f"cards_{t.name.lower()}" for t in Transport), "cards_witch",  # those cards
    ),
}


@dataclass(frozen=True)
class ActionTable:
    """The rows of one game's whole action space."""

    game: str
    columns: tuple[str, ...]
    #: ``rows[i]`` is the decomposition of action id ``i`` (int16, read-only).
    rows: Rows
    #: ``rows`` with one more row of -1 at the end, so that index -1 (a padded id) gives
    #: a row of -1.
    padded: Rows
    version: int = ACTION_TABLE_VERSION

    def column(self, name: str) -> int:
        return self.columns.index(name)

    def of(self, ids: Any) -> Rows:
        """The rows of ``ids`` (any integer array; -1 gives a row of -1), shape
        ``ids.shape + (len(columns),)``: e.g. the batched environment's padded legal ids.
        An id outside the action space (below -1, or ``num_actions`` and above) or one
        that is not an integer (a float, a bool) raises ``ActionParseError``: numpy's
        indexing would read -2 as the last action and ``num_actions`` as the padding."""
        array = np.asarray(ids)
        if array.dtype.kind not in "iu":
            if array.size or array.dtype.kind not in "fO":  # [] is float64 to numpy
                raise ActionParseError(f"action ids are integers, not {array.dtype}")
            array = array.astype(np.int64)
        if array.size:
            low, high = int(array.min()), int(array.max())
            if low < -1 or high >= len(self.rows):
                bad = low if low < -1 else high
                raise ActionParseError(f"no action of {self.game} has id {bad} (ids are 0 "
                                       f"to {len(self.rows) - 1}, and -1 for padding)")
        rows: Rows = self.padded[array]
        return rows

    def compose(self, row: Sequence[int] | Rows) -> int:
        """The action id whose decomposition is ``row`` (``ActionParseError`` if none)."""
        try:
            values = [operator.index(v) for v in row]
        except TypeError:
            raise ActionParseError(f"a row of {self.game} holds integers, not "
                                   f"{list(row)!r}") from None
        if len(values) != len(self.columns):
            raise ActionParseError(f"a row of {self.game} has {len(self.columns)} values")
        action_id = int(_composer(self.game)(values))
        if not np.array_equal(self.rows[action_id], values):
            # e.g. a move whose towns do not match its route and direction
            raise ActionParseError(f"no action of {self.game} decomposes into {values}")
        return action_id

    def describe(self) -> list[str]:
        return [f"{i:3d}  {name}" for i, name in enumerate(self.columns)]


def action_table(game: str) -> ActionTable:
    """The structured action table of ``game`` ("elfenland", "king-of-the-elves" or
    "elfengold")."""
    if game == "elfenland":
        return _elfenland_table()
    if game == "king-of-the-elves":
        return _kingelves_table()
    if game == "elfengold":
        return _elfengold_table()
    raise ValueError(f"no action table for {game!r}")


def _freeze(game: str, rows: list[list[int]]) -> ActionTable:
    array = np.array(rows, dtype=np.int16)
    padded = np.vstack([array, np.full((1, array.shape[1]), -1, dtype=np.int16)])
    array.flags.writeable = False
    padded.flags.writeable = False
    assert array.shape[1] == len(COLUMNS[game])
    return ActionTable(game, COLUMNS[game], array, padded)


# ----------------------------------------------------------------- Elfenland


@once
def _elfenland_table() -> ActionTable:
    from ..games.elfenland.actions import from_id, num_actions
    from ..games.elfenland.board import load_board

    board = load_board()
    return _freeze("elfenland", [_elfenland_row(from_id(i), board)
                                 for i in range(num_actions())])


def _compose_elfenland(v: list[int]) -> int:
    from ..games.elfenland.actions import Action, Kind, Pay, canonical

    try:
        kind = Kind(v[0])
        transport = None if v[1] < 0 else Transport(v[1])
        pay = Pay(v[7])
        cards = tuple(v[9:]) if pay is not Pay.NORMAL else None
        action = Action(kind, transport, None if v[2] < 0 else v[2],
                        v[5] if kind is Kind.MOVE else 0, bool(v[6]), pay, cards)
    except ValueError as exc:
        raise ActionParseError(f"not an Elfenland action row: {v}: {exc}") from None
    return canonical(action).id


# ----------------------------------------------------------------- King of the Elves


@once
def _kingelves_table() -> ActionTable:
    from ..games.kingelves.actions import from_id, num_actions

    return _freeze("king-of-the-elves", [_kingelves_row(from_id(i))
                                         for i in range(num_actions())])


def _compose_kingelves(v: list[int]) -> int:
    from ..games.kingelves.actions import Action, Kind, canonical
    from ..games.kingelves.cards import Card

    try:
        kind = Kind(v[0])
        action = Action(kind, None if v[1] < 0 else Card(v[1]), v[2], v[3], v[4],
                        tuple(v[6:]) if kind is Kind.SPELL else None)
    except ValueError as exc:
        raise ActionParseError(f"not a King of the Elves action row: {v}: {exc}") from None
    return canonical(action).id


# ----------------------------------------------------------------- Elfengold


def _elfengold_row(a: Any, board: Any) -> list[int]:
    from ..games.elfengold.actions import Kind, Pay
    from ..games.elfengold.items import GOLD_PIECE, HAND_KINDS, SEA_MONSTER, TREE

    k = a.kind
    card = item = frm = to = -1
    if k in (Kind.DRAW, Kind.DISCARD):
        card = a.item
    elif k in _item_kinds():
        item = a.item
    elif k in (Kind.TREE, Kind.MONSTER, Kind.GOLD):
        item = {Kind.TREE: TREE, Kind.MONSTER: SEA_MONSTER, Kind.GOLD: GOLD_PIECE}[k]
    elif k is Kind.MOVE and a.pay is not Pay.CARAVAN:
        card = a.item
        if board.routes[a.route].is_road:
            item = a.item
    if a.route >= 0:
        route = board.routes[a.route]
        frm, to = (route.a, route.b) if a.direction == 0 else (route.b, route.a)
    if k is Kind.FLY:
        to = a.amount
    cards = list(a.cards) if a.cards is not None else [0] * HAND_KINDS
    return [int(k), card, item, a.route, frm, to, a.direction if k is Kind.MOVE else 0,
            a.amount if k is Kind.BID else 0, a.item2, a.route2, int(a.secret), int(a.pay),
            sum(cards), *cards]


@once
def _item_kinds() -> frozenset[Any]:
    """Elfengold kinds whose ``item`` column is the action's own item value."""
    from ..games.elfengold.actions import Kind

    return frozenset({Kind.HIDE, Kind.PLACE, Kind.DOUBLE, Kind.EXCHANGE, Kind.KEEP})


@once
def _elfengold_table() -> ActionTable:
    from ..games.elfengold.actions import from_id, num_actions
    from ..games.elfenland.board import load_board

    board = load_board()
    return _freeze("elfengold", [_elfengold_row(from_id(i), board)
                                 for i in range(num_actions())])


def _compose_elfengold(v: list[int]) -> int:
    from ..games.elfengold.actions import Action, Kind, Pay, canonical

    try:
        kind, pay = Kind(v[0]), Pay(v[11])
        if kind in (Kind.DRAW, Kind.DISCARD) or (kind is Kind.MOVE and pay is not Pay.CARAVAN):
            item = v[1]
        elif kind in _item_kinds():
            item = v[2]
        else:
            item = -1
        amount = v[7] if kind is Kind.BID else v[5] if kind is Kind.FLY else 0
        action = Action(kind, item, v[3], v[6] if kind is Kind.MOVE else 0, amount, v[8],
                        v[9], bool(v[10]), pay, tuple(v[13:]) if pay is Pay.CARAVAN else None)
    except ValueError as exc:
        raise ActionParseError(f"not an Elfengold action row: {v}: {exc}") from None
    return canonical(action).id


def _composer(game: str) -> Any:
    return {"elfenland": _compose_elfenland, "king-of-the-elves": _compose_kingelves,
            "elfengold": _compose_elfengold}[game]
