"""HAProxy's per-address limits (deploy/haproxy.cfg, docs/deploy.md "Per-address
limits"): the shipped configuration, run by the real HAProxy in front of a stub server
that counts what reaches it, lets a page load through and answers a flood itself, 429
``rate-limited`` with ``Retry-After``, keyed on the connection's source address (what it
writes into ``X-Forwarded-For``), never on a header the client sent.

Loopback clients other than 127.0.0.1 (which the configuration leaves alone: the machine
itself) stand for distinct remote addresses: Linux routes all of 127.0.0.0/8 to ``lo``.
No PostgreSQL, no game server: a few seconds."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from elfenland.server.cluster import ProxyLimits, free_port, wait_http

from .conftest import HAPROXY

pytestmark = pytest.mark.cluster

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = (ROOT / "deploy" / "haproxy.cfg").read_text()
LIMITS = ProxyLimits()
#: The browser client's files: index.html, 30-odd scripts, the style sheet, the
#: translations, the icon — about forty requests at once on a first visit.
PAGE_LOAD = 40


class Backend(ThreadingHTTPServer):
    """Stands for every server process: answers 200 to anything, and counts the
    requests it saw by the ``X-Forwarded-For`` HAProxy set."""

    daemon_threads = True

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), Handler)

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # HAProxy closing an idle kept-alive connection


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes: no waiting for an ACK in between.
    disable_nagle_algorithm = True
    server: Backend

    def do_GET(self) -> None:
        if self.path != "/healthz":
            with self.server.lock:
                self.server.seen[self.headers.get("X-Forwarded-For", "")] += 1
        body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Proxy:
    def __init__(self, port: int, backend: Backend) -> None:
        self.port = port
        self.backend = backend

    def conn(self, source: str) -> http.client.HTTPConnection:
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10,
                                       source_address=(source, 0))
        c.connect()
        return c

    def get(self, c: http.client.HTTPConnection, path: str = "/js/main.js",
            headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        r.body = r.read()  # type: ignore[attr-defined]
        return r

    def once(self, source: str, path: str = "/js/main.js") -> int | None:
        """One request on a new connection: its status, None if the connection was
        closed unanswered."""
        try:
            c = self.conn(source)
            try:
                return self.get(c, path).status
            finally:
                c.close()
        except (ConnectionError, http.client.RemoteDisconnected):
            return None

    def seen(self, source: str) -> int:
        with self.backend.lock:
            return self.backend.seen[source]


def shipped_config(port: int, backend_port: int) -> str:
    """deploy/haproxy.cfg with this test's ports: its three servers all the stub."""
    text = SHIPPED.replace("    bind :8000\n", f"    bind 127.0.0.1:{port}\n")
    text, n = re.subn(r"\bserver(\d) server\1:8000\b", rf"server\1 127.0.0.1:{backend_port}",
                      text)
    assert n == 6 and f"bind 127.0.0.1:{port}" in text
    return text


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Proxy]:
    if not Path(HAPROXY).exists():
        pytest.skip("haproxy is missing")
    try:
        with socket.socket() as probe:
            probe.bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("no 127.0.0.2 here")
    backend = Backend()
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    port = free_port()
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(shipped_config(port, backend.server_address[1]))
    log = open(tmp_path / "haproxy.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)], stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", 15, proc=proc)
        yield Proxy(port, backend)
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
        backend.shutdown()
        backend.server_close()


def _refused_by_proxy(r: http.client.HTTPResponse) -> None:
    assert r.status == 429, r.status
    assert r.getheader("Retry-After") == str(LIMITS.window)
    assert r.getheader("Content-Type") == "application/json"
    body = json.loads(r.body)  # type: ignore[attr-defined]
    assert body["type"] == "error" and body["code"] == "rate-limited", body
    assert "from this address" in body["message"]


def _flood(proxy: Proxy, c: http.client.HTTPConnection, sent: int,
           request: Callable[[int], tuple[str, dict[str, str]]]) -> int:
    """Requests on ``c`` until one is refused (``sent`` were made before): which one
    was.  Past the limit, but not by much: HAProxy's count over the window is a sliding
    estimate (the previous period's count, fading), a little under the true count only
    when the flood began in the previous period."""
    while sent < LIMITS.requests + 100:
        path, headers = request(sent)
        r = proxy.get(c, path, headers)
        sent += 1
        if r.status != 200:
            _refused_by_proxy(r)
            break
    assert LIMITS.requests < sent <= LIMITS.requests + 50, sent
    return sent


def test_a_page_load_passes_and_a_flood_is_answered_by_the_proxy(proxy: Proxy) -> None:
    me = "127.0.0.2"
    # A first visit: forty files at once, each on a connection of its own (a browser
    # uses six; this is the worst case).
    with ThreadPoolExecutor(PAGE_LOAD) as pool:
        statuses = list(pool.map(lambda i: proxy.once(me, f"/js/{i}.js"), range(PAGE_LOAD)))
    assert statuses == [200] * PAGE_LOAD
    assert proxy.seen(me) == PAGE_LOAD

    # Then a flood on one kept-alive connection: passed until the request limit over
    # the window, then answered by HAProxy itself.
    c = proxy.conn(me)
    _flood(proxy, c, PAGE_LOAD, lambda i: ("/healthz" if i % 2 else "/api/games", {}))
    passed = proxy.seen(me)
    # /healthz is not counted by the stub; every other request that passed is.
    assert passed > LIMITS.requests // 2 - 10
    for _ in range(20):  # and it goes on refusing, still without the servers
        _refused_by_proxy(proxy.get(c))
    c.close()
    assert proxy.seen(me) == passed
    # Another address is not affected.
    assert proxy.once("127.0.0.3") == 200


def test_the_count_is_the_connections_source_not_a_forwarded_header(proxy: Proxy) -> None:
    me = "127.0.0.4"
    c = proxy.conn(me)
    # Each request claims another client: counted as the connection's source all the
    # same, and the servers are told that source too.
    refused = _flood(proxy, c, 0, lambda i: ("/api/games",
                                             {"X-Forwarded-For": f"198.51.100.{i % 250}"}))
    c.close()
    assert proxy.seen(me) == refused - 1
    assert not any(k.startswith(("198.51", "203.0")) for k in proxy.backend.seen)


def test_open_and_new_connections_are_limited(proxy: Proxy) -> None:
    me = "127.0.0.5"
    held = [proxy.conn(me) for _ in range(LIMITS.connections)]
    assert all(proxy.get(c).status == 200 for c in held[:5])
    # One more open connection is one too many; closing some lets the next one in.
    extra = proxy.conn(me)
    _refused_by_proxy(proxy.get(extra))
    extra.close()
    for c in held:
        c.close()
    assert proxy.once(me) == 200

    # New connections: LIMITS.connections + 2 were opened above; up to the limit over
    # the window pass, then 429, and past twice the limit they are closed unanswered.
    # (The counts may lag a little: see _flood.)
    opened = LIMITS.connections + 2
    statuses = [proxy.once(me) for _ in range(2 * LIMITS.new_connections - opened + 60)]
    passed = LIMITS.new_connections - opened
    assert statuses[:passed] == [200] * passed, statuses
    # 200s, then 429s, then closed unanswered: in that order, each at its limit.
    ok, refused = statuses.count(200), statuses.count(429)
    assert statuses == [200] * ok + [429] * refused + [None] * (len(statuses) - ok - refused)
    assert passed <= ok <= passed + 20, statuses
    assert LIMITS.new_connections - 20 <= refused <= LIMITS.new_connections + 20, statuses
    assert statuses[-1] is None


def test_the_machine_itself_is_not_limited(proxy: Proxy) -> None:
    """127.0.0.1: a local health check, the benchmarks and the cluster tests, or a
    proxy in front on this machine (whose clients would all share one count)."""
    c = proxy.conn("127.0.0.1")
    assert all(proxy.get(c).status == 200 for _ in range(LIMITS.requests + 100))
    c.close()
    assert proxy.seen("127.0.0.1") == LIMITS.requests + 100
