"""The board as shipped: counts, names, rivers, lakes and distances."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from elfenland.core.errors import UnknownTownError
from elfenland.core.transport import Terrain
from elfenland.games.elfenland.board import Board, MapError, load_board


def test_the_shipped_map_is_the_shared_map_and_has_the_published_counts() -> None:
    board = load_board()
    assert len(board.towns) == 21 and len(board.roads) == 35
    assert sum(r.terrain is Terrain.RIVER for r in board.routes) == 7
    assert sum(r.terrain is Terrain.LAKE for r in board.routes) == 6
    assert len(board.town_cards) == 12
    assert board.towns[board.capital].name == "Elvenhold"
    shared = Path(__file__).resolve().parents[3] / "shared" / "data" / "elfenland-map.json"
    if shared.exists():
        packaged = resources.files("elfenland.games.elfenland").joinpath(
            "data/elfenland-map.json").read_text("utf-8")
        assert json.loads(packaged) == json.loads(shared.read_text("utf-8"))


@pytest.mark.parametrize("name", ["Jxara", "ixara", "IXARA", "Ixara"])
def test_town_names_resolve_case_insensitively_and_through_aliases(name: str) -> None:
    board = load_board()
    assert board.towns[board.town(name)].id == "ixara"


def test_names_with_apostrophes_resolve_with_or_without_them() -> None:
    board = load_board()
    assert board.town("Erg'Eren") == board.town("ergeren") == board.town("erg eren")
    with pytest.raises(UnknownTownError):
        board.town("Atlantis")


def test_rivers_flow_as_the_arrows_show() -> None:
    board = load_board()
    down = {(board.towns[r.a].id, board.towns[r.b].id): board.towns[r.downstream].id
            for r in board.routes if r.terrain is Terrain.RIVER and r.downstream is not None}
    assert down[("virst", "ixara")] == "ixara"
    assert down[("beata", "elvenhold")] == "elvenhold"
    assert down[("rivinia", "tichih")] == "tichih"
    assert down[("wylhien", "usselen")] == "usselen"


def test_distances_count_rivers_and_lakes_as_links() -> None:
    board = load_board()
    t = board.town
    assert board.distance(t("throtmanni"), t("jaccaranda")) == 1
    assert board.distance(t("rivinia"), t("tichih")) == 1  # the river only
    assert board.distance(t("grangor"), t("parundia")) == 1  # the lake
    assert board.distance(t("kihromah"), t("kihromah")) == 0
    assert max(board.distances[board.capital]) <= 5


def test_a_broken_map_is_refused() -> None:
    data = json.loads(resources.files("elfenland.games.elfenland").joinpath(
        "data/elfenland-map.json").read_text("utf-8"))
    data["routes"][0]["b"] = "nowhere"
    with pytest.raises(MapError):
        Board(data)
    data = json.loads(resources.files("elfenland.games.elfenland").joinpath(
        "data/elfenland-map.json").read_text("utf-8"))
    del data["routes"][0]
    with pytest.raises(MapError, match="counts"):
        Board(data).validate()
