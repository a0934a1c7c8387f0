""""Your turn" notices that survive a restart: at-least-once delivery.

A notice's key is its game, ``seq`` and ``turn`` (the store row of the action that
began the turn: after a take-back the same seq begins again at a new row), all in the
payload.  The store records each
notice that is settled for good (``turn_notices``: delivered, given up after its
retries, or moot because its turn passed or its player acted first); nothing is
recorded while a notice waits in a queue, is in flight or waits for its next try.  So a
notice is lost to nothing: when a process loads an unfinished game (one process at its
start, ``directory.LocalGames``; in a cluster the process that claims or adopts it,
``leased.LeasedGames``), it looks at the game's current turn and sends its notice again
if the seat to act is a human whose player has a webhook, the seat has not acted in
this turn yet (then it plainly knows), and no notice of the turn is settled.  A
receiver may therefore get a notice twice (the process stopped between the receiver's
answer and the record, or a cluster's processes both sent it): it drops a repeat by its
key.  A deploy does not notify turns whose notice was settled.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import TYPE_CHECKING

from .live import LiveGame
from .webhooks import Verdict

if TYPE_CHECKING:
    from .hub import Hub

log = logging.getLogger("elfenland.server")

__all__ = ["TurnNotices"]


class TurnNotices:
    """The hub's "your turn" notices: sent when a turn begins (``started``), sent again
    when a loaded game's turn has none settled (``resume``), and asked before each try
    whether they are still worth sending before each new try (``verdict``)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def verdict(self, game: LiveGame, seq: int, seat: int) -> Verdict:
        """Whether the notice of the turn ``seat`` began at ``seq`` is still worth a try:
        not if this process no longer serves the game or is stopping (``elsewhere``: left
        unsettled, for whoever serves the game next), nor once the turn passed or its
        seat acted (``moot``)."""
        hub = self.hub
        if hub.closing or hub.games.get(game.id) is not game \
                or not hub.directory.serving(game):
            return "elsewhere"
        if game.record.status != "running" or game.state.is_terminal():
            return "moot"
        if game.turn_began != (seq, seat) or game.seq != seq:
            return "moot"
        if game.record.seats[seat].kind != "human" or game.standing_in() == seat:
            return "moot"
        return "send"

    def started(self, game: LiveGame) -> None:
        """A new seat is to act: its player's webhook, if any, is called (once a turn)."""
        if game.state.is_terminal():
            return
        seat = game.state.current_player()
        game.turn_began = (game.seq, seat)
        if not 0 <= seat < len(game.record.seats) or game.record.seats[seat].kind != "human":
            return
        self._send(game, seat)

    def _send(self, game: LiveGame, seat: int) -> None:
        deadline = game.clock.deadline if game.clock is not None else None
        turn_row = game.rows[-1] if game.rows else 0
        self.hub._background(self._queue(game, seat, game.seq, deadline, turn_row))

    async def _queue(self, game: LiveGame, seat: int, seq: int, deadline: float | None,
                     turn_row: int) -> None:
        try:
            await self.hub.players.your_turn(game.record, seat, seq, deadline, turn_row,
                                             partial(self.verdict, game, seq, seat))
        except Exception as exc:  # the store is away: sent again at the next load
            log.warning("cannot send the turn notice of game %s: %s", game.id, exc)

    def resume(self, game: LiveGame, delay: float = 0.0) -> None:
        """Look, in the background, whether the game's current turn still needs its
        notice (after ``delay`` seconds: in a cluster the process that handed the game
        over may have one in flight), and send it if so."""
        if game.record.status == "running":
            self.hub._background(self._resume(game, delay))

    async def _resume(self, game: LiveGame, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        try:
            async with game.lock:
                await self._resume_locked(game)
        except Exception as exc:  # the store is away: looked at again at the next load
            log.warning("cannot look for an unsent turn notice of game %s: %s", game.id, exc)

    async def _resume_locked(self, game: LiveGame) -> None:
        hub = self.hub
        if hub.closing or game.suspect or game.record.status != "running" \
                or game.state.is_terminal() or hub.games.get(game.id) is not game:
            return
        seat, seq = game.state.current_player(), game.seq
        if not 0 <= seat < len(game.record.seats) or game.record.seats[seat].kind != "human" \
                or game.standing_in() == seat or game.turn_began == (seq, seat):
            return  # a bot's turn, or this process sent this turn's notice already
        if await hub.players.webhook_of(game.id, seat) is None:
            return
        turn_row = game.rows[-1] if game.rows else 0
        if not await hub.db(hub.store.turn_notice_due, game.id, seq, seat, turn_row):
            return
        log.info("game %s: the turn notice of seat %d at seq %d was never settled; sent "
                 "again", game.id, seat, seq)
        game.turn_began = (seq, seat)
        self._send(game, seat)
