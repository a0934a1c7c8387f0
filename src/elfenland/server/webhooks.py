""""Your turn" webhooks that cannot be turned against the host or against other players.

A webhook is a URL a stranger gave us, so every call is treated as hostile:

- **Where**: the host is resolved at registration and again at every call, and every
  address it resolves to must be public (``netguard.OutboundPolicy``) unless the operator
  allow-listed it; the call then connects to the address that was checked (the URL's
  name stays in ``Host`` and in TLS's SNI), so a name that re-resolves to 127.0.0.1
  between the check and the connection (DNS rebinding) gains nothing.  Redirects are
  never followed (a 302 to an internal URL is just an answer), and proxies from the
  environment are not used.
- **How long**: one deadline for the whole call — resolution, connection, sending and
  reading the answer — because httpx's timeouts are per phase, and an answer dripping a
  byte every few seconds never trips a per-read timeout.
- **How many**: at most one call in flight per player, and a bound on calls in flight
  in all, so a slow webhook holds only its own player's notices.  A player's notices
  wait in a short queue of their own (``WebhookLimits.queue``), at most one per game
  (a notice's ``group``): a newer turn's notice of a game takes the place of the older
  one still waiting, whose turn has passed.  When notices of more games wait than the
  queue holds, the oldest is set aside, not dropped: once the queue has room again it
  comes back, if its ``wanted`` still says ``send`` (a moot one is settled as such, one
  whose game is served elsewhere now is dropped for that process to send).  At most
  ``WebhookLimits.aside`` notices are set aside per player (one per game); beyond that,
  and for a notice that cannot say whether it is still wanted, the oldest is dropped
  with a log line (a restart sends it again if its turn is still on).
- **How often**: a call that failed (no answer, cut, refused, a 5xx, 408 or 429) is
  tried again after each of ``WebhookLimits.retries`` (seconds), by the player's own
  worker, so the player's later notices wait behind it; a 2xx answer delivers it, any
  other answer gives it up at once.  Before each new try the notice's ``wanted`` says
  whether it is still worth sending (its turn may have passed); its ``settled`` hears
  how it ended, which players.py records so that a restart re-sends only what was
  never settled (at-least-once delivery: a receiver drops a repeat by its key).
"""

from __future__ import annotations

import asyncio
import json
import logging
import unicodedata
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

from .errors import ServerError
from .netguard import OutboundPolicy

log = logging.getLogger("elfenland.server.webhooks")

#: The longest webhook URL a player may register.
URL_MAX = 500
#: Bytes of a webhook's answer that are read (and ignored): enough to end the exchange.
ANSWER_READ = 1024


@dataclass(frozen=True)
class WebhookLimits:
    #: Seconds one call may take in all (resolution, connection, request and answer).
    deadline: float = 5.0
    #: Notices one player's webhook may have waiting, one per game; the oldest of more
    #: is set aside until there is room.
    queue: int = 8
    #: Notices (one per game) one player may have set aside beyond ``queue``; more drop
    #: the oldest.
    aside: int = 256
    #: Calls in flight over all players.
    in_flight: int = 64
    #: Seconds before each new try of a notice whose call failed (none: tried once).
    retries: tuple[float, ...] = (5.0, 30.0, 120.0, 600.0)


#: Whether a notice is still worth sending: ``send``; ``moot`` (its turn passed or its
#: player acted: settled without a call); ``elsewhere`` (another process serves its game
#: now and sends it if need be: dropped, unsettled).
Verdict = Literal["send", "moot", "elsewhere"]
#: How a notice ended for good: ``delivered`` (a 2xx answer), ``given-up`` (another
#: answer, or a failure at every try) or ``moot``.
Outcome = Literal["delivered", "given-up", "moot"]
#: Told how a notice ended, and after how many calls.
Settled = Callable[[Outcome, int], Awaitable[None]]

#: Answers worth another try: the receiver is overloaded or timed out.
RETRY_STATUS = frozenset({408, 425, 429})


@dataclass
class Notice:
    """One queued notice: where, what, and the hub's hooks (both optional)."""

    url: str
    payload: dict[str, Any]
    wanted: Callable[[], Verdict] | None = None
    settled: Settled | None = None
    #: Notices of one group (a game) replace each other while they wait: only the
    #: newest matters.  None: never replaced.
    group: str | None = None


class PlayerQueue:
    """One player's waiting notices: at most ``limit`` in the queue, at most one per
    group, in order of arrival; the oldest of more is set aside (``aside``, also one per
    group), to come back when there is room (``WebhookSender._refill``)."""

    __slots__ = ("aside", "n", "waiting")

    def __init__(self) -> None:
        self.waiting: OrderedDict[object, Notice] = OrderedDict()
        self.aside: OrderedDict[object, Notice] = OrderedDict()
        self.n = 0  # numbers the notices without a group (each its own key)

    def key(self, notice: Notice) -> object:
        if notice.group is not None:
            return ("group", notice.group)
        self.n += 1
        return self.n

    def __bool__(self) -> bool:
        return bool(self.waiting or self.aside)


def check_syntax(url: str | None) -> str | None:
    """The URL as registered (None or "" for none), or a ``bad-request`` naming what is
    wrong; where it points is checked by ``WebhookSender.check``."""
    if not url:
        return None
    if len(url) > URL_MAX:
        raise ServerError("bad-request", f"a webhook URL is at most {URL_MAX} characters")
    # Spaces and control characters are never part of a URL; a NUL among them reached
    # the store, where PostgreSQL refused it (an HTTP 500).
    if any(ch.isspace() or unicodedata.category(ch)[0] == "C" for ch in url):
        raise ServerError("bad-request", "a webhook URL has no spaces or control characters")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # "http://[::1/", "http://[zz]/": urlsplit's own refusals
        raise ServerError("bad-request", "a webhook is an http:// or https:// URL") from None
    if parts.scheme not in ("http", "https") or not host:
        raise ServerError("bad-request", "a webhook is an http:// or https:// URL")
    if parts.username or parts.password:
        raise ServerError("bad-request", "a webhook URL carries no user name or password")
    try:
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        raise ServerError("bad-request", "the webhook URL's port is not a number") from None
    return url


class WebhookSender:
    """Queues and sends notices, one call at a time per player (see the module's text)."""

    def __init__(self, policy: OutboundPolicy, limits: WebhookLimits | None = None) -> None:
        self.policy = policy
        self.limits = limits or WebhookLimits()
        self._queues: dict[str, PlayerQueue] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._slots: asyncio.Semaphore | None = None
        self._client: httpx.AsyncClient | None = None
        #: Notices dropped because their player's queue was full and too many waited
        #: aside (for tests and ops).
        self.dropped = 0
        #: Notices set aside from a full queue, and those that came back from there.
        self.set_aside = 0
        self.came_back = 0
        #: Waiting notices replaced by a newer one of their group (a later turn).
        self.replaced = 0

    async def check(self, url: str | None) -> str | None:
        """A URL a player registers: well formed and, resolved now, allowed."""
        url = check_syntax(url)
        if url is not None:
            parts = urlsplit(url)
            assert parts.hostname is not None
            await self.policy.resolve(parts.hostname, _port(parts.scheme, parts.port))
        return url

    def notify(self, player: str, url: str, payload: dict[str, Any],
               wanted: Callable[[], Verdict] | None = None,
               settled: Settled | None = None, group: str | None = None) -> None:
        """Queue a notice for ``player``'s webhook; returns at once.  A waiting notice of
        the same ``group`` is replaced (not settled: its turn passed, and the store
        keeps the latest turn's record only).  A full queue sets its oldest notice
        aside, to come back when there is room (see the module's text); one dropped is
        not settled (a restart sends it again if its turn is still on)."""
        queue = self._queues.setdefault(player, PlayerQueue())
        notice = Notice(url, payload, wanted, settled, group)
        key = queue.key(notice)
        if key in queue.waiting:
            queue.waiting[key] = notice  # its place in the line, the newer turn's news
            self.replaced += 1
        else:
            if queue.aside.pop(key, None) is not None:
                self.replaced += 1
            if len(queue.waiting) >= self.limits.queue:
                self._set_aside(player, queue)
            queue.waiting[key] = notice
        if player not in self._workers:
            self._workers[player] = asyncio.create_task(self._work(player))

    def _set_aside(self, player: str, queue: PlayerQueue) -> None:
        """The queue is full: its oldest notice waits aside (or, if it cannot tell
        whether it is still wanted, or too many wait aside, the oldest goes)."""
        key, oldest = queue.waiting.popitem(last=False)
        if oldest.wanted is None:
            self._drop(player, "the queue is full")
            return
        queue.aside[key] = oldest
        self.set_aside += 1
        if len(queue.aside) > self.limits.aside:
            queue.aside.popitem(last=False)
            self._drop(player, f"{self.limits.aside} more wait aside")

    def _drop(self, player: str, why: str) -> None:
        self.dropped += 1
        log.warning("webhook queue of player %s: %s (%d), the oldest notice is dropped",
                    player, why, self.limits.queue)

    def _refill(self, queue: PlayerQueue) -> list[Notice]:
        """Bring notices set aside back into the queue while it has room, oldest first,
        those still wanted; the moot ones, to be settled as such."""
        moot: list[Notice] = []
        while queue.aside and len(queue.waiting) < self.limits.queue:
            key, notice = queue.aside.popitem(last=False)
            verdict = notice.wanted() if notice.wanted is not None else "send"
            if verdict == "send":
                queue.waiting[key] = notice
                self.came_back += 1
            elif verdict == "moot":
                moot.append(notice)
            # "elsewhere": another process serves the game now, and sends it if need be
        return moot

    async def _work(self, player: str) -> None:
        try:
            queue = self._queues[player]
            while queue:
                for notice in self._refill(queue):
                    await self._settle(notice, "moot", 0)
                if not queue.waiting:
                    continue
                await self._deliver(queue.waiting.popitem(last=False)[1])
        finally:
            self._workers.pop(player, None)
            if not self._queues.get(player):
                self._queues.pop(player, None)

    async def _deliver(self, notice: Notice) -> None:
        """Try the notice until a 2xx answer, a final refusal, or its retries run out;
        then tell its ``settled``."""
        calls = 0
        outcome: Outcome = "given-up"
        for pause in (0.0, *self.limits.retries):
            if pause:  # the first try always goes (the turn's news, however late)
                await asyncio.sleep(pause)
                verdict = notice.wanted() if notice.wanted is not None else "send"
                if verdict == "elsewhere":
                    return
                if verdict == "moot":
                    outcome = "moot"
                    break
            if self._slots is None:
                self._slots = asyncio.Semaphore(self.limits.in_flight)
            async with self._slots:
                status, again = await self._call(notice.url, notice.payload)
            calls += 1
            if status is not None and 200 <= status < 300:
                outcome = "delivered"
                break
            if not again:
                break
        else:
            log.warning("webhook %s given up after %d calls", _shown(notice.url), calls)
        await self._settle(notice, outcome, calls)

    @staticmethod
    async def _settle(notice: Notice, outcome: Outcome, calls: int) -> None:
        if notice.settled is not None:
            try:
                await notice.settled(outcome, calls)
            except Exception as exc:  # not recorded: a restart may send it once more
                log.warning("cannot record how a webhook notice ended: %s", exc)

    async def call(self, url: str, payload: dict[str, Any]) -> int | None:
        """One call under the total deadline; the answer's status, or None when it was
        refused, failed or cut (each logged in one line)."""
        return (await self._call(url, payload))[0]

    async def _call(self, url: str, payload: dict[str, Any]) -> tuple[int | None, bool]:
        """``call``, and whether another try may fare better (a failure, a 5xx, a 408,
        425 or 429; not a 2xx, a redirect or another refusal)."""
        shown = _shown(url)
        try:
            async with asyncio.timeout(self.limits.deadline):
                status = await self._post(url, payload)
        except TimeoutError:
            log.warning("webhook %s cut at its %g s deadline", shown, self.limits.deadline)
            return None, True
        except ServerError as exc:
            # The address is refused now (a name that moved to a private address) or
            # does not resolve: both may change, and a refused try costs no call.
            log.warning("webhook %s refused: %s", shown, exc.message)
            return None, True
        except (httpx.HTTPError, OSError) as exc:
            log.warning("webhook %s failed: %s", shown, exc)
            return None, True
        if 300 <= status < 400:
            log.warning("webhook %s answered %d; redirects are not followed", shown, status)
        elif status >= 400:
            log.warning("webhook %s answered %d", shown, status)
        return status, status >= 500 or status in RETRY_STATUS

    async def _post(self, url: str, payload: dict[str, Any]) -> int:
        parts = urlsplit(url)
        assert parts.hostname is not None
        port = _port(parts.scheme, parts.port)
        addr = (await self.policy.resolve(parts.hostname, port))[0]
        literal = f"[{addr}]" if addr.version == 6 else str(addr)
        target = urlunsplit((parts.scheme, f"{literal}:{port}", parts.path or "/",
                             parts.query, ""))
        extensions = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
        headers = {"Host": parts.netloc.rsplit("@", 1)[-1], "Content-Type": "application/json",
                   "User-Agent": "elfenland-server"}
        client = self._http()
        async with client.stream("POST", target, content=json.dumps(payload).encode(),
                                 headers=headers, extensions=extensions) as answer:
            read = 0
            async for chunk in answer.aiter_raw():
                read += len(chunk)
                if read >= ANSWER_READ:
                    break
            return answer.status_code

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                follow_redirects=False, trust_env=False,
                timeout=httpx.Timeout(self.limits.deadline),
                limits=httpx.Limits(max_connections=self.limits.in_flight,
                                    max_keepalive_connections=0))
        return self._client

    def cancel_all(self) -> None:
        """Drop every queued notice and cut the calls in flight (at shutdown): none of
        them is settled, so the next start sends those whose turn is still on."""
        for task in list(self._workers.values()):
            task.cancel()
        self._workers.clear()
        self._queues.clear()


def _port(scheme: str, port: int | None) -> int:
    return port if port is not None else (443 if scheme == "https" else 80)


def _shown(url: str) -> str:
    """A webhook as logged: scheme, host and port, never its path or query (which may
    carry the player's own secret)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rsplit("@", 1)[-1], "/…", "", ""))
