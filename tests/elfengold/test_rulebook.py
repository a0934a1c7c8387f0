"""The examples of the Elfengold rulebook (EG-p7 … EG-p10), played on set-up positions."""

from __future__ import annotations

import pytest

from elfenland.core.errors import IllegalActionError
from elfenland.games.elfengold.items import EXCHANGE, WITCH

from .helpers import legal, mover, position

# Route ids of the shipped map: r36 the river Virst→Ixara (downstream to Ixara), r44 the
# Mare Magnum ferry Elvenhold–Virst, r16 the forest road Ixara–Lapphalya.
RIVER_VIRST_IXARA = "r36"
FERRY_ELVENHOLD_VIRST = "r44"


def test_eg_p7_sea_monster_on_a_river_costs_one_raft_more_each_way() -> None:
    roads = {RIVER_VIRST_IXARA: {"obstacle": "sea-monster"}}
    down = mover({"raft": 2}, roads, boot="virst")
    assert "move virst-ixara raft" in legal(down)          # downstream: 1 + 1
    down.apply_action("move virst-ixara raft")
    assert down.hands[0][6] == 0 and down.boots[0] == down.board.town("ixara")
    up = mover({"raft": 2}, roads, boot="ixara")
    assert "move ixara-virst raft" not in legal(up)        # upstream: 2 + 1
    up3 = mover({"raft": 3}, roads, boot="ixara")
    assert "move ixara-virst raft" in legal(up3)
    up3.apply_action("move ixara-virst raft")
    assert up3.hands[0][6] == 0


def test_eg_p7_a_ferry_link_with_a_sea_monster_always_costs_three() -> None:
    roads = {FERRY_ELVENHOLD_VIRST: {"obstacle": "sea-monster"}}
    for boot, step in (("elvenhold", "move elvenhold-virst raft"),
                       ("virst", "move virst-elvenhold raft")):
        assert step not in legal(mover({"raft": 2}, roads, boot=boot))
        s = mover({"raft": 3}, roads, boot=boot)
        s.apply_action(step)
        assert s.hands[0][6] == 0
    # without the monster, 2 rafts as in the base game's Amigo lakes
    assert "move elvenhold-virst raft" in legal(mover({"raft": 2}, {}, boot="elvenhold"))


def test_eg_p8_double_on_ixara_lapphalya_dragon_or_elfcycle() -> None:
    s = position(3, phase="place", roads={"lapphalya-ixara": {"counters": ["dragon"]}},
                 items=[{"face_up": {"double": 1, "elfcycle": 1}}, {}, {}])
    assert "double elfcycle lapphalya-ixara" in legal(s)
    s.apply_action("double elfcycle ixara-lapphalya")
    r = s.board.route("r16").index
    assert sorted(s.counters[r]) == [1, 5] and s.double[r]      # elfcycle and dragon
    assert s._held(0) == 0
    road = {"r16": {"counters": ["dragon", "elfcycle"], "double": True}}
    both = legal(mover({"dragon": 2, "elfcycle": 1}, road, boot="ixara"))
    assert {"move ixara-lapphalya dragon", "move ixara-lapphalya elfcycle"} <= both
    dragons_only = legal(mover({"dragon": 1, "elfcycle": 1}, road, boot="ixara"))
    assert "move ixara-lapphalya dragon" not in dragons_only      # forest: 2 dragons
    assert "move ixara-lapphalya elfcycle" in dragons_only        # forest: 1 elfcycle
    caravan = mover({"raft": 3}, road, boot="ixara")
    assert "move ixara-lapphalya caravan:raft+raft+raft" in legal(caravan)


def test_eg_p8_a_double_needs_a_counter_already_there_and_fits_the_terrain() -> None:
    s = position(3, phase="place", roads={"lapphalya-ixara": {"counters": ["dragon"]}},
                 items=[{"face_up": {"double": 1, "unicorn": 1, "giant-pig": 1}}, {}, {}])
    assert "double giant-pig lapphalya-ixara" in legal(s)
    assert "double unicorn lapphalya-ixara" in legal(s)
    assert not any(a.startswith("double") and "feodor" in a for a in legal(s))
    plains = position(3, phase="place", roads={"elvenhold-beata": {"counters": ["dragon"]}},
                      items=[{"face_up": {"double": 1, "unicorn": 1}}, {}, {}])
    assert not any(a.startswith("double") for a in legal(plains))  # no unicorn on plains


def test_eg_p8_exchange_swaps_a_troll_wagon_and_a_magic_cloud() -> None:
    roads = {"feodor-lapphalya": {"counters": ["troll-wagon"]},
             "elvenhold-beata": {"counters": ["magic-cloud"]}}
    s = position(3, phase="place", roads=roads, items=[{"face_down": {"exchange": 1}}, {}, {}])
    pile = s.item_pile[EXCHANGE]
    s.apply_action("exchange troll-wagon feodor-lapphalya magic-cloud elvenhold-beata")
    assert s.counters[s.board.route("r09").index] == [2]       # magic cloud
    assert s.counters[s.board.route("r01").index] == [4]       # troll wagon
    assert s.item_pile[EXCHANGE] == pile + 1 and s._held(0) == 0
    assert s.view(1)["log"][-1]["from_face_down"] == ["exchange"]


def test_exchange_needs_different_kinds_and_legal_terrain() -> None:
    same = {"feodor-lapphalya": {"counters": ["troll-wagon"]},
            "elvenhold-beata": {"counters": ["troll-wagon"]}}
    s = position(3, phase="place", roads=same, items=[{"face_up": {"exchange": 1}}, {}, {}])
    assert not any(a.startswith("exchange") for a in legal(s))
    s = position(3, phase="place", roads=same, items=[{"face_up": {"exchange": 1}}, {}, {}],
                 rules={"eg_exchange_same_kind": True})
    assert any(a.startswith("exchange") for a in legal(s))
    # a unicorn cannot go to the plains, so it cannot swap with the plains road's pig
    terrain = {"feodor-lapphalya": {"counters": ["unicorn"]},
               "elvenhold-beata": {"counters": ["giant-pig"]}}
    s = position(3, phase="place", roads=terrain, items=[{"face_up": {"exchange": 1}}, {}, {}])
    assert not any(a.startswith("exchange") for a in legal(s))


def _desert_dragons(*routes: str, gold: str | None = None) -> dict[str, object]:
    roads: dict[str, dict[str, object]] = {r: {"counters": ["dragon"]} for r in routes}
    if gold is not None:
        roads[gold]["gold_piece"] = True
    return roads


def test_eg_p9_feodor_throtmanni_albaran_parundia_earns_14() -> None:
    roads = _desert_dragons("feodor-throtmanni", "throtmanni-albaran", "albaran-parundia")
    s = mover({"dragon": 3}, roads)
    for step in ("go throtmanni", "go albaran", "go parundia"):
        s.apply_action(step)
    assert s.earned == 3 + 7 + 4                  # Feodor, where it started, earns nothing
    s.apply_action("end")
    assert legal(s) == {"collect", "cards"}
    s.apply_action("collect")
    assert s.coins[0] == 12 + 14
    assert s.view(None)["log"][-1]["coins"] == 14


def test_eg_p9_feodor_dagamura_over_a_gold_piece_earns_8() -> None:
    s = mover({"dragon": 1}, _desert_dragons("feodor-dagamura", gold="feodor-dagamura"))
    s.apply_action("move feodor-dagamura dragon")
    assert s.earned == 8
    s.apply_action("end")
    s.apply_action("collect")
    assert s.coins[0] == 20


def test_every_arrival_pays_and_elvenhold_pays_nothing() -> None:
    s = mover({"dragon": 3}, _desert_dragons("feodor-dagamura", gold="feodor-dagamura"))
    s.apply_action("go dagamura")
    s.apply_action("go feodor")
    s.apply_action("go dagamura")
    # every arrival pays, Feodor too on the way back, doubled each time over the gold
    assert s.earned == 8 + 8 + 8
    home = mover({"giant-pig": 2}, {"elvenhold-beata": {"counters": ["giant-pig"]}},
                 boot="beata")
    home.apply_action("go elvenhold")
    home.apply_action("go beata")
    assert home.earned == 0 + 2


def test_choosing_cards_instead_of_coins_draws_two() -> None:
    s = mover({"dragon": 1}, _desert_dragons("feodor-dagamura"), discard={"raft": 5})
    s.apply_action("go dagamura")
    s.apply_action("end")
    s.apply_action("cards")
    assert s.phase.value == "move-draw"
    before = sum(s.hands[0])
    while s.current == 0 and s.phase.value == "move-draw":
        s.apply_action("draw blind")
    assert sum(s.hands[0]) == before + 2
    assert s.coins[0] == 12 and s.current == 1


def test_a_player_who_does_not_move_draws_two_cards() -> None:
    s = mover({}, {})
    s.apply_action("end")
    assert s.phase.value == "move-draw" and "collect" not in legal(s)


def test_eg_p10_witch_on_the_elvenhold_virst_ferry_with_a_sea_monster() -> None:
    roads = {FERRY_ELVENHOLD_VIRST: {"obstacle": "sea-monster"}}
    s = mover({"raft": 2, "witch": 1}, roads, boot="elvenhold", rules={"witch": True})
    assert "move elvenhold-virst raft witch" in legal(s)
    assert "move elvenhold-virst raft" not in legal(s)
    s.apply_action("move elvenhold-virst raft witch")
    assert s.coins[0] == 11 and sum(s.hands[0]) == 0
    assert s.discard[WITCH] == 1 and s.discard[6] == 2
    broke = mover({"raft": 2, "witch": 1}, roads, boot="elvenhold", coins=0,
                  rules={"witch": True})
    assert "move elvenhold-virst raft witch" not in legal(broke)
    no_obstacle = mover({"raft": 2, "witch": 1}, {}, boot="elvenhold", rules={"witch": True})
    assert "move elvenhold-virst raft witch" not in legal(no_obstacle)


def test_witch_bypasses_a_tree_too() -> None:
    roads = {"feodor-dagamura": {"counters": ["dragon"], "obstacle": "tree"}}
    s = mover({"dragon": 1, "witch": 1}, roads, rules={"witch": True})
    assert legal(s) >= {"move feodor-dagamura dragon witch"}
    assert "move feodor-dagamura dragon" not in legal(s)


def test_magic_flight_costs_three_coins_earns_no_gold_and_moves_on() -> None:
    s = mover({"witch": 1, "dragon": 1},
              _desert_dragons("albaran-parundia"), rules={"witch": True})
    s.apply_action("fly albaran")
    assert s.coins[0] == 9 and s.earned == 0 and s.markers(0) == 1
    s.apply_action("move albaran-parundia dragon")   # the flight is a step: move on
    assert s.earned == 4
    no_piece = mover({"witch": 1}, {}, rules={"witch": True,
                                              "eg_flight_collects_piece": False})
    no_piece.apply_action("fly albaran")
    assert no_piece.markers(0) == 0
    poor = mover({"witch": 1}, {}, coins=2, rules={"witch": True})
    with pytest.raises(IllegalActionError):
        poor.apply_action("fly albaran")
