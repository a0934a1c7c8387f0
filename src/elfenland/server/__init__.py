"""The game server: a lobby over HTTP, live play over WebSockets, bots in seats and a
durable store (SQLite or PostgreSQL) that holds the truth about every game.

``create_app(config)`` gives the ASGI app; ``elfenland serve`` runs it on uvicorn.
"""

from __future__ import annotations

from .app import create_app
from .config import Limits, ServerConfig
from .errors import ServerError
from .store import GameRecord, SeatRecord, Store, open_store

__all__ = ["GameRecord", "Limits", "SeatRecord", "ServerConfig", "ServerError", "Store",
           "create_app", "open_store"]
