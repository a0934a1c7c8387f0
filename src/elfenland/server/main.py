"""``elfenland serve``: the game server on one command."""

from __future__ import annotations

import argparse
import socket
import sys

from .arguments import at_least, port, positive, public_url, seconds
from .config import ClusterSettings, Guard, Limits, ServerConfig
from .logs import env_defaults


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (0.0.0.0 for every interface)")
    parser.add_argument("--port", type=port, default=8000)
    parser.add_argument("--db", default=None,
                        help="sqlite:///path, a file path, or postgresql://user:pw@host/db "
                             "(default: a SQLite file in the user data directory)")
    parser.add_argument("--bot-delay", type=seconds, default=0.5,
                        help="seconds a seated bot waits before it plays")
    parser.add_argument("--bot-time-limit", type=positive, default=10.0,
                        help="seconds a bot may think about one decision")
    parser.add_argument("--games-per-host", type=at_least(1), default=Limits.games_per_host,
                        help="unfinished games one address may have")
    parser.add_argument("--rate", type=positive, default=Limits.messages_per_second,
                        help="messages per second one connection may send")
    parser.add_argument("--new-games-per-hour", type=positive,
                        default=Limits.new_games_per_hour,
                        help="games one address may create an hour, after a burst of "
                             "--games-per-host (at least 30)")
    parser.add_argument("--new-players-per-hour", type=positive,
                        default=Limits.new_players_per_hour,
                        help="players one address may create an hour, after a burst of "
                             "as many")
    parser.add_argument("--work-per-address", type=positive, default=Limits.work_per_address,
                        help="HTTP work units a second one address may spend (a request, "
                             "and one per 50 actions replayed), after a burst of 25 "
                             "seconds' worth")
    parser.add_argument("--absent-after", type=seconds, default=Limits.absent_after,
                        help="seconds without a connection after which another player may "
                             "hand a seat to a bot")
    parser.add_argument("--min-move-seconds", type=seconds, default=Limits.min_per_move,
                        help="the shortest time per turn a game's tempo may ask for")
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--log-format", choices=("text", "json"), default="text",
                        help="json: one JSON object per log line")
    parser.add_argument("--cluster", action="store_true",
                        help="one of several processes over the same PostgreSQL --db "
                             "(docs/deploy.md)")
    parser.add_argument("--name", default=None,
                        help="this process's name in logs and leases (default host:pid)")
    parser.add_argument("--lease-seconds", type=positive, default=ClusterSettings.lease_seconds,
                        help="with --cluster: how long a stalled process keeps its games")
    parser.add_argument("--drain-seconds", type=seconds, default=ServerConfig.drain_seconds,
                        help="on SIGTERM, how long to wait for actions in flight")
    # Security (docs/server.md, "Security"): lists are comma- or space-separated.
    parser.add_argument("--webhook-allow", default="",
                        help="networks (127.0.0.1/32) or host names webhooks may reach "
                             "although they are not public addresses")
    parser.add_argument("--trusted-proxies", default="",
                        help="addresses or networks whose X-Forwarded-For names the client "
                             "(the load balancer's); nobody else's is believed")
    parser.add_argument("--allowed-hosts", default="",
                        help="Host header values answered (*.example.org for subdomains); "
                             "default: every host")
    parser.add_argument("--public-url", type=public_url, default="",
                        help="where players reach this server (https://elfenland.example.org):"
                             " turn notices then link to the game there")
    parser.add_argument("--header-timeout", type=positive, default=Guard.header_timeout,
                        help="seconds a connection has to send a request's headers")
    parser.add_argument("--max-connections", type=at_least(1), default=None,
                        help="open connections at most (default: what the descriptor "
                             "limit leaves room for)")
    # Last, so that every option above can come from ELFENLAND_<OPTION> too.
    env_defaults(parser)


def run(args: argparse.Namespace) -> int:
    from .app import create_app
    from .background import uvicorn_config
    from .drain import DrainingServer
    from .errors import StoreDamaged, StoreInUse, StoreUnavailable
    from .logs import configure as configure_logging
    from .netguard import parse_networks, split_list
    from .store import default_db_path, redact

    limits = Limits(games_per_host=args.games_per_host, messages_per_second=args.rate,
                    burst=max(Limits.burst, int(args.rate * 2)),
                    absent_after=args.absent_after, min_per_move=args.min_move_seconds,
                    new_games_per_hour=args.new_games_per_hour,
                    new_players_per_hour=args.new_players_per_hour,
                    new_players_burst=max(1, round(args.new_players_per_hour)),
                    work_per_address=args.work_per_address,
                    work_address_burst=max(1, round(args.work_per_address * 25)))
    cluster = (ClusterSettings(lease_seconds=args.lease_seconds, name=args.name)
               if args.cluster else None)
    try:
        guard = Guard(webhook_allow=tuple(split_list(args.webhook_allow)),
                      trusted_proxies=tuple(str(n) for n in parse_networks(
                          split_list(args.trusted_proxies))),
                      allowed_hosts=tuple(split_list(args.allowed_hosts)),
                      header_timeout=args.header_timeout,
                      max_connections=args.max_connections)
    except ValueError as exc:
        raise SystemExit(f"elfenland serve: {exc}") from None
    config = ServerConfig(db=args.db, bot_delay=args.bot_delay,
                          bot_time_limit=args.bot_time_limit, limits=limits, cluster=cluster,
                          drain_seconds=args.drain_seconds, guard=guard,
                          public_url=args.public_url)
    try:
        listener = listen(args.host, args.port)
    except OSError as exc:
        print(f"elfenland serve: cannot listen on {args.host}:{args.port}: "
              f"{exc.strerror or exc}", file=sys.stderr, flush=True)
        return 2
    with listener:
        try:
            app = create_app(config)
        except (StoreDamaged, StoreInUse, StoreUnavailable) as exc:
            print(f"elfenland serve: {exc}", file=sys.stderr, flush=True)
            return 2
        where = redact(args.db) if args.db else f"sqlite:///{default_db_path()}"
        shown = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
        if ":" in shown:
            shown = f"[{shown}]"
        bound = listener.getsockname()[1]
        print(f"Elfenland server: open http://{shown}:{bound}/  (games stored in {where})",
              flush=True)
        settings = uvicorn_config(app, args.host, bound, config, args.log_level)
        settings.timeout_graceful_shutdown = max(1, int(args.drain_seconds))
        if args.log_format == "json":
            configure_logging(args.log_format, args.log_level)
        DrainingServer(settings, app.state.hub, args.drain_seconds).run(sockets=[listener])
    return 0


def listen(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound before anything is announced or opened.

    Binding first means a port in use is one line and exit 2, not an "open http://" line
    followed by the web server's own failure, and ``--port 0`` announces the port the
    system chose.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=2048)
    return sock
