"""Phase 4, rule by rule (rules 29–38 and Q3 of the specification)."""

from __future__ import annotations

import pytest

import elfenland
from elfenland.core.errors import IllegalActionError
from elfenland.games.elfengold import ElfengoldState
from elfenland.games.elfengold.items import ITEM_SLUGS, MAX_BID

from .helpers import legal, position


def auction(row: list[str], coins: list[int], starting: int = 0,
            **rules: object) -> ElfengoldState:
    n = len(coins)
    return position(n, phase="auction", auction={"row": row}, coins=coins,
                    starting_player=starting, current_player=starting, rules=rules)


def run(s: ElfengoldState, *actions: str) -> None:
    for a in actions:
        s.apply_action(a)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_two_items_per_player_are_turned_up(players: int) -> None:
    s = elfenland.new_game(game="elfengold", players=players, seed=3)
    assert isinstance(s, ElfengoldState)
    while s.phase.value != "auction":
        s.apply_action(s.legal_actions()[0])
    assert len(s.row) == 2 * players
    assert sum(s.item_pile) == 48 - 2 * players - 2 * players


def test_the_starting_player_opens_every_item() -> None:
    s = auction(["dragon", "unicorn", "tree"], [12, 12, 12], starting=1)
    assert s.current == 1
    run(s, "bid 2", "pass", "pass")                 # 1 bids; 2 and 0 pass: sold to 1
    assert s.items_up[1][5] == 1 and s.coins[1] == 10
    assert s.current == 1 and ITEM_SLUGS[s.row[0]] == "unicorn"
    run(s, "pass")                                  # the opener may pass first
    assert s.current == 2
    run(s, "bid 1", "pass")                         # 0 passes: 2 wins
    assert s.items_up[2][3] == 1 and s.current == 1


def test_raise_by_any_amount_but_above_the_high_bid() -> None:
    s = auction(["dragon"], [12, 12, 12])
    run(s, "bid 1")
    assert "bid 1" not in legal(s) and "bid 2" in legal(s) and "bid 37" in legal(s)
    with pytest.raises(IllegalActionError, match="exceed"):
        s.apply_action("bid 1")
    run(s, "bid 37")
    assert s.high_bid == 37 and s.high_bidder == 1


def test_a_pass_is_final_for_the_item_only() -> None:
    s = auction(["dragon", "elfcycle"], [12, 12, 12])
    run(s, "pass", "bid 1", "bid 2")      # 0 passes, 1 bids, 2 raises
    assert s.current == 1                 # 0 is skipped: its pass is final
    run(s, "bid 3", "pass")               # 2 passes: 1 wins at 3
    assert s.items_up[1][5] == 1 and s.coins[1] == 9
    assert s.current == 0                 # the next item: 0 bids again
    assert "bid 1" in legal(s)


def test_the_winner_pays_the_bank_and_lays_the_item_face_up() -> None:
    s = auction(["gold-piece"], [12, 12])
    paid_in = s.paid_in
    run(s, "bid 5", "pass")
    assert s.coins == [7, 12] and s.paid_in == paid_in + 5
    assert s.items_up[0][8] == 1 and s.items_down[0][8] == 0
    assert s.phase.value == "place"


def test_a_winner_who_cannot_pay_hands_over_all_coins_and_the_item_goes_again() -> None:
    s = auction(["dragon", "tree"], [12, 3, 12])
    run(s, "pass", "bid 20", "pass")       # 1 wins at 20 but holds 3
    assert s.coins[1] == 0 and s.items_up[1][5] == 0
    assert ITEM_SLUGS[s.row[0]] == "dragon" and s.excluded == 0b010
    assert s.current == 0 and s.passed == 0 and s.high_bid == 0   # the opener again
    assert s.view(None)["log"][-1]["default"] == {"item": "dragon", "player": 1, "paid": 3}
    run(s, "bid 1", "pass")                # 1 is out of this item: 2 passes, 0 wins
    assert s.items_up[0][5] == 1 and s.coins[0] == 11
    assert s.excluded == 0 and s.current == 0       # next item: 1 may bid again
    run(s, "pass")
    assert s.current == 1


def test_overbid_capped_by_option() -> None:
    s = auction(["dragon"], [5, 12, 12], eg_overbid="capped")
    assert "bid 5" in legal(s) and "bid 6" not in legal(s)
    free = auction(["dragon"], [5, 12, 12])
    assert f"bid {MAX_BID}" in legal(free)


def test_defaulter_rebids_by_option_until_a_default_at_zero_coins() -> None:
    s = auction(["dragon"], [12, 3, 12], eg_defaulter_rebids=True)
    run(s, "pass", "bid 20", "pass")
    assert s.excluded == 0 and s.coins[1] == 0
    run(s, "pass", "bid 4", "pass")       # 1 defaults again, holding 0: now excluded
    assert s.excluded == 0b010


def test_an_item_nobody_bids_on_goes_back_into_the_pile() -> None:
    s = auction(["sea-monster", "dragon"], [12, 12, 12])
    pile = s.item_pile[7]
    run(s, "pass", "pass", "pass")
    assert s.item_pile[7] == pile + 1 and ITEM_SLUGS[s.row[0]] == "dragon"
    assert s.view(None)["log"][-1]["returned"] == "sea-monster"
    assert sum(s.items_up[p][7] for p in range(3)) == 0


def test_the_last_player_may_still_bid_when_the_others_passed() -> None:
    s = auction(["dragon"], [12, 12, 12])
    run(s, "pass", "pass")
    assert s.current == 2 and "bid 1" in legal(s)
    run(s, "bid 1")
    assert s.items_up[2][5] == 1


def test_a_player_may_buy_any_number_of_items() -> None:
    s = auction(["dragon", "unicorn", "tree"], [12, 12])
    for _ in range(3):
        run(s, "bid 1", "pass")
    assert sum(s.items_up[0]) == 3 and s.coins[0] == 9 and s.phase.value == "place"


def test_the_view_shows_the_auction_to_everybody() -> None:
    s = auction(["dragon", "tree"], [12, 3, 12])
    run(s, "pass", "bid 20", "pass")         # 1 defaults: out of the dragon's re-auction
    run(s, "bid 2")
    for viewer in (None, 0, 1, 2):
        view = s.view(viewer)["auction"]
        assert view == {"row": ["dragon", "tree"], "item": "dragon", "high_bid": 2,
                        "min_bid": 3, "high_bidder": 0, "passed": [], "excluded": [1]}
    assert "bid 3" in s.view(2)["legal"] and "legal" not in s.view(0)
