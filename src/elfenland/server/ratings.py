"""Which seats of a finished game are rated: the rating policy, in one place.

A rating is worth something only if it cannot be had without playing other people, so
(docs/server.md, "Ratings"):

- **Rated games**: only games played by a named rule set with the server's own seed
  (``lobby.seed_facts``'s ``unrated`` — a chosen seed, or custom options, mark a game
  unrated).
- **Human seats**: a player's seat is rated only if a human played it; a seat a bot
  played for more than ``BOT_SHARE`` of its turns (handed to a bot, or stood in for
  after timeouts) is not rated, so handing one's seat to the ``search`` bot earns
  nothing.
- **One seat per player**: a player holding two seats of one game is rated for neither.
- **Two humans**: a game is rated only if at least two distinct players' seats are rated.
  Bots are rated (``bot:<level>``) from those games alone, as participants beside the
  humans.  A game against bots alone is never rated: it costs a farmer nothing but time,
  a script can repeat it without end, and the bot's rating would be moved by it too.
  With two humans every point won is lost by another player who played; a second
  account fed wins by its owner loses rating and, once it is far below, each win over it
  moves the winner's rating by almost nothing (Plackett–Luce's update shrinks with the
  expected outcome), so farming with a puppet levels off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..core.game import GameState
from .botseats import bot_title
from .lobby import seed_facts
from .store import EventRecord, GameRecord, Handover, PlayerRecord

#: The largest share of a seat's turns a bot may have played for it to stay rated.
BOT_SHARE = 0.1
#: Distinct rated players a game needs to be rated at all.
MIN_HUMANS = 2


def movers(state: GameState, actions: Sequence[str]) -> list[int]:
    """The seat that played each action, replayed from the game's first state."""
    out: list[int] = []
    for action in actions:
        out.append(state.current_player())
        state.apply_action(action)
    return out


def bot_turns(movers: Sequence[int], events: Sequence[EventRecord],
              handovers: Sequence[Handover]) -> dict[int, int]:
    """For each seat, how many of its actions a bot played: the actions after it was
    handed to a bot and before it was taken back, every action from a timeout "for
    good" on, and the actions of a turn a bot stood in for after a timeout."""
    changes: dict[int, list[tuple[int, bool]]] = {}
    for h in handovers:
        changes.setdefault(h.seat, []).append((h.seq, h.to_bot))
    stand_in: dict[int, set[int]] = {}
    for e in events:
        if e.kind == "timeout" and e.seat is not None:
            if e.body.get("for_good"):
                changes.setdefault(e.seat, []).append((e.seq, True))
            else:
                stand_in.setdefault(e.seat, set()).add(e.seq)
    for seat in changes:
        changes[seat].sort(key=lambda c: c[0])
    out: dict[int, int] = {}
    standing = -1  # the seat a bot stands in for now (a timed-out turn's actions)
    for i, seat in enumerate(movers):
        if i in stand_in.get(seat, ()):
            standing = seat
        elif standing != seat:
            standing = -1
        handed = False
        for seq, to_bot in changes.get(seat, ()):
            if seq > i:
                break
            handed = to_bot
        if handed or standing == seat:
            out[seat] = out.get(seat, 0) + 1
    return out


def human_played(seat: int, movers: Sequence[int], bots: Mapping[int, int]) -> bool:
    turns = sum(1 for m in movers if m == seat)
    return bots.get(seat, 0) <= BOT_SHARE * turns


@dataclass(frozen=True)
class Decision:
    """The policy's answer for one finished game: its rated participants (seat, rating
    id, name), or none and why (``reason``: ``unrated-table`` — a chosen seed, custom
    rules or the route hint —, or ``too-few-players`` — fewer than ``MIN_HUMANS``
    distinct players' seats left —), with each linked seat left out and why
    (``two-seats``, ``bot-played``, ``no-token``)."""

    chosen: list[tuple[int, str, str]]
    reason: str | None = None
    left_out: dict[int, str] = field(default_factory=dict)

    def body(self) -> dict[str, object]:
        """The ``unrated`` event's body: the reason, and the seats left out."""
        return {"reason": self.reason,
                "left_out": [{"seat": s, "why": w} for s, w in sorted(self.left_out.items())]}


#: A game marked ``unrated`` (a chosen seed, custom rules, the route hint).
UNRATED_TABLE = "unrated-table"
#: Fewer than ``MIN_HUMANS`` distinct players' seats are rated after the policy.
TOO_FEW_PLAYERS = "too-few-players"


def decide(record: GameRecord, seated: Mapping[int, PlayerRecord], movers: Sequence[int],
           bots: Mapping[int, int]) -> Decision:
    """The policy's decision for a finished game (``rated_participants``, with why not)."""
    if seed_facts(record)["unrated"]:
        return Decision([], UNRATED_TABLE)
    holders: dict[str, int] = {}
    for held in seated.values():
        holders[held.id] = holders.get(held.id, 0) + 1
    humans: list[tuple[int, str, str]] = []
    machines: list[tuple[int, str, str]] = []
    left_out: dict[int, str] = {}
    for s in record.seats:
        player = seated.get(s.seat)
        if player is not None:
            if holders[player.id] != 1:
                left_out[s.seat] = "two-seats"
            elif not human_played(s.seat, movers, bots):
                left_out[s.seat] = "bot-played"
            elif s.token_hash is None:
                left_out[s.seat] = "no-token"
            else:
                humans.append((s.seat, player.id, player.name))
        elif s.kind == "bot" and s.token_hash is None and s.level:
            machines.append((s.seat, f"bot:{s.level}", bot_title(s.level)))
    if len({pid for _, pid, _ in humans}) < MIN_HUMANS:
        return Decision([], TOO_FEW_PLAYERS, left_out)
    return Decision(sorted(humans + machines), None, left_out)


def rated_participants(record: GameRecord, seated: Mapping[int, PlayerRecord],
                       movers: Sequence[int], bots: Mapping[int, int]
                       ) -> list[tuple[int, str, str]]:
    """The (seat, rating id, name) of each rated participant; empty when the game is not
    rated at all."""
    return decide(record, seated, movers, bots).chosen
