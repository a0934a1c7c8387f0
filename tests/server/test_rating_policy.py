"""Ratings that cannot be farmed (issue 23): a seat a bot played is not rated, one
player holding two seats is rated for neither, games without two humans are not rated,
unrated games (a chosen seed, or custom options marked unrated) move nothing.  The
policy's parts on crafted games, and two farming attempts end to end."""

from __future__ import annotations

import asyncio
import time

from elfenland.server.config import Limits
from elfenland.server.ratings import bot_turns, movers, rated_participants
from elfenland.server.store import EventRecord, GameRecord, Handover, PlayerRecord, SeatRecord

from .conftest import ServerFactory
from .helpers import HTTP, create, play_seat, post

ANN = PlayerRecord("ann", "Ann", None, "")
CY = PlayerRecord("cy", "Cy", None, "")


def _record(seats: tuple[SeatRecord, ...], **options: object) -> GameRecord:
    return GameRecord("g", "elfenland", len(seats), "amigo", dict(options), 1, "finished", 0,
                      "", "h", seats)


def _humans(n: int) -> tuple[SeatRecord, ...]:
    return tuple(SeatRecord(i, "human", f"P{i}", None, f"hash{i}") for i in range(n))


def test_bot_turns_from_handovers_and_timeouts() -> None:
    played = [0, 1, 0, 1, 0, 1, 0, 1, 1, 0]
    # Seat 0 handed to a bot at seq 4 and taken back at seq 8; seat 1 timed out once at
    # seq 3 (the bot stands in for that turn: action 3) and for good at seq 7 (7, 8).
    handovers = [Handover(0, 4, True), Handover(0, 8, False)]
    events = [EventRecord("timeout", 1, 3, {"for_good": False}, ""),
              EventRecord("timeout", 1, 7, {"for_good": True}, "")]
    assert bot_turns(played, events, handovers) == {0: 2, 1: 3}
    assert bot_turns(played, [], []) == {}


def test_which_seats_are_rated() -> None:
    seats = _humans(3)
    moves = [0, 1, 2] * 10
    both = {0: ANN, 1: CY}
    rated = rated_participants(_record(seats), both, moves, {})
    assert [(s, pid) for s, pid, _ in rated] == [(0, "ann"), (1, "cy")]
    # One bot move of ten is a small share; two of ten are not.
    assert len(rated_participants(_record(seats), both, moves, {1: 1})) == 2
    assert rated_participants(_record(seats), both, moves, {1: 2}) == []
    # One player in two seats: neither is rated, and one human is too few.
    assert rated_participants(_record(seats), {0: ANN, 1: ANN}, moves, {}) == []
    # A player against bots alone: not rated.
    vs_bots = (seats[0], SeatRecord(1, "bot", None, "search"), SeatRecord(2, "bot", None, "greedy"))
    assert rated_participants(_record(vs_bots), {0: ANN}, moves, {}) == []
    # Two humans and a bot: the bot is rated beside them.
    mixed = (seats[0], seats[1], SeatRecord(2, "bot", None, "search"))
    assert [pid for _, pid, _ in rated_participants(_record(mixed), both, moves, {})] == [
        "ann", "cy", "bot:search"]
    # A chosen seed: unrated (the same mechanism marks custom options unrated).
    assert rated_participants(_record(seats, seed_chosen=True), both, moves, {}) == []


def test_movers_replays_the_game() -> None:
    from elfenland.games.registry import new_game

    state = new_game(game="elfenland", players=2, seed=3)
    actions, seats = [], []
    probe = state.clone()
    for _ in range(12):
        seats.append(probe.current_player())
        action = str(probe.legal_actions()[0])
        actions.append(action)
        probe.apply_action(action)
    assert movers(state, actions) == seats


def _finish(base: str, gid: str) -> None:
    deadline = time.monotonic() + 90
    while HTTP.get(f"{base}/api/games/{gid}").json()["game"]["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(0.5)


def test_a_seat_handed_to_a_bot_earns_nothing(make_server: ServerFactory) -> None:
    server = make_server(limits=Limits(absent_after=0.0, games_per_host=1000,
                                       messages_per_second=1000, burst=1000))
    ann = post(server.url, "/api/players", {"name": "Ann"}).json()
    cy = post(server.url, "/api/players", {"name": "Cy"}).json()
    made = create(server.url, players=2, player=ann["token"],
                  seats=[{"kind": "human"}, {"kind": "human"}])
    gid = made["game"]["id"]
    joined = post(server.url, f"/api/games/{gid}/join", {"player": cy["token"]}).json()
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
    # Cy lets the strongest bot play for her (the farming the issue saw).
    r = post(server.url, f"/api/games/{gid}/seats/1/bot",
             {"token": joined["token"], "level": "random"})
    assert r.is_success, r.text
    asyncio.run(play_seat(server.ws_url, gid, made["token"], 0))
    _finish(server.url, gid)
    assert HTTP.get(f"{server.url}/api/ratings").json()["ratings"] == []


def test_one_player_in_two_seats_earns_nothing(make_server: ServerFactory) -> None:
    server = make_server()
    ann = post(server.url, "/api/players", {"name": "Ann"}).json()
    made = create(server.url, players=2, player=ann["token"],
                  seats=[{"kind": "human"}, {"kind": "human"}])
    gid = made["game"]["id"]
    second = post(server.url, f"/api/games/{gid}/join", {"player": ann["token"]}).json()
    assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success

    async def both() -> None:
        await asyncio.gather(play_seat(server.ws_url, gid, made["token"], 0),
                             play_seat(server.ws_url, gid, second["token"], 1))

    asyncio.run(both())
    _finish(server.url, gid)
    assert HTTP.get(f"{server.url}/api/ratings").json()["ratings"] == []
