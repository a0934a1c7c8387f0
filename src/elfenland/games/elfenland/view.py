"""What one player may see: computed here once and used alike by the server, the bots
and the browser.  Another player's hand, secret counters and town card, and the order
or content of the face-down piles, never appear in it."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ...core.game import JSONDict, PlayerId, check_viewer
from ...core.transport import Transport
from .actions import from_id, route_text, to_text
from .rules import Rules
from .state import NO_PIECE, Phase

if TYPE_CHECKING:
    from .state import ElfenlandState

#: Each transport's notation name by its number: the server builds a view at every
#: action, and naming the cards through the enum was a good part of that.
SLUGS = tuple(t.slug for t in Transport)


def _list(counts: list[int]) -> list[str]:
    return [SLUGS[k] for k, n in enumerate(counts) for _ in range(n)]


@lru_cache(maxsize=64)
def _options(rules: Rules) -> tuple[tuple[str, Any], ...]:
    """The rule set's options (``Rules.to_json``), worked out once per rule set."""
    return tuple(rules.to_json().items())


def make_view(s: ElfenlandState, viewer: PlayerId | None, log_after: int = 0) -> JSONDict:
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
            "counters": _list(s.counters_up[p]),
            "kept_counters": _list(s.kept_up[p]),
            "secret_counters": sum(s.counters_secret[p]) + sum(s.kept_secret[p]),
            "obstacle": s.obstacle_in_hand[p],
        }
        if mine:
            entry["hand"] = _list(s.hands[p])
            entry["secret"] = _list(s.counters_secret[p]) + _list(s.kept_secret[p])
        if s.town_cards[p] != NO_PIECE and (mine or over):
            entry["town_card"] = board.towns[s.town_cards[p]].id
            entry["distance"] = s.distance_to_card(p)
        players.append(entry)
    roads = []
    for r, kind in enumerate(s.route_counter):
        if kind != NO_PIECE:
            item: JSONDict = {"route": board.routes[r].id, "counter": SLUGS[kind]}
            if s.route_obstacle[r] != NO_PIECE:
                item["obstacle"] = s.route_obstacle[r]
            roads.append(item)
    log = []
    for i, (player, action_id, public, private) in enumerate(s.log_entries(log_after),
                                                            log_after):
        action = from_id(action_id)
        text = to_text(action, board)
        if action.secret and player != viewer:
            text = "keep secret"
        entry = {"seq": i + 1, "player": player, "action": text, **public}
        if player == viewer:
            entry.update(private)
        log.append(entry)
    view: JSONDict = {
        "game": s.game_name,
        "rules": s.rules.name,
        "options": dict(_options(s.rules)),
        "viewer": viewer,
        "num_players": s.n,
        "round": s.round,
        "rounds": s.rules.rounds,
        "phase": s.phase.value,
        "discarding": s.discarding,
        "starting_player": s.starting,
        "current_player": s.current_player() if not over else None,
        "face_up": _list(s.face_up),
        "counter_pile": sum(s.counter_pile),
        "card_pile": sum(s.card_pile),
        "roads": roads,
        "players": players,
        "log": log,
        "seq": s._length,
        # The seat that may take back the last action (the engine knows; see
        # take_back_seat), or None.
        "take_back": s.take_back_seat(),
    }
    if viewer is not None and viewer == s.current and not over:
        view["legal"] = [to_text(a, board) for a in s.legal_actions()]
    if s.phase is Phase.MOVE and not s.discarding and viewer == s.current:
        view["route_costs"] = _route_costs(s)
    if over:
        view["scores"] = s.scores()
        view["winners"] = s.winners()
        view["special_victory"] = s.special_victory
    return view


def _route_costs(s: ElfenlandState) -> list[JSONDict]:
    """The steps from the mover's town with their normal price, for the UI's preview."""
    out = []
    here = s.boots[s.current]
    for r, to in s.board.adjacent[here]:
        route = s.board.routes[r]
        direction = 0 if route.a == here else 1
        cost = s.step_cost(r, direction)
        if cost is None:
            continue
        kind, n = cost
        out.append({
            "route": route.id, "to": s.board.towns[to].id,
            "notation": route_text(s.board, r, direction),
            "card": Transport(kind).slug, "cards": n,
            "caravan": s.caravan_size(r) if route.is_road else None,
        })
    return out
