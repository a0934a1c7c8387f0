"""Which games this process holds in memory, and how it comes to hold them.

The one ``Hub`` class is given a game directory, the policy that differs between one
process and several: ``LocalGames`` (one process: it loads every unfinished game at
start and any game asked for) or ``leased.LeasedGames`` (one of several: it claims a
game's lease before serving it, hands games over, adopts orphans).  The hub keeps the
games in ``hub.games`` and calls its directory where the two differ; ``make_hub``
chooses the parts from the configuration.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from .clock import Clock
from .errors import ServerError
from .live import LiveGame, build_state
from .undo import effective_actions

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["GameDirectory", "LocalGames", "load_game"]

log = logging.getLogger("elfenland.server")


class GameDirectory(Protocol):
    """What the hub asks of the policy that loads, claims and forgets its games."""

    async def startup(self) -> None: ...

    def stop_background(self) -> None: ...

    async def release_all(self) -> None: ...

    async def stop(self) -> None: ...

    def close(self) -> None: ...

    async def get(self, game_id: str, keep: bool) -> LiveGame: ...

    def created(self, game: LiveGame) -> None: ...

    def serving(self, game: LiveGame) -> bool: ...

    def forgotten(self, game: LiveGame) -> None: ...

    def seats_changed(self, game_id: str) -> None: ...

    async def claim_finished(self, game_id: str) -> bool: ...

    def release_finished(self, game_id: str) -> None: ...

    async def with_presence(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]: ...


async def load_game(hub: Hub, game_id: str) -> LiveGame:
    """The game as the store holds it: its record, its events, its actions less those
    taken back, replayed, its clock and its seats' players' token hashes (a linked seat
    opens with its player's token); every seat counted as left just now.  The one way
    a game is read into memory, whichever directory asks.  A finished game's actions
    and state come from ``hub.finished`` once built (its record, events and clock are
    read each time: they can still change)."""
    record = await hub.db(hub.store.load_game, game_id)
    if record is None:
        raise ServerError("not-found", f"no game {game_id!r}")
    events = await hub.db(hub.store.events, game_id)
    if record.status == "finished":  # rebuilt once, then kept (finished.py)
        finished = await hub.finished.obtain(hub, record, events)
        state, rows = finished.state(), list(finished.rows)
    else:
        actions, rows = effective_actions(await hub.db(hub.store.actions, game_id), events)
        state = await hub.cpu(build_state, record, actions)
    game = LiveGame(record, state, events=events, rows=rows,
                    player_hashes=await hub.db(hub.store.seat_player_hashes, game_id))
    clock = await hub.db(hub.store.load_clock, game_id)
    game.clock = Clock.loads(clock) if clock is not None else None
    now = time.monotonic()
    game.left_at = {s.seat: now for s in record.seats}
    return game


class LocalGames:
    """One process serves every game: every unfinished game is loaded at start (so its
    bots play on after a restart, and a "your turn" notice never settled is sent again),
    any other when asked for; nothing to claim."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._loading = asyncio.Lock()

    async def startup(self) -> None:
        """Bring back every unfinished game, so its bots play on after a restart."""
        hub = self.hub
        for game_id in await hub.db(hub.store.unfinished_ids):
            try:
                game = await hub.get(game_id)
            except Exception:  # one broken game must not keep the server down
                log.exception("cannot restore game %s", game_id)
                continue
            hub._kick(game)
        hub._background(self._rate_missed())

    async def _rate_missed(self) -> None:
        try:
            await self.hub.rate_missed()
        except Exception as exc:  # the store is away: the games are rated at the next start
            log.warning("cannot look for finished games left unrated: %s", exc)

    def stop_background(self) -> None:
        """No background work takes on games with one process."""

    async def release_all(self) -> None:
        """Nothing to give up with one process."""

    async def stop(self) -> None:
        return None

    def close(self) -> None:
        return None

    async def get(self, game_id: str, keep: bool) -> LiveGame:
        """The game loaded from the store.  A finished game that is only looked at
        (``keep=False``) is not kept in memory."""
        hub = self.hub
        async with self._loading:
            game = hub.games.get(game_id)
            if game is not None:
                return game
            game = await load_game(hub, game_id)
            if keep or game.record.status != "finished":
                hub.games[game_id] = game
                hub._arm(game)
                # A notice the last process never settled (killed, or stopped with it
                # queued) is sent now, if its turn is still on (notices.py).
                hub.notices.resume(game)
            return game

    def created(self, game: LiveGame) -> None:
        """A new game is served where it was created."""
        self.hub.games[game.id] = game

    def serving(self, game: LiveGame) -> bool:
        return True

    def forgotten(self, game: LiveGame) -> None:
        return None

    def seats_changed(self, game_id: str) -> None:
        """One process knows every socket: nothing to record."""

    async def claim_finished(self, game_id: str) -> bool:
        """A finished game left unrated is this process's to rate (it is the only one)."""
        return True

    def release_finished(self, game_id: str) -> None:
        """Nothing was claimed."""

    async def with_presence(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Summaries whose ``connected`` flags also count other processes' sockets: one
        process knows them all."""
        return summaries
