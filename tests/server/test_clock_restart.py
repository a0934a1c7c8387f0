"""Deadlines live in the store: a server killed with SIGKILL applies, when it comes back,
a deadline that passed while it was down, once and only once."""

from __future__ import annotations

import time

from .helpers import HANG_GUARD, HTTP, JSON, create, post, stored_actions
from .test_restart import ServerProcess

#: The seat's time per move: the test kills the server before it runs out, after a few
#: requests that take seconds on a loaded machine (with less, the running server could
#: apply the deadline itself, and the test would prove nothing of the restart).
PER_MOVE = 5.0


def _events(server: ServerProcess, gid: str) -> list[JSON]:
    return list(HTTP.get(f"{server.url}/api/games/{gid}/events").json()["events"])


def _wait_events(server: ServerProcess, gid: str, n: int,
                 timeout: float = HANG_GUARD) -> list[JSON]:
    deadline = time.monotonic() + timeout
    while True:
        events = _events(server, gid)
        if len(events) >= n or time.monotonic() > deadline:
            return events
        time.sleep(0.05)


def test_a_deadline_passed_while_down_is_applied_once(db_url: str) -> None:
    server = ServerProcess(db_url, "--min-move-seconds", "0.1")
    try:
        made = create(server.url, players=2, seed=3, name="Ann",
                      seats=[{"kind": "human"}, {"kind": "open"}],
                      tempo={"kind": "turn", "per_move": PER_MOVE, "max_timeouts": 5})
        gid = made["game"]["id"]
        post(server.url, f"/api/games/{gid}/join", {"name": "Bob"})
        assert post(server.url, f"/api/games/{gid}/start", {"token": made["token"]}).is_success
        started = time.time()
        first = HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]["clock"]
        assert first["deadline"] is not None and first["seat"] is not None
        server.kill()  # before the deadline: nobody has applied it
    finally:
        server.stop()
    assert _deadline_passed(first, started)
    assert stored_actions(db_url, gid) == []

    server = ServerProcess(db_url, "--min-move-seconds", "0.1")
    try:
        events = _wait_events(server, gid, 1)
        assert [(e["kind"], e["seat"], e["seq"]) for e in events] == [
            ("timeout", first["seat"], 0)]
        # The stand-in played the late seat's turn; the other seat has a fresh deadline.
        deadline = time.monotonic() + HANG_GUARD
        while HTTP.get(f"{server.url}/api/games/{gid}").json()["game"]["clock"]["seat"] == \
                first["seat"]:
            assert time.monotonic() < deadline, (
                HTTP.get(f"{server.url}/api/games/{gid}").json(), server.tail())
            time.sleep(0.05)
        played = stored_actions(db_url, gid)
        assert played
        server.kill()  # again, before the next deadline
    finally:
        server.stop()

    server = ServerProcess(db_url, "--min-move-seconds", "0.1")
    try:
        # The turn that timed out is not timed out again (the next turn's deadline may
        # have passed during the restart: that one is applied now), nor are its actions
        # played twice.
        events = _wait_events(server, gid, 2)
        assert [(e["kind"], e["n"], e["seq"]) for e in events[:2]] == [
            ("timeout", 1, 0), ("timeout", 2, len(played))]
        assert events[1]["seat"] != first["seat"]
        assert stored_actions(db_url, gid)[:len(played)] == played
        seqs = [e["seq"] for e in _events(server, gid)]
        assert len(seqs) == len(set(seqs))
    finally:
        server.stop()


def _deadline_passed(clock: JSON, started: float) -> bool:
    """Sleep until the clock's deadline is behind us; it is at most a turn away."""
    wait = clock["deadline"] - time.time() + 0.3
    assert wait <= PER_MOVE + 0.5 and clock["deadline"] >= started
    time.sleep(max(0.0, wait))
    return time.time() > clock["deadline"]



def test_many_deadlines_at_once_on_a_fresh_server(db_url: str) -> None:
    """A fresh process whose first bot decisions are stand-ins for timed-out players,
    several due at about the same moment: every game's timer fires and every game
    moves on."""
    server = ServerProcess(db_url, "--min-move-seconds", "0.1")
    try:
        ids = []
        for _ in range(10):
            made = create(server.url, players=2,
                          seats=[{"kind": "human"}, {"kind": "bot", "level": "random"}],
                          tempo={"kind": "turn", "per_move": 0.5})
            ids.append((made["game"]["id"], made["token"]))
        for gid, token in ids:
            assert post(server.url, f"/api/games/{gid}/start", {"token": token}).is_success
        deadline = time.monotonic() + 90  # a hang guard for all ten games
        for gid, _ in ids:
            while len(stored_actions(db_url, gid)) < 3:
                assert time.monotonic() < deadline, f"game {gid} did not move"
                time.sleep(0.05)
            assert [e["kind"] for e in _events(server, gid)][:1] == ["timeout"]
    finally:
        server.stop()
