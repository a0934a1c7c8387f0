"""One process's server parts, chosen by its configuration: the store, and the hub with
its ownership, event bus and game directory (one process, or one of several)."""

from __future__ import annotations

from .config import ServerConfig
from .events import PostgresEventBus
from .hub import Hub
from .leased import LeasedGames
from .ownership import Leases, open_shared_store
from .store import PostgresStore, Store, open_store

__all__ = ["make_hub", "make_store"]


def make_store(config: ServerConfig) -> Store:
    if config.cluster is None:
        return open_store(config.db, serving=True)
    if not config.db or not config.db.startswith(("postgresql://", "postgres://")):
        raise ValueError("several server processes share a PostgreSQL store: "
                         "give --db postgresql://…")
    return open_shared_store(config.db, config.cluster)


def make_hub(store: Store, config: ServerConfig) -> Hub:
    """One process's hub: its ownership, event bus and game directory chosen by the
    configuration."""
    if config.cluster is not None:
        if not isinstance(store, PostgresStore):
            raise ValueError("a cluster process needs a PostgreSQL store")
        leases = Leases(store, config.cluster)
        return Hub(store, config, leases,
                   events=lambda hub: PostgresEventBus(leases, hub.db),
                   directory=lambda hub: LeasedGames(hub, leases))
    return Hub(store, config)
