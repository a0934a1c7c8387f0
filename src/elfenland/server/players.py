"""Players kept across games, their "your turn" webhooks and their ratings.

A player is a name and a device token (no password: whoever holds the token is the
player, as with seat tokens); a seat taken with a player token is linked to the player.
Ratings are OpenSkill (Plackett–Luce, for any number of players), one per player and game
kind; each bot level is rated like a player (``bot:<level>``), so a newcomer sees how
strong each level is.  Which seats of a finished game are rated is ratings.py's policy;
guests (seats without a player) are never rated.  Webhooks go through webhooks.py, which
keeps them from reaching the host's own network or holding up other players' notices;
how each notice ended is recorded here (``turn_notices``), so that a restart re-sends
only the notices never settled (notices.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any

from pydantic import BaseModel, Field

from .config import Guard
from .errors import ServerError
from .live import now_iso
from .lobby import unrated
from .netguard import OutboundPolicy, own_addresses
from .ratings import MIN_HUMANS, bot_turns, decide, movers
from .store import (
    RATING_KEY,
    EventRecord,
    Fence,
    GameRecord,
    Handover,
    PlayerRecord,
    RatingRecord,
    RatingsMoved,
    Store,
    TurnNoticeRecord,
)
from .undo import effective_actions
from .webhooks import URL_MAX as WEBHOOK_MAX
from .webhooks import Outcome, Verdict, WebhookLimits, WebhookSender, check_syntax

log = logging.getLogger("elfenland.server")
#: Times a game's rating is computed before giving up while other games' ratings keep
#: moving the same players' (``RatingsMoved``).
RATING_TRIES = 5
#: Games whose seated players ``Players.seats`` keeps at most, the least recently used
#: dropped first.  A game's entry goes when the game leaves memory or its rating is
#: decided (``Players.forget``); the bound is for what no such exit drops (a game read
#: only to be rated, a game left open in memory).  A miss reads the store again.
SEATS_CACHED = 4096


class NewPlayer(BaseModel):
    name: str = Field(min_length=1, max_length=40)
    webhook: str | None = Field(default=None, max_length=WEBHOOK_MAX)


class UpdatePlayer(BaseModel):
    token: str = Field(max_length=200)
    name: str | None = Field(default=None, min_length=1, max_length=40)
    #: A URL to set, "" to remove it, None to leave it.
    webhook: str | None = Field(default=None, max_length=WEBHOOK_MAX)


def check_webhook(url: str | None) -> str | None:
    """The URL's form only; ``Players.check_webhook`` also checks where it points."""
    return check_syntax(url)


def player_json(player: PlayerRecord) -> dict[str, Any]:
    return {"id": player.id, "name": player.name, "webhook": player.webhook,
            "created": player.created}


def rating_json(r: RatingRecord) -> dict[str, Any]:
    return {"player": r.player_id, "name": r.name, "game": r.game, "mu": round(r.mu, 3),
            "sigma": round(r.sigma, 3), "rating": round(r.ordinal, 2), "games": r.games,
            "bot": r.player_id.startswith("bot:")}


def ranks(scores: Sequence[int], winners: Sequence[int]) -> list[int]:
    """1 for the winners (ties broken by the rules), then by score, ties sharing a rank."""
    key = [(0 if s in winners else 1, -scores[s]) for s in range(len(scores))]
    order = sorted(set(key))
    return [order.index(k) + 1 for k in key]


def rate(game: str, participants: list[tuple[str, str]], places: list[int],
          known: dict[str, RatingRecord]) -> list[RatingRecord]:
    """New ratings for ``participants`` ((id, name) each) finishing at ``places``."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = []
    for pid, _ in participants:
        r = known.get(pid)
        teams.append([model.rating(mu=r.mu, sigma=r.sigma) if r else model.rating()])
    result = model.rate(teams, ranks=[float(p) for p in places])
    out = []
    for (pid, name), team in zip(participants, result, strict=True):
        before = known.get(pid)
        out.append(RatingRecord(pid, game, name, float(team[0].mu), float(team[0].sigma),
                                (before.games if before else 0) + 1))
    return out


class Players:
    """The hub's link to players: who sits where, webhooks at each new turn, ratings at
    each game's end.  Webhook calls never hold up the loop nor each other (webhooks.py)."""

    def __init__(self, store: Store, guard: Guard | None = None,
                 executor: Executor | None = None, public_url: str = "") -> None:
        self.store = store
        #: The server's address for players (``--public-url``), before each game's link.
        self.public_url = public_url
        #: The threads store calls run on: the hub's, so that its shutdown waits for
        #: them before it closes the store (a SQLite connection closed under a running
        #: query crashes the process).
        self.executor = executor
        guard = guard or Guard()
        policy = OutboundPolicy.from_items(guard.webhook_allow, own_addresses())
        self.webhooks = WebhookSender(policy, WebhookLimits(deadline=guard.webhook_deadline,
                                                            retries=guard.webhook_retries))
        #: game id -> seat -> player (a cache of seat_players, ``SEATS_CACHED`` games
        #: at most, the games this process serves).
        self.seats: OrderedDict[str, dict[int, PlayerRecord]] = OrderedDict()
        self.seats_cached = SEATS_CACHED

    async def db(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    async def check_webhook(self, url: str | None) -> str | None:
        """A webhook a player registers: well formed, and resolving only to addresses
        the server may call."""
        return await self.webhooks.check(url)

    async def by_token(self, token: str | None) -> PlayerRecord:
        from .tokens import hash_token

        player = None if not token else await self.db(self.store.player_by_token_hash,
                                                      hash_token(token))
        if not isinstance(player, PlayerRecord):
            raise ServerError("bad-token", "no player has that token")
        return player

    async def seated(self, game_id: str) -> dict[int, PlayerRecord]:
        seats = self.seats.get(game_id)
        if seats is not None:
            self.seats.move_to_end(game_id)
            return seats
        read: dict[int, PlayerRecord] = await self.db(self.store.seat_players, game_id)
        # A read that began before a concurrent ``link`` stored its seat must not replace
        # what that link cached meanwhile: the first entry stays.
        seats = self.seats.setdefault(game_id, read)
        while len(self.seats) > self.seats_cached:
            self.seats.popitem(last=False)
        return seats

    def updated(self, player: PlayerRecord) -> None:
        """The player changed their name or webhook: the seats they hold say so (their
        next turn notice goes to the new webhook)."""
        for seats in self.seats.values():
            for seat, held in seats.items():
                if held.id == player.id:
                    seats[seat] = player

    def forget(self, game_id: str) -> None:
        """Drop the game's entry: it left this process's memory (in a cluster another
        process may link its seats next), or its rating is decided (nothing asks after
        a finished game's seats again)."""
        self.seats.pop(game_id, None)

    async def link(self, game_id: str, seat: int, player: PlayerRecord) -> None:
        await self.db(self.store.link_seat, game_id, seat, player.id)
        (await self.seated(game_id))[seat] = player

    async def webhook_of(self, game_id: str, seat: int) -> PlayerRecord | None:
        """The player linked to the seat, if they gave a webhook: their record as the
        store has it now, as in a cluster another process may have taken their change
        (``updated`` tells only this process's cache), and the cache takes it too."""
        seats = await self.seated(game_id)
        linked = seats.get(seat)
        if linked is None:
            return None
        player: PlayerRecord | None = await self.db(self.store.player_by_id, linked.id)
        if player is None:
            return None
        if seats.get(seat) is linked:
            seats[seat] = player
        return player if player.webhook else None

    async def your_turn(self, record: GameRecord, seat: int, seq: int,
                        deadline: float | None, turn_row: int = 0,
                        wanted: Callable[[], Verdict] | None = None) -> bool:
        """Tell the seat's player it is their turn, if they gave a webhook (whether a
        notice was queued).  ``(game, seq, turn)`` is the notice's key, ``turn`` being
        ``turn_row``, the store row of the action that began the turn (0 at the start):
        after a take-back, the same seq begins again at a new row, a new turn the
        receiver must not drop as a repeat.  ``wanted`` says before each try whether it
        is still worth sending.  How it ends is recorded in the store."""
        player = await self.webhook_of(record.id, seat)
        if player is None or player.webhook is None:
            return False
        payload = {"type": "your-turn", "game": record.id, "kind": record.game,
                   "seat": seat, "seq": seq, "turn": turn_row, "deadline": deadline,
                   "url": f"{self.public_url}/#/game/{record.id}", "player": player.id}

        async def settled(outcome: Outcome, calls: int) -> None:
            await self.db(self.store.record_turn_notice, TurnNoticeRecord(
                record.id, seq, seat, player.id, turn_row, outcome, calls, now_iso()))

        # One notice per game waits in the player's queue: a later turn's replaces it.
        self.webhooks.notify(player.id, player.webhook, payload, wanted, settled,
                             group=record.id)
        return True

    async def rate_finished(self, record: GameRecord, scores: list[int], winners: list[int],
                            seq: int, created: str, fence: Fence | None = None
                            ) -> EventRecord | None:
        """``_rate_finished``; then the game's seats leave the cache (a retry, after a
        store failure, reads them again)."""
        try:
            return await self._rate_finished(record, scores, winners, seq, created, fence)
        finally:
            self.forget(record.id)

    async def _rate_finished(self, record: GameRecord, scores: list[int], winners: list[int],
                             seq: int, created: str, fence: Fence | None = None
                             ) -> EventRecord | None:
        """Decide a finished game's rating, once: rated (the ratings with a ``rated``
        event), or left out by the policy (an ``unrated`` event with the reason), both
        under the key ``rated``, so that the start-up scan (``unrated_finished_ids``)
        looks at a game only until it is decided.  A game with fewer than two players
        linked to its seats is never rated and never listed: nothing is stored for it.
        The event stored, or None (nothing to store, or decided already)."""
        from .hub import build_state  # the hub imports this module

        seated = await self.seated(record.id)
        if len({p.id for p in seated.values()}) < MIN_HUMANS:
            return None
        if unrated(record):  # no replay needed to know that
            decision = decide(record, seated, [], {})
        else:
            events = await self.db(self.store.events, record.id)
            actions, _ = effective_actions(await self.db(self.store.actions, record.id),
                                           events)
            handovers = [Handover(seat, at, to_bot) for seat, at, to_bot in
                         await self.db(self.store.handovers, record.id)]
            played = await self.db(lambda: movers(build_state(record), actions))
            decision = decide(record, seated, played, bot_turns(played, events, handovers))
        if not decision.chosen:
            event = EventRecord("unrated", None, seq, decision.body(), created,
                                key=RATING_KEY)
            stored: EventRecord | None = await self.db(
                self.store.add_event, record.id, event, None, None, fence)
            return stored
        all_places = ranks(scores, winners)
        participants = [(pid, name) for _, pid, name in decision.chosen]
        places = [all_places[seat] for seat, _, _ in decision.chosen]
        for _ in range(RATING_TRIES):
            known = {r.player_id: r for r in await self.db(
                self.store.ratings, record.game, [p for p, _ in participants])}
            new = rate(record.game, participants, places, known)
            event = EventRecord("rated", None, seq,
                                {"ratings": [rating_json(r) for r in new]}, created,
                                key=RATING_KEY)
            try:
                done = await self.db(self.store.rate_game, record.id, event, new, fence)
            except RatingsMoved as exc:  # another game's rating came first: again
                log.info("game %s is rated again: %s", record.id, exc)
                continue
            return event if done else None
        raise RatingsMoved(f"the ratings of game {record.id} kept moving")

    def close(self) -> None:
        """Stop sending: notices still queued or in flight are dropped unsettled, so the
        next start (or the process that takes their game over) sends them again if their
        turn is still on."""
        self.webhooks.cancel_all()
