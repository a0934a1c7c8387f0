"""What every Elfenland state must satisfy, whether it was reached by play or loaded from
a position document.  One set of checks serves the position loader (which turns a
failure into a ``PositionError``), the property tests and ``bench/soak.py``.

``check_state`` looks at one state; ``Watcher`` follows a game and checks what only the
sequence shows (pieces come only from towns a boot reached, hands are down to the limit
after a move, at most the kept counters carry over into a round).
"""

from __future__ import annotations

from ...core.errors import InvariantError
from ...core.game import TERMINAL
from ...core.transport import COST_TABLE, Transport
from .state import CARDS_PER_KIND, COUNTERS_PER_KIND, NO_PIECE, ElfenlandState, Phase

#: ``new_game`` options covering every rule set, variant and reading, for tests and
#: ``bench/soak.py``.
CONFIGURATIONS: tuple[dict[str, object], ...] = (
    {"rules": "amigo"},
    {"rules": "amigo", "destination": True},
    {"rules": "moon"},
    {"rules": "amigo", "caravan": "only-if-needed", "final_keep": False},
    {"rules": "amigo", "destination": True, "final_keep": False},
    {"rules": "moon", "special_victory_at": "round-3", "final_keep": False,
     "caravan": "only-if-needed"},
)


def _fail(message: str) -> None:
    raise InvariantError(message)


def check_state(s: ElfenlandState) -> None:
    """Raise ``InvariantError`` saying what is wrong, if anything is."""
    check_material(s)
    check_turn(s)


def check_material(s: ElfenlandState) -> None:
    """Every travel card and counter is in one place, and pieces lie where they may."""
    n = s.n
    for k in range(7):
        held = 0
        for h in s.hands:
            if h[k] < 0:
                _fail(f"a hand holds {h[k]} {Transport(k).slug} cards")
            held += h[k]
        if s.card_pile[k] < 0 or held + s.card_pile[k] != CARDS_PER_KIND[k]:
            _fail(f"{Transport(k).slug} travel cards: {held} in hands and {s.card_pile[k]} "
                  f"in the pile, but the game has {CARDS_PER_KIND[k]}")
    counters = s.counter_pile[:]
    for k in range(6):
        counters[k] += s.face_up[k]
    for groups in (s.counters_up, s.counters_secret, s.kept_up, s.kept_secret):
        for row in groups:
            for k in range(6):
                if row[k] < 0:
                    _fail(f"a player holds {row[k]} {Transport(k).slug} counters")
                counters[k] += row[k]
    board = s.board
    owners = set()
    for r, kind in enumerate(s.route_counter):
        if kind != NO_PIECE:
            counters[kind] += 1
            route = board.routes[r]
            if not route.is_road or COST_TABLE[Transport(kind)][route.terrain] is None:
                _fail(f"a {Transport(kind).slug} counter cannot lie on route {route.id}")
        owner = s.route_obstacle[r]
        if owner != NO_PIECE:
            if kind == NO_PIECE:
                _fail(f"the obstacle on route {board.routes[r].id} has no counter beside it")
            if not 0 <= owner < n or owner in owners or s.obstacle_in_hand[owner]:
                _fail(f"player {owner}'s obstacle is in two places")
            owners.add(owner)
    for k in range(6):
        if s.counter_pile[k] < 0 or s.face_up[k] < 0 or counters[k] != COUNTERS_PER_KIND:
            _fail(f"{Transport(k).slug} counters: {counters[k]} in the game, but it has "
                  f"{COUNTERS_PER_KIND}")
    if sum(s.face_up) > s.rules.face_up_counters:
        _fail(f"at most {s.rules.face_up_counters} counters lie face up")
    for p in range(n):
        if s.visited[p] >> board.capital & 1:
            _fail("Elvenhold has no town pieces to collect")


def check_turn(s: ElfenlandState) -> None:
    """The phase's bookkeeping agrees with whose turn it is, and that player has
    something to do."""
    n, rules, p = s.n, s.rules, s.current
    if not 1 <= s.round <= rules.rounds:
        _fail(f"round {s.round} of {rules.rounds}")
    if s.phase is not Phase.KEEP and (any(map(any, s.kept_up))
                                      or any(map(any, s.kept_secret))):
        _fail("counters are set aside as kept only during the keep phase")
    if s.phase is Phase.OVER:
        if p != TERMINAL or not s.result or not all(0 <= w < n for w in s.result):
            _fail("a finished game has winners and nobody to act")
        return
    if not 0 <= p < n or s.result is not None:
        _fail(f"player {p} cannot act in a game in progress")
    if s.discarding and (s.phase is not Phase.MOVE
                         or sum(s.hands[p]) <= rules.hand_limit):
        _fail(f"player {p} holds {sum(s.hands[p])} travel cards and need not discard down "
              f"to {rules.hand_limit}")
    turns = {Phase.DRAW_SECRET: n, Phase.DRAW_COUNTERS: rules.counter_draws * n,
             Phase.MOVE: n, Phase.KEEP: n}.get(s.phase)
    if turns is not None:
        if not 0 <= s.step < turns:
            _fail(f"step {s.step}: the {s.phase.value} phase has {turns} turns")
        if p != (s.starting + s.step) % n:
            _fail(f"in the {s.phase.value} phase turns go round from the starting player "
                  f"{s.starting}: step {s.step} is player {(s.starting + s.step) % n}'s, "
                  f"not player {p}'s")
    elif not 0 <= s.passes < n:
        _fail(f"{s.passes} passes in a row would have ended the placement")
    if s.phase is Phase.DRAW_SECRET and sum(s.counter_pile) == 0:
        _fail("nobody can draw a secret counter: the face-down pile is empty")
    elif s.phase is Phase.DRAW_COUNTERS and not s._can_draw():
        _fail("nobody can draw a counter: none is face up or face down")
    elif s.phase is Phase.KEEP:
        _check_keep(s)


def _check_keep(s: ElfenlandState) -> None:
    rules, p = s.rules, s.current
    if rules.counters_kept == 0:
        _fail("these rules keep no counter: there is no keep phase")
    if not rules.final_keep and (s.round >= rules.rounds or (
            rules.keep_when == "round-end" and s._round_outcome() != "next")):
        _fail("with final_keep false no counter is kept when no round follows")
    for q in range(s.n):
        if q != p and (any(s.kept_up[q]) or any(s.kept_secret[q])):
            _fail(f"player {q} is not choosing a counter to keep now")
    kept = sum(s.kept_up[p]) + sum(s.kept_secret[p])
    held = s._counters_of(p)
    if kept >= rules.counters_kept or held == 0 or kept + held <= rules.counters_kept:
        _fail(f"player {p} has no choice of counter to keep (holds {held}, has kept "
              f"{kept} of {rules.counters_kept})")


class Watcher:
    """Follows one game from a state reached by play and checks, after each action, what
    only the sequence of states shows."""

    def __init__(self, s: ElfenlandState) -> None:
        self.been = [{s.boots[p]} for p in range(s.n)]
        self.round = s.round
        self.visited = s.visited[:]

    def after(self, s: ElfenlandState, mover: int, action_text: str, was_discarding: bool,
              round_before: int) -> None:
        for p in range(s.n):
            self.been[p].add(s.boots[p])
            new = s.visited[p] & ~self.visited[p]
            if new & ~sum(1 << t for t in self.been[p]):
                _fail(f"player {p} collected a town piece from a town no boot reached")
            if self.visited[p] & ~s.visited[p]:
                _fail(f"player {p} lost a town piece")
        self.visited = s.visited[:]
        if s.round == round_before and not s.is_terminal() and (
                s.phase is not Phase.MOVE or s.current != mover) and (
                was_discarding or action_text == "end") and \
                sum(s.hands[mover]) > s.rules.hand_limit:
            _fail(f"player {mover} ended their move with more than {s.rules.hand_limit} "
                  "travel cards")
        if s.round != self.round and not s.is_terminal():
            self.round = s.round
            for p in range(s.n):
                if s._counters_of(p) > s.rules.counters_kept:
                    _fail(f"player {p} carried {s._counters_of(p)} counters into round "
                          f"{s.round}")
