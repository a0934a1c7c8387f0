"""``elfenland serve``: the game server on one command."""

from __future__ import annotations

import argparse

from .config import Limits, ServerConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (0.0.0.0 for every interface)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", default=None,
                        help="sqlite:///path, a file path, or postgresql://user:pw@host/db "
                             "(default: a SQLite file in the user data directory)")
    parser.add_argument("--bot-delay", type=float, default=0.5,
                        help="seconds a seated bot waits before it plays")
    parser.add_argument("--bot-time-limit", type=float, default=10.0,
                        help="seconds a bot may think about one decision")
    parser.add_argument("--games-per-host", type=int, default=Limits.games_per_host,
                        help="unfinished games one address may have")
    parser.add_argument("--rate", type=float, default=Limits.messages_per_second,
                        help="messages per second one connection may send")
    parser.add_argument("--absent-after", type=float, default=Limits.absent_after,
                        help="seconds without a connection after which another player may "
                             "hand a seat to a bot")
    parser.add_argument("--min-move-seconds", type=float, default=Limits.min_per_move,
                        help="the shortest time per turn a game's tempo may ask for")
    parser.add_argument("--log-level", default="info")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app
    from .background import uvicorn_config
    from .store import default_db_path, redact

    limits = Limits(games_per_host=args.games_per_host, messages_per_second=args.rate,
                    burst=max(Limits.burst, int(args.rate * 2)),
                    absent_after=args.absent_after, min_per_move=args.min_move_seconds)
    config = ServerConfig(db=args.db, bot_delay=args.bot_delay,
                          bot_time_limit=args.bot_time_limit, limits=limits)
    app = create_app(config)
    where = redact(args.db) if args.db else f"sqlite:///{default_db_path()}"
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    print(f"Elfenland server: open http://{shown}:{args.port}/  (games stored in {where})",
          flush=True)
    uvicorn.Server(uvicorn_config(app, args.host, args.port, config, args.log_level)).run()
    return 0
