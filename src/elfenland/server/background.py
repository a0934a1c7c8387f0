"""The server on a loopback port in a background thread, for tests and benchmarks that
talk to it through real sockets."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any

import uvicorn

from .app import create_app
from .config import ServerConfig
from .connlimits import guarded_h11
from .store import Store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def uvicorn_config(app: Any, host: str, port: int, config: ServerConfig,
                   log_level: str = "warning") -> uvicorn.Config:
    # The socket layer accepts messages somewhat over our limit, so that the server can
    # answer them with a "too-large" error instead of dropping the connection.  The
    # h11 protocol gets a header deadline and a connection cap (connlimits.py).  uvicorn's
    # own proxy headers are off: by default it believes X-Forwarded-For from 127.0.0.1,
    # which behind a local proxy is every client; http_guard.py believes it only from
    # ``--trusted-proxies``.
    guard = config.guard
    return uvicorn.Config(app, host=host, port=port, log_level=log_level,
                          ws_max_size=max(1 << 20, 4 * config.limits.max_message),
                          lifespan="on", timeout_keep_alive=max(1, int(guard.keep_alive)),
                          http=guarded_h11(guard.header_timeout, guard.max_connections),
                          h11_max_incomplete_event_size=16 * 1024, proxy_headers=False)


#: Seconds ``BackgroundServer.start`` waits for the server to listen.  Only a hang guard:
#: it listens within a second on a quiet machine, but a test suite on 2 shared cores can
#: be starved for longer than the 20 s it once allowed (a test failed there at start-up).
START_TIMEOUT = 60.0


class BackgroundServer:
    """``with BackgroundServer(config) as server: server.url``"""

    def __init__(self, config: ServerConfig, port: int | None = None,
                 store: Store | None = None) -> None:
        self.config = config
        self.port = port or free_port()
        self.app = create_app(config, store)
        self.server = uvicorn.Server(uvicorn_config(self.app, "127.0.0.1", self.port, config))
        self.thread = threading.Thread(target=self.server.run, daemon=True,
                                       name="elfenland-server")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = START_TIMEOUT) -> BackgroundServer:
        """Start serving; raises when not up within ``timeout`` seconds (a hang guard)."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
