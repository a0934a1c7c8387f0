"""Game clocks: the two tempos, each seat's time bank and timeouts, and the one asyncio
timer per game that fires at its deadline.

A game created with a tempo has a clock.  A *turn* is the run of actions one seat takes
in a row; it has ``per_move`` seconds, plus (live tempo) whatever is left in the seat's
bank, which pays for the seconds a turn runs over.  When the time is up a bot plays the
rest of that turn for the seat (the seat stays the player's); after ``max_timeouts`` of
them a bot plays the seat for the rest of the game.

The clock is stored as JSON next to the game and written in the same transaction as
each action, so its deadline survives a restart.  Only the process that serves a game
arms its timer: ``Timers`` holds one ``loop.call_at`` handle per game with a pending
deadline (no polling), armed when a game is loaded and re-armed after each change.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import BaseModel, Field

Tempo = Literal["live", "turn"]

#: Defaults per tempo: seconds per turn, seconds in each seat's bank.
TEMPO_DEFAULTS: dict[str, tuple[float, float]] = {
    "live": (120.0, 300.0),
    "turn": (24 * 3600.0, 0.0),
}
#: The longest a turn may be given (a fortnight), and the most timeouts before a bot
#: takes a seat over for good.
MAX_PER_MOVE = 14 * 24 * 3600.0
MAX_TIMEOUTS = 20


class TempoRequest(BaseModel):
    """``tempo`` in a create-game request: the kind, and optionally its times."""

    kind: Tempo
    per_move: float | None = Field(default=None, gt=0, le=MAX_PER_MOVE)
    bank: float | None = Field(default=None, ge=0, le=MAX_PER_MOVE)
    max_timeouts: int = Field(default=3, ge=1, le=MAX_TIMEOUTS)


@dataclass(frozen=True)
class Clock:
    """A game's clock.  Times are wall-clock seconds (``time.time()``), so a deadline
    stored before a restart means the same moment after it."""

    tempo: Tempo
    per_move: float
    bank: float
    max_timeouts: int
    banks: tuple[float, ...]
    timeouts: tuple[int, ...]
    #: The seat whose turn runs, the game's seq when it began and when.
    turn_seat: int | None = None
    turn_seq: int = 0
    turn_started: float = 0.0
    #: True once the turn's time ran out: a bot plays the rest of this turn.
    stand_in: bool = False

    @classmethod
    def new(cls, req: TempoRequest, players: int, min_per_move: float) -> Clock:
        per_move, bank = TEMPO_DEFAULTS[req.kind]
        per_move = max(min_per_move, req.per_move if req.per_move is not None else per_move)
        bank = req.bank if req.bank is not None else bank
        return cls(req.kind, per_move, bank, req.max_timeouts, (bank,) * players,
                   (0,) * players)

    @property
    def deadline(self) -> float | None:
        if self.turn_seat is None or self.stand_in:
            return None
        return self.turn_started + self.per_move + self.banks[self.turn_seat]

    def turn(self, seat: int | None, seq: int, now: float) -> Clock:
        """The clock after an action (or the start) leaves ``seat`` to act at ``seq``
        (None: the game is over).  The same seat acting on keeps its turn's time; a new
        seat's turn starts now, and the seat whose turn ended pays its overrun from its
        bank."""
        if seat is not None and seat == self.turn_seat:
            return self
        banks = list(self.banks)
        if self.turn_seat is not None and not self.stand_in:
            over = now - self.turn_started - self.per_move
            if over > 0:
                banks[self.turn_seat] = max(0.0, banks[self.turn_seat] - over)
        return replace(self, banks=tuple(banks), turn_seat=seat, turn_seq=seq,
                       turn_started=now, stand_in=False)

    def timed_out(self) -> Clock:
        """The turn's time ran out: its seat's bank is spent and a timeout counted."""
        assert self.turn_seat is not None
        seat = self.turn_seat
        banks = list(self.banks)
        banks[seat] = 0.0
        timeouts = list(self.timeouts)
        timeouts[seat] += 1
        return replace(self, banks=tuple(banks), timeouts=tuple(timeouts), stand_in=True)

    def out_for_good(self, seat: int) -> bool:
        return self.timeouts[seat] >= self.max_timeouts

    def public(self) -> dict[str, Any]:
        """What every client is shown (``clock`` in updates and summaries)."""
        return {"tempo": self.tempo, "per_move": self.per_move, "bank": self.bank,
                "max_timeouts": self.max_timeouts, "banks": list(self.banks),
                "timeouts": list(self.timeouts), "seat": self.turn_seat,
                "turn_started": self.turn_started, "deadline": self.deadline,
                "stand_in": self.stand_in, "now": time.time()}

    def dumps(self) -> str:
        return json.dumps(dict(self.__dict__), separators=(",", ":"))

    @classmethod
    def loads(cls, text: str) -> Clock:
        data = json.loads(text)
        data["banks"] = tuple(float(b) for b in data["banks"])
        data["timeouts"] = tuple(int(t) for t in data["timeouts"])
        return cls(**data)


@dataclass
class Timers:
    """One pending ``loop.call_at`` per game with a deadline: arming again replaces the
    game's handle, so a game never has two.  ``fire(game_id)`` runs as a task at the
    deadline (at once if it passed while the server was down)."""

    fire: Callable[[str], Any]
    handles: dict[str, asyncio.TimerHandle] = field(default_factory=dict)

    def arm(self, game_id: str, deadline: float | None) -> None:
        self.cancel(game_id)
        if deadline is None:
            return
        loop = asyncio.get_running_loop()
        when = loop.time() + max(0.0, deadline - time.time())
        self.handles[game_id] = loop.call_at(when, self._run, game_id)

    def _run(self, game_id: str) -> None:
        self.handles.pop(game_id, None)
        asyncio.get_running_loop().create_task(self.fire(game_id))

    def cancel(self, game_id: str) -> None:
        handle = self.handles.pop(game_id, None)
        if handle is not None:
            handle.cancel()

    def cancel_all(self) -> None:
        for handle in self.handles.values():
            handle.cancel()
        self.handles.clear()
