"""The structured action space: every id of both games decomposes into its row and the
row composes back into the id; the rows agree with the engines' action values; padded
ids give rows of -1; bad rows are refused with the engines' typed error."""

from __future__ import annotations

import pytest

from .conftest import need

np = need("numpy")

import elfenland  # noqa: E402
from elfenland.core.errors import ActionParseError, ElfenlandError  # noqa: E402
from elfenland.envs.actions import COLUMNS, action_table  # noqa: E402
from elfenland.envs.observation import num_actions  # noqa: E402
from elfenland.games.elfengold import actions as gold  # noqa: E402
from elfenland.games.elfengold import items as gold_items  # noqa: E402
from elfenland.games.elfenland import actions as elf  # noqa: E402
from elfenland.games.elfenland.board import load_board  # noqa: E402
from elfenland.games.kingelves import actions as king  # noqa: E402

GAMES = ["elfenland", "king-of-the-elves", "elfengold"]


@pytest.mark.parametrize("game", GAMES)
def test_every_id_round_trips(game: str) -> None:
    table = action_table(game)
    assert table.rows.shape == (num_actions(game), len(COLUMNS[game]))
    assert table.rows.dtype == np.int16
    for i in range(num_actions(game)):
        assert table.compose(table.rows[i]) == i
    # No two ids share a row.
    assert len({r.tobytes() for r in table.rows}) == num_actions(game)


def test_elfenland_rows_read_the_actions() -> None:
    table = action_table("elfenland")
    board = load_board()
    c = {name: table.column(name) for name in COLUMNS["elfenland"]}
    for i in range(elf.num_actions()):
        a, row = elf.from_id(i), table.rows[i]
        assert row[c["kind"]] == a.kind
        assert row[c["transport"]] == (-1 if a.transport is None else a.transport)
        if a.kind is elf.Kind.MOVE:
            route = board.routes[a.route]
            towns = (route.a, route.b) if a.direction == 0 else (route.b, route.a)
            assert (row[c["from_town"]], row[c["to_town"]]) == towns
            assert row[c["cards"]] == a.card_count
            assert str(a).startswith("move")
    # The same road by dragon and by caravan shares route and towns.
    move = elf.tables().move[0][0]
    caravan = next(iter(elf.tables().paid[0][0].values()))
    r1, r2 = table.rows[move.id], table.rows[caravan.id]
    assert r1[c["route"]] == r2[c["route"]] and r1[c["to_town"]] == r2[c["to_town"]]
    assert r2[c["pay"]] == elf.Pay.CARAVAN and r2[c["cards"]] in (3, 4)


def test_king_of_the_elves_rows_read_the_actions() -> None:
    table = action_table("king-of-the-elves")
    for i in range(king.num_actions()):
        a, row = king.from_id(i), table.rows[i]
        assert row[0] == a.kind and row[1] == (-1 if a.card is None else a.card)
        assert (row[2], row[3], row[4]) == (a.kingdom, a.town, a.count)
        assert row[5] == (sum(a.cards) if a.cards else 0)


@pytest.mark.parametrize("game", GAMES)
def test_legal_ids_and_padding(game: str) -> None:
    table = action_table(game)
    state = elfenland.new_game(game=game, players=3, seed=1)
    legal = sorted(state.legal_action_ids())
    padded = np.full(len(legal) + 3, -1, dtype=np.int32)
    padded[:len(legal)] = legal
    rows = table.of(padded)
    assert rows.shape == (len(padded), len(table.columns))
    assert np.array_equal(rows[:len(legal)], table.rows[legal])
    assert (rows[len(legal):] == -1).all()


@pytest.mark.parametrize("game", GAMES)
def test_bad_rows_are_refused(game: str) -> None:
    table = action_table(game)
    row = table.rows[len(table.rows) - 1].copy()
    with pytest.raises(ActionParseError):
        table.compose(list(row)[:-1])
    bad = row.copy()
    bad[0] = 99
    with pytest.raises(ElfenlandError):
        table.compose(bad)
    with pytest.raises(ValueError):
        action_table("chess")
    with pytest.raises(ValueError):
        table.rows[0, 0] = 5  # read-only


def test_a_move_with_the_wrong_towns_is_refused() -> None:
    table = action_table("elfenland")
    move = elf.tables().move[0][0]
    row = table.rows[move.id].copy()
    row[table.column("to_town")] = row[table.column("from_town")]
    with pytest.raises(ActionParseError):
        table.compose(row)


def test_elfengold_rows_read_the_actions() -> None:
    table = action_table("elfengold")
    board = load_board()
    c = {name: table.column(name) for name in COLUMNS["elfengold"]}
    assert table.rows.shape == (gold.num_actions(), 21)
    obstacle_item = {gold.Kind.TREE: gold_items.TREE, gold.Kind.MONSTER: gold_items.SEA_MONSTER,
                     gold.Kind.GOLD: gold_items.GOLD_PIECE}
    for i in range(gold.num_actions()):
        a, row = gold.from_id(i), table.rows[i]
        assert row[c["kind"]] == a.kind and row[c["route"]] == a.route
        if a.kind is gold.Kind.BID:
            assert row[c["bid"]] == a.amount == int(str(a).split()[1])
        elif a.kind is gold.Kind.FLY:
            assert row[c["to_town"]] == a.amount and row[c["route"]] == -1
        elif a.kind in obstacle_item:
            assert row[c["item"]] == obstacle_item[a.kind]
        elif a.kind is gold.Kind.MOVE:
            route = board.routes[a.route]
            towns = (route.a, route.b) if a.direction == 0 else (route.b, route.a)
            assert (row[c["from_town"]], row[c["to_town"]]) == towns
            assert row[c["pay"]] == a.pay
            if a.pay is gold.Pay.CARAVAN:
                assert row[c["cards"]] == sum(a.cards or ()) in (3, 4)
                assert row[c["card"]] == row[c["item"]] == -1
            else:
                assert row[c["card"]] == a.item
                assert row[c["item"]] == (a.item if route.is_road else -1)
        elif a.kind is gold.Kind.EXCHANGE:
            assert (row[c["item"]], row[c["item2"]], row[c["route2"]]) == \
                (a.item, a.item2, a.route2)
        elif a.kind is gold.Kind.KEEP:
            assert row[c["item"]] == a.item and row[c["secret"]] == a.secret
    # The same road by a counter, with the witch and by caravan shares route and towns.
    by_text = {str(gold.from_id(i)): i for i in range(gold.num_actions())
               if gold.from_id(i).kind is gold.Kind.MOVE}
    plain = table.rows[by_text["move feodor-lapphalya giant-pig"]]
    witch = table.rows[by_text["move feodor-lapphalya giant-pig witch"]]
    caravan = table.rows[by_text["move feodor-lapphalya caravan:giant-pig+giant-pig+raft"]]
    for col in ("route", "from_town", "to_town", "direction"):
        assert plain[c[col]] == witch[c[col]] == caravan[c[col]]
    assert (plain[c["pay"]], witch[c["pay"]], caravan[c["pay"]]) == (0, 1, 2)
    assert caravan[c["cards_giant_pig"]] == 2 and caravan[c["cards_raft"]] == 1
