"""A player's webhook queue holds 8 waiting notices; the oldest of more used to be
dropped, and a dropped notice came again only if the server restarted, however long
its turn stayed on.  Now the queue keeps one notice per game (a newer turn's notice of
a game takes the older one's place: that turn has passed), and the oldest of more than
8 games is set aside, to come back once the queue has room, if its turn is still on
(webhooks.py).  A real receiver on loopback, the real server, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from elfenland.server.background import BackgroundServer
from elfenland.server.config import Guard
from elfenland.server.store import NOTICE_DELIVERED, open_store

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, play_seat, post, wait_until

#: Games whose turn waits for the player while the first notice is in flight: more than
#: the queue's 8.
GAMES = 11


class GatedReceiver:
    """A webhook on loopback that answers 204 to every notice once ``gate`` is set (each
    call waits for it), and keeps what came in order."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.got: list[JSON] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.got.append(body)
                receiver.gate.wait(60)
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"

    def keys(self) -> list[tuple[str, int]]:
        return [(p["game"], p["seq"]) for p in self.got]

    def close(self) -> None:
        self.gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def receiver() -> Iterator[GatedReceiver]:
    hook = GatedReceiver()
    yield hook
    hook.close()


def _summary(server: BackgroundServer, gid: str) -> JSON:
    return HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]  # type: ignore[no-any-return]


def _ann_to_act(server: BackgroundServer, player: str) -> tuple[str, str, int]:
    """A started game of Ann (seat 0) and a bot, at Ann's turn: id, seat token, seq."""
    made = create(server.url, players=2, player=player,
                  seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}])
    gid = str(made["game"]["id"])
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    wait_until(lambda: _summary(server, gid).get("to_act") == 0, "Ann's turn never came")
    return gid, str(made["token"]), int(_summary(server, gid)["seq"])


def _next_turn(server: BackgroundServer, gid: str, token: str) -> int:
    """Ann plays until a new turn of hers begins (the bot played in between); its seq."""
    hub = server.app.state.hub
    began = hub.games[gid].turn_began
    while hub.games[gid].turn_began == began:
        seq = int(_summary(server, gid)["seq"])
        asyncio.run(play_seat(server.ws_url, gid, token, 0, stop_at=seq + 1))
        wait_until(lambda: _summary(server, gid).get("to_act") == 0
                   or _summary(server, gid)["status"] == "finished", "the bot never played")
    assert _summary(server, gid)["status"] == "running"
    return int(hub.games[gid].turn_began[0])


def test_no_notice_is_lost_to_a_full_queue(make_server: ServerFactory,
                                           receiver: GatedReceiver,
                                           db_url: str) -> None:
    """Ann's first notice is in flight, unanswered, while 10 more of her games reach her
    turn, and in one of them a newer turn begins: once her webhook answers, every game's
    current turn is told, once, the older turn of that game not at all."""
    server = make_server(guard=Guard(webhook_allow=("127.0.0.1/32",), webhook_deadline=60.0,
                                     webhook_retries=(0.2,)))
    r = post(server.url, "/api/players", {"name": "Ann", "webhook": receiver.url})
    assert r.status_code == 201, r.text
    ann = str(r.json()["token"])
    games = [_ann_to_act(server, ann)]
    wait_until(lambda: len(receiver.got) == 1, "the first notice never went out")
    games += [_ann_to_act(server, ann) for _ in range(GAMES - 1)]
    # A newer turn in a game whose notice waits: it replaces the older one.
    gid, token, _ = games[4]
    games[4] = (gid, token, _next_turn(server, gid, token))

    sender = server.app.state.hub.players.webhooks
    assert sender.dropped == 0 and sender.set_aside >= 1
    receiver.gate.set()
    want = sorted((gid, seq) for gid, _, seq in games)
    wait_until(lambda: sorted(receiver.keys()) == want,
               f"not every current turn was told: {receiver.keys()} against {want}")
    store = open_store(db_url)
    try:
        wait_until(lambda: all([(n.seq, n.outcome) for n in store.turn_notices(gid)]
                               == [(seq, NOTICE_DELIVERED)] for gid, _, seq in games),
                   "the deliveries were not recorded")
    finally:
        store.close()
    assert sender.dropped == 0 and sender.came_back == sender.set_aside
    assert sender.replaced == 1
