"""What one player may see, computed once and used alike by the server, the bots and the
browser.  Another player's hand, anyone's gold total but the viewer's (until the game
ends), the deck's content and the cards others drew never appear in it; the discard pile
lies face up and is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.game import JSONDict, PlayerId, check_viewer
from .actions import from_id, to_text
from .cards import Card, counts_to_dict, counts_to_list, obstacle_for, town_value
from .rules import BUY_PRICES
from .state import CLOCKWISE, GOLD, NO_ONE, OBSTACLE, TERRAIN, THIEF, Phase, town_bit

if TYPE_CHECKING:
    from .state import KingOfTheElvesState


def _owner(value: int) -> int | None:
    return None if value == NO_ONE else value


def _kingdoms(s: KingOfTheElvesState) -> list[JSONDict]:
    out = []
    for k, kingdom in enumerate(s.kingdoms):
        towns = []
        for i, t in enumerate(kingdom):
            towns.append({
                "ref": f"{k}.{i}",
                "town": Card(t[TERRAIN]).slug,
                "value": town_value(t[TERRAIN]),
                "gold": _owner(t[GOLD]),
                "thief": _owner(t[THIEF]),
                "obstacle": _owner(t[OBSTACLE]),
                "obstacle_card": obstacle_for(t[TERRAIN]).slug,
            })
        out.append({"owner": k, "towns": towns})
    return out


def _journey(s: KingOfTheElvesState) -> JSONDict | None:
    if s.phase is not Phase.JOURNEY:
        return None
    nxt = s.next_town()
    return {
        "traveller": s.current,
        "at": None if s.at[0] == NO_ONE else f"{s.at[0]}.{s.at[1]}",
        "next": None if nxt is None else f"{nxt[0]}.{nxt[1]}",
        "direction": "clockwise" if s.direction == CLOCKWISE else "counterclockwise",
        "turned": s.turned,
        "escort": _owner(s.escort),
        "escort_towns": [f"{k}.{i}" for k, i in s.ring() if s.escort_towns & town_bit((k, i))],
        "visited": [f"{k}.{i}" for k, i in s.ring() if s.visited & town_bit((k, i))],
        "own_town_visited": s.own_visited,
        "earned": s.earned,
        "paid": s.paid,
    }


def make_view(s: KingOfTheElvesState, viewer: PlayerId | None, log_after: int = 0
              ) -> JSONDict:
    viewer = check_viewer(viewer, s.n, log_after)
    over = s.is_terminal()
    players = []
    for p in range(s.n):
        entry: JSONDict = {
            "seat": p,
            "cards": sum(s.hands[p]),
            "banners": s.banners_left(p),
            "bought": s.bought[p],
            "next_price": BUY_PRICES[s.bought[p]] if s.bought[p] < len(BUY_PRICES) else None,
            "set_aside": s.set_aside[p],
            "dragon": p == s.dragon,
        }
        if p == viewer:
            entry["hand"] = counts_to_list(s.hands[p])
        if p == viewer or over:
            entry["gold"] = s.gold[p]
        players.append(entry)
    log = []
    for i, (player, action_id, public, private) in enumerate(s.log_entries(log_after),
                                                            log_after):
        item: JSONDict = {"seq": i + 1, "player": player, "action": to_text(from_id(action_id)),
                          **public}
        if player == viewer:
            item.update(private)
        log.append(item)
    view: JSONDict = {
        "game": s.game_name,
        "rules": s.rules.name,
        "options": s.rules.to_json(),
        "viewer": viewer,
        "num_players": s.n,
        "round": s.round,
        "rounds": s.rounds,
        "phase": s.phase.value,
        "dragon": s.dragon,
        "current_player": None if over else s.current,
        "pending": s.pending.value or None,
        "pending_count": s.pending_count,
        "passes": s.passes,
        "kingdoms": _kingdoms(s),
        "deck": sum(s.deck),
        "discard": counts_to_dict(s.discard),
        "bank": {"set_aside": sum(s.set_aside)},
        "journey": _journey(s),
        "players": players,
        "log": log,
        "seq": s.history_length(),
        # The seat that may take back the last action (the engine knows; see
        # take_back_seat), or None.
        "take_back": s.take_back_seat(),
    }
    if viewer is not None and viewer == s.current and not over:
        view["legal"] = [to_text(a) for a in s.legal_actions()]
    if over:
        view["bank"]["gold"] = s.bank
        view["scores"] = s.scores()
        view["winners"] = s.winners()
    return view
