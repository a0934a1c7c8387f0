"""The server's settings in one place: what the command line sets and tests override."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """What protects the server from one client: each refusal has its protocol code."""

    #: Largest WebSocket message or HTTP body, in bytes ("too-large").
    max_message: int = 16 * 1024
    #: Messages a connection may send per second on average, and in one burst
    #: ("rate-limited").
    messages_per_second: float = 10.0
    burst: int = 20
    #: Unfinished (open or running) games one host may have created ("too-many-games").
    games_per_host: int = 20
    #: Seconds without a connection after which a seat counts as absent, so that another
    #: player may hand it to a bot.
    absent_after: float = 10.0
    #: Messages waiting for a slow client before the server drops the connection.
    send_queue: int = 256
    #: The shortest time per turn a game's tempo may set, in seconds (tests lower it).
    min_per_move: float = 10.0
    #: Replies that carry a game's log, rationed per client address over all its sockets:
    #: a socket's first update and each ``sync`` cost one unit, and one more for every
    #: ``reply_entries`` log entries they carry.  Such a reply costs the server a view
    #: and the log (8 ms and 24 KB for a 300-action game from its start) for a message of
    #: a few bytes, so the per-connection rate alone let a dozen sockets from one
    #: address fill a core.  A reconnect asks only for what it missed (one unit), and the
    #: burst is generous: a room behind one NAT reconnects at once after a restart.
    replies_per_address: float = 20.0
    reply_address_burst: int = 200
    reply_entries: int = 50
    #: HTTP work per client address (an IPv6 address's /64), over all its connections
    #: (``http_ration.py``): every ``/api/`` request costs a unit, and one more for every
    #: ``work_entries`` actions the server replays to answer it (a game it does not hold
    #: read from the store, a replay's step, a record); the lobby listing costs 9.  A
    #: unit is about a millisecond of one core, so an address keeps at most some 6 % of
    #: a core busy once its burst is spent.  The burst lets a player step through a
    #: whole 300-action game at 10 steps a second (about 3,000 units in 30 s, each step
    #: reading the finished game again) without a refusal, and a room behind one NAT
    #: open the lobby at once ("rate-limited", HTTP 429 with Retry-After).
    work_per_address: float = 60.0
    work_address_burst: int = 1500
    work_entries: int = 50
    #: New players (``POST /api/players``) per address: a burst (a class behind one
    #: NAT), then this many an hour.  Only answers that created one count.
    new_players_burst: int = 30
    new_players_per_hour: float = 30.0
    #: New games per address: a burst (never less than ``games_per_host``), then this
    #: many an hour, so that finishing games fast does not grow the store without bound.
    new_games_burst: int = 30
    new_games_per_hour: float = 60.0
    #: Seconds between two tellings of who is at a table (a socket of a seat opened or
    #: closed): the first is told at once, later ones within this folded into one.
    presence_interval: float = 1.0
    #: Chat: the longest message (characters), and messages per second and per burst
    #: on one connection.
    chat_max: int = 500
    chat_per_second: float = 0.5
    chat_burst: int = 5
    #: Chat from one client address (all its seats and spectator sockets together).
    chat_per_address: float = 2.0
    chat_address_burst: int = 20
    #: Chat a game keeps (lines, and bytes of text and names); the oldest lines go.
    chat_lines: int = 1000
    chat_bytes: int = 256 * 1024
    #: Chat lines a socket gets on connect (the latest ones; every other event is always
    #: sent). The kept chat is in the store and, paged, at ``GET /api/games/{id}/events``.
    chat_history: int = 200


@dataclass(frozen=True)
class ClusterSettings:
    """Several server processes over one PostgreSQL (docs/deploy.md)."""

    #: Seconds a process's claim on a game lasts without being renewed: how long a stalled
    #: (not dead) process's games wait before another process may take them over.
    lease_seconds: float = 10.0
    #: Seconds a process waits for another one to hand a game over before it answers
    #: ``unavailable``.
    claim_wait: float = 15.0
    #: A name for this process in logs and in the store's lease rows (default: host:pid).
    name: str | None = None


@dataclass(frozen=True)
class Guard:
    """What a public deployment sets to keep hostile clients from the host and from each
    other (docs/server.md, "Security")."""

    #: Networks (``127.0.0.1/32``) or host names webhooks may reach although they are
    #: not public addresses (``--webhook-allow``): for self-hosters with a local listener.
    webhook_allow: tuple[str, ...] = ()
    #: Seconds one webhook call may take in all.
    webhook_deadline: float = 5.0
    #: Seconds before each new try of a webhook notice whose call failed.
    webhook_retries: tuple[float, ...] = (5.0, 30.0, 120.0, 600.0)
    #: Peers whose ``X-Forwarded-For`` names the client (``--trusted-proxies``); nobody
    #: else's is believed.
    trusted_proxies: tuple[str, ...] = ()
    #: ``Host`` header values answered (``--allowed-hosts``; a leading ``*.`` matches
    #: subdomains); empty: every host.
    allowed_hosts: tuple[str, ...] = ()
    #: The longest token (seat or player) read from a request, in characters.
    token_max: int = 200
    #: The deepest JSON nesting read from a client.
    json_depth: int = 32
    #: Seconds a connection has to send a request's headers (connlimits.py).
    header_timeout: float = 10.0
    #: Open connections at most (None: as many as the descriptor limit leaves room for).
    max_connections: int | None = None
    #: Seconds an idle keep-alive connection stays open.
    keep_alive: float = 10.0


@dataclass(frozen=True)
class ServerConfig:
    #: ``sqlite:///path``, a bare path, ``postgresql://…``; None: the user data directory.
    db: str | None = None
    #: Seconds a seated bot waits before it plays, so humans can follow.
    bot_delay: float = 0.5
    #: Seconds a bot may think about one decision before the server plays for it.
    bot_time_limit: float = 10.0
    #: Threads that run bots' thinking.
    bot_threads: int = 2
    #: The bot level that plays for a player whose time ran out.
    timeout_level: str = "greedy"
    limits: Limits = field(default_factory=Limits)
    #: Set: this process is one of several over the same PostgreSQL store.
    cluster: ClusterSettings | None = None
    #: Seconds SIGTERM waits for in-flight actions and queued messages before closing.
    drain_seconds: float = 5.0
    guard: Guard = field(default_factory=Guard)
    #: Where players reach the server (``https://elfenland.example.org``): turn notices
    #: then carry an absolute link to the game.  Empty: a link relative to the server.
    public_url: str = ""
    #: Finished games kept rebuilt in memory (``finished.py``): at most this many, and
    #: about this many bytes (``--finished-cache-mb``); 0 games keeps none.
    finished_games: int = 256
    finished_bytes: int = 64 * 1024 * 1024
