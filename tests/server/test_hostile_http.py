"""An anonymous hostile client against the HTTP side, through real sockets: what a
request costs the server is spent from its address's ration (``http_ration.py``), and
what it creates from its address's quotas, so one address can neither keep a core busy
nor grow the store as fast as it can send requests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from elfenland.server.addresses import address_key
from elfenland.server.config import Guard, Limits
from elfenland.server.finished import FinishedGame
from elfenland.server.http_ration import LISTING_COST, HttpRation, Refusal

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, post, recv_until, wait_until

#: Messages and games are not what is limited here: plenty of them.
FREE: dict[str, Any] = dict(absent_after=0.0, games_per_host=1000, messages_per_second=1000,
                            burst=1000)
#: X-Forwarded-For is believed from the test's own address, so that one client can
#: stand for several addresses.
PROXIED = Guard(trusted_proxies=("127.0.0.1/32",))


def _as(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def _finished_game(base: str) -> tuple[str, int]:
    """A two-bot game played to its end: its id and its number of actions."""
    made = create(base, players=2, seats=[{"kind": "bot", "level": "random"}] * 2)
    gid = made["game"]["id"]
    assert post(base, f"/api/games/{gid}/start", {}).is_success
    wait_until(lambda: HTTP.get(f"{base}/api/games/{gid}").json()["game"]["status"]
               == "finished", "the bot game ends")
    steps = HTTP.get(f"{base}/api/games/{gid}/replay", params={"step": 0}).json()["steps"]
    return gid, int(steps)


def _refused(r: httpx.Response) -> bool:
    if r.status_code != 429:
        assert r.status_code < 300, r.text
        return False
    assert r.json()["code"] == "rate-limited", r.text
    assert int(r.headers["retry-after"]) >= 1
    return True


def _admitted(url: str, tries: int, headers: dict[str, str] | None = None) -> int:
    """How many of ``tries`` requests of ``url`` are answered before the first refusal."""
    for n in range(tries):
        if _refused(HTTP.get(url, headers=headers)):
            return n
    return tries


def _restarted(make_server: ServerFactory, limits: Limits,
               guard: Guard | None = None) -> tuple[Any, str, int]:
    """A server that holds no finished game (a new process), with a finished game in
    its store: (server, game id, the game's actions)."""
    first = make_server()
    gid, steps = _finished_game(first.url)
    first.stop()  # one process per store; the new one reads finished games when asked
    return make_server(limits=limits, guard=guard), gid, steps


def _near(got: int, want: float) -> bool:
    """``got`` requests admitted where ``want`` were paid for (the ration refills a
    hundredth of a unit a second meanwhile)."""
    return int(want) - 1 <= got <= int(want) + 1


def test_replays_spend_the_address_ration_by_the_actions_replayed(
        make_server: ServerFactory) -> None:
    # The first full replay of a finished game reads it from the store and replays it
    # once (1 + steps/50 units); the process keeps it rebuilt (finished.py), so later
    # ones replay only the actions after the last snapshot: 1 + (steps % 32)/50 units.
    # Only what is replayed is charged.  Today's server answered them all.
    burst = 100
    server, gid, steps = _restarted(make_server, Limits(
        **FREE, work_per_address=0.01, work_address_burst=burst), PROXIED)
    assert steps >= 50
    per = Limits().work_entries
    first, again = 1 + steps / per, 1 + FinishedGame.replayed(steps) / per
    replay = f"{server.url}/api/games/{gid}/replay"
    assert _near(_admitted(replay, 400, _as("203.0.113.1")), 1 + (burst - first) / again)
    # The same ration pays for the address's cheap requests: what is left of it.
    left = _admitted(f"{server.url}/api/options/elfenland", 200, _as("203.0.113.1"))
    assert left < 1 + 2 * steps / per
    # Another address has its own: a hundred cheap requests, one unit each.
    assert _near(_admitted(f"{server.url}/api/options/elfenland", 200,
                           _as("198.51.100.2")), burst)
    # Step 0 replays nothing, and the game is kept: one unit each.
    assert _near(_admitted(f"{replay}?step=0", 200, _as("198.51.100.3")), burst)


def test_the_listing_and_long_queries_cost_more(make_server: ServerFactory) -> None:
    server = make_server(limits=Limits(**FREE, work_per_address=0.01, work_address_burst=90),
                         guard=PROXIED)
    listings = _admitted(f"{server.url}/api/games", 100, _as("203.0.113.1"))
    assert listings == int(90 / (1 + LISTING_COST))
    # A 12 KiB query string (every request's query is parsed) costs 3 units more.
    odd = "&".join(f"x{i}=y" for i in range(2000))
    assert len(odd) > 12 * 1024
    queried = _admitted(f"{server.url}/api/options/elfenland?{odd}", 100, _as("203.0.113.2"))
    assert queried == int(90 / (1 + len(odd) / 4096))


def test_a_game_read_from_the_store_is_weighed_for_sockets_and_pages(
        make_server: ServerFactory) -> None:
    """A finished game nobody watches is not held in memory: the first look at it (its
    page, its actions, a socket) reads and replays it; the process then keeps it
    rebuilt (finished.py) and later looks replay nothing, so cost a unit (an address's
    socket to it, none).  Today a socket opened with ``since`` at the game's end cost
    one unit of the reply ration for that whole replay."""
    server, gid, steps = _restarted(make_server, Limits(
        **FREE, work_per_address=0.01, work_address_burst=40), PROXIED)
    read = 1 + steps / Limits().work_entries
    assert read >= 2

    async def socket(address: str) -> JSON:
        async with connect(f"{server.ws_url}/ws/games/{gid}?since={steps}",
                           additional_headers=_as(address)) as ws:
            said = await recv_until(ws, lambda m: m["type"] in ("error", "update"), timeout=10)
            if said["type"] == "error":
                try:
                    await asyncio.wait_for(ws.recv(), 10)
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None and closed.rcvd.code == 1013
                else:
                    raise AssertionError("the refused socket stayed open")
            return said

    # One unit left: not enough for a socket that reads the game.
    assert _admitted(f"{server.url}/api/options/elfenland", 39, _as("203.0.113.1")) == 39
    said = asyncio.run(socket("203.0.113.1"))
    assert (said["type"], said.get("code")) == ("error", "rate-limited")
    # The first page reads it; the later ones cost a unit each.
    assert _near(_admitted(f"{server.url}/api/games/{gid}/actions", 100, _as("198.51.100.2")),
                 1 + (40 - read))
    # Kept now: a socket reads nothing, so the spent address still opens one.
    said = asyncio.run(socket("198.51.100.2"))
    assert said["type"] == "update", said
    # Health checks are not rationed (a load balancer's come from one address).
    assert HTTP.get(f"{server.url}/healthz").status_code == 200


def test_a_player_stepping_through_a_replay_is_not_refused(
        make_server: ServerFactory) -> None:
    """The default ration, real sockets: the last 30 steps of a finished game, ten a
    second, each answer the step asked for."""
    server, gid, steps = _restarted(make_server, Limits(**FREE))
    replay = f"{server.url}/api/games/{gid}/replay"

    async def step_through() -> list[int]:
        got = []
        async with httpx.AsyncClient(timeout=30) as client:
            for step in range(max(0, steps - 30), steps + 1):
                r = await client.get(replay, params={"step": step})
                assert r.status_code == 200, r.text
                got.append(r.json()["step"])
                await asyncio.sleep(0.1)
        return got

    assert asyncio.run(step_through()) == list(range(max(0, steps - 30), steps + 1))


@dataclass
class _Record:
    seq: int
    status: str = "finished"


class _Store:
    def __init__(self, record: _Record) -> None:
        self.record = record

    def load_game(self, game_id: str) -> _Record:
        return self.record


class _Hub:
    """What the ration asks of the hub: the games it holds, and the store."""

    def __init__(self, seq: int) -> None:
        self.games: dict[str, Any] = {}
        self.store = _Store(_Record(seq))

    async def db(self, fn: Any, *args: Any) -> Any:
        return fn(*args)


@pytest.mark.parametrize("actions", [300, 400])
def test_the_default_ration_lets_a_whole_replay_be_stepped_at_ten_a_second(
        actions: int) -> None:
    """The numbers chosen (config.py): stepping through every step of a finished game
    of 300 actions (a 4-round game has 150 to 300), ten steps a second, each step
    reading the game from the store again, is never refused; nor one of 400 at five a
    second (the replay page's own play button goes at two)."""
    now = [0.0]
    ration = HttpRation(Limits(), clock=lambda: now[0])
    hub = _Hub(actions)
    per_second = 10 if actions == 300 else 5

    async def stepping() -> None:
        for step in range(actions + 1):
            got = await ration.charge(hub, "http", "GET", "/api/games/abc/replay",
                                      f"step={step}".encode(), "203.0.113.1")
            assert not isinstance(got, Refusal), step
            now[0] += 1 / per_second

    asyncio.run(stepping())


async def _flood(path: str, n: int) -> tuple[int, int]:
    ration = HttpRation(Limits(), clock=lambda: 0.0)
    hub = _Hub(2000)
    ok = 0
    for _ in range(n):
        got = await ration.charge(hub, "http", "GET", path, b"", "203.0.113.1")
        ok += not isinstance(got, Refusal)
    return ok, n - ok


def test_a_flood_of_record_downloads_of_a_long_game_gets_a_few() -> None:
    # A 2,000-action game read and replayed: 81 units each, so the burst pays for 18.
    ok, refused = asyncio.run(_flood("/api/games/abc/record", 100))
    assert (ok, refused) == (Limits().work_address_burst // 81, 100 - 18)


def test_new_players_are_a_quota_per_address(make_server: ServerFactory) -> None:
    """Today ``POST /api/players`` made a row for every request (73 a second from one
    address on the development machine, without end)."""
    server = make_server(limits=Limits(**FREE, new_players_burst=5, new_players_per_hour=1),
                         guard=PROXIED)
    me = _as("203.0.113.1")
    # Refused requests create nothing and spend nothing.
    for _ in range(3):
        r = HTTP.post(f"{server.url}/api/players", json={"name": "\u2066"}, headers=me)
        assert r.status_code == 400
    made = [HTTP.post(f"{server.url}/api/players", json={"name": f"p{i}"}, headers=me)
            for i in range(8)]
    assert [r.status_code for r in made] == [201] * 5 + [429] * 3
    assert made[-1].json()["code"] == "rate-limited"
    assert int(made[-1].headers["retry-after"]) > 600  # one an hour
    # The same /64 is the same subscriber; another address is not.
    for address, status in (("2001:db8::1", 201), ("2001:db8::2", 201),
                            ("2001:db8::3", 201), ("2001:db8::4", 201),
                            ("2001:db8::5", 201), ("2001:db8::6", 429),
                            ("2001:db8:0:1::1", 201), ("198.51.100.7", 201)):
        r = HTTP.post(f"{server.url}/api/players", json={"name": "Al"}, headers=_as(address))
        assert r.status_code == status, (address, r.text)


def test_new_games_are_a_quota_per_address(make_server: ServerFactory) -> None:
    """The unfinished-games limit alone let an address that finishes its games (bot
    games, or hotseat played fast) create games, and rows, without end."""
    server = make_server(limits=Limits(**FREE | {"games_per_host": 2}, new_games_burst=3,
                                       new_games_per_hour=1), guard=PROXIED)
    me = _as("203.0.113.1")
    bots = {"players": 2, "seats": [{"kind": "bot", "level": "random"}] * 2}

    def new_game() -> httpx.Response:
        return HTTP.post(f"{server.url}/api/games", json=bots, headers=me)

    assert HTTP.post(f"{server.url}/api/games", json={"game": "chess"},
                     headers=me).status_code == 400
    made = [new_game(), new_game()]
    assert [r.status_code for r in made] == [201, 201]
    # The unfinished-games limit refuses the next one, and gives the quota back.
    r = new_game()
    assert (r.status_code, r.json()["code"]) == (429, "too-many-games")
    for game in made:
        gid = game.json()["game"]["id"]
        assert post(server.url, f"/api/games/{gid}/start", {}).is_success
        wait_until(lambda gid=gid: HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]
                   ["status"] == "finished", "the bot game ends")
    assert new_game().status_code == 201  # the third of the quota
    r = new_game()  # one unfinished game: today's server made it
    assert (r.status_code, r.json()["code"]) == (429, "rate-limited"), r.text
    assert int(r.headers["retry-after"]) > 600  # one an hour
    assert HTTP.post(f"{server.url}/api/games", json=bots,
                     headers=_as("198.51.100.7")).status_code == 201


def test_address_keys() -> None:
    assert address_key("2001:db8::1") == address_key("2001:db8::ffff:1") == "2001:db8::/64"
    assert address_key("2001:db8:0:1::1") == "2001:db8:0:1::/64"
    assert address_key("::ffff:198.51.100.7") == "198.51.100.7" == address_key("198.51.100.7")
    assert address_key("unknown") == "unknown"
