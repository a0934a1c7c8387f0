"""What one player may see.  Hidden: the other hands, the other players' face-down items
(their number shows), the items another player has drawn and not yet laid down, the
supply's and the item pile's contents and order, the other town cards, and, with
``eg_public_gold`` false, the other players' coins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.game import JSONDict, PlayerId, check_viewer
from .actions import from_id, to_text
from .items import CARD_SLUGS, ITEM_SLUGS
from .state import NONE, Phase

if TYPE_CHECKING:
    from .state import ElfengoldState


def _cards(counts: list[int]) -> list[str]:
    return [CARD_SLUGS[k] for k, n in enumerate(counts) for _ in range(n)]


def _items(counts: list[int]) -> list[str]:
    return [ITEM_SLUGS[k] for k, n in enumerate(counts) for _ in range(n)]


def make_view(s: ElfengoldState, viewer: PlayerId | None, log_after: int = 0) -> JSONDict:
    viewer = check_viewer(viewer, s.n, log_after)
    board = s.board
    over = s.is_terminal()
    players = []
    for p in range(s.n):
        mine = p == viewer
        entry: JSONDict = {
            "seat": p,
            "boot": board.towns[s.boots[p]].id,
            "towns": [t.id for t in board.towns if s.visited[p] >> t.index & 1],
            "markers": s.markers(p),
            "cards": sum(s.hands[p]),
            "items": _items(s.items_up[p]),
            "kept_items": _items(s.kept_up[p]),
            "face_down_items": sum(s.items_down[p]) + sum(s.kept_down[p]),
        }
        if s.rules.eg_public_gold or mine or over:
            entry["coins"] = s.coins[p]
        if mine:
            entry["hand"] = _cards(s.hands[p] + [0])
            entry["face_down"] = _items(s.items_down[p])
            entry["kept_face_down"] = _items(s.kept_down[p])
        if s.town_cards[p] != NONE and (mine or over):
            entry["town_card"] = board.towns[s.town_cards[p]].id
            entry["distance"] = s.distance_to_card(p)
        players.append(entry)
    roads = []
    for r, route in enumerate(board.routes):
        if s.counters[r] or s.obstacle[r] != NONE:
            item: JSONDict = {"route": route.id,
                              "counters": [ITEM_SLUGS[k] for k in s.counters[r]]}
            if s.double[r]:
                item["double"] = True
            if s.obstacle[r] != NONE:
                item["obstacle"] = ITEM_SLUGS[s.obstacle[r]]
            if s.gold_piece[r]:
                item["gold_piece"] = True
            roads.append(item)
    log = []
    for i, (player, action_id, public, private) in enumerate(s.log_entries(log_after),
                                                            log_after):
        action = from_id(action_id)
        text = to_text(action, board)
        if player != viewer and action.secret:
            text = "keep secret"
        if player != viewer and action.kind.name == "HIDE":
            text = "hide"
        line = {"seq": i + 1, "player": player, "action": text, **public}
        if player == viewer:
            line.update(private)
        log.append(line)
    view: JSONDict = {
        "game": s.game_name,
        "rules": s.rules.name,
        "options": s.rules.to_json(),
        "viewer": viewer,
        "num_players": s.n,
        "round": s.round,
        "rounds": s.rules.rounds,
        "phase": s.phase.value,
        "starting_player": s.starting,
        "current_player": None if over else s.current,
        "gold_values": {t.id: s.gold_values[t.index] for t in board.towns},
        "display": _cards(s.display),
        "gold_deck": s.gold_deck,
        "supply": sum(s.supply),
        "discard": sum(s.discard),
        "item_pile": sum(s.item_pile),
        "roads": roads,
        "players": players,
        "log": log,
        "seq": s.history_length(),
        # The seat that may take back the last action (the engine's rule,
        # take_back_seat), or None.
        "take_back": s.take_back_seat(),
    }
    if s.phase is Phase.AUCTION:
        view["auction"] = {"row": [ITEM_SLUGS[k] for k in s.row], "item": ITEM_SLUGS[s.row[0]],
                           "high_bid": s.high_bid, "min_bid": s.high_bid + 1,
                           "high_bidder": None if s.high_bidder == NONE else s.high_bidder,
                           "passed": [q for q in range(s.n) if s.passed >> q & 1],
                           "excluded": [q for q in range(s.n) if s.excluded >> q & 1]}
    if s.phase is Phase.DRAW_ITEMS and viewer == s.current:
        view["drawn"] = [ITEM_SLUGS[k] for k in s.drawn]
    if s.phase in (Phase.MOVE, Phase.SETTLE, Phase.DISCARD, Phase.MOVE_DRAW):
        view["earned"] = s.earned
    if viewer is not None and viewer == s.current and not over:
        view["legal"] = [to_text(a, board) for a in s.legal_actions()]
    if over:
        view["scores"] = s.scores()
        view["winners"] = s.winners()
    return view
