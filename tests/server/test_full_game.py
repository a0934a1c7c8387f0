"""Whole games between WebSocket clients and server-side bots, checked against the
engine: what the clients saw is what the rules give for the stored actions, and no seat
ever saw what the rules hide from it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect

import elfenland
from elfenland.bots.levels import BY_GAME

from .conftest import ServerFactory
from .helpers import HTTP, JSON, create, play_seat, post, recv, recv_until, replay, stored_actions

SEED = 4242


def _options(game: str) -> JSON:
    # Town cards in play, so the test also covers a hidden town card.
    return {"destination": True} if game == "elfenland" else {}


def _private_keys(full: JSON, public: JSON) -> set[str]:
    return set(full) - set(public)


def check_no_hidden_info(summary: JSON, seed: int, actions: list[str],
                         received: dict[int, list[JSON]]) -> int:
    """Every update a seat got equals the engine's view for that seat at that step, and
    holds none of the keys that only another player's own view has.  ``received`` maps
    seats to their messages.  Returns the number of updates checked."""
    state = replay(summary, seed, [])
    n = summary["players"]
    checked = 0
    by_seq: dict[tuple[int, int], list[JSON]] = {}
    for seat, messages in received.items():
        for m in messages:
            if m["type"] == "update":
                by_seq.setdefault((seat, m["seq"]), []).append(m)
    for step in range(len(actions) + 1):
        if step:
            state.apply_action(actions[step - 1])
        if not any((seat, step) in by_seq for seat in received):
            continue
        # Only the entries these updates carry: a whole log a step would make the check
        # quadratic in the game's length.
        seqs = [e["seq"] for seat in received for m in by_seq.get((seat, step), [])
                for e in m["log"]]
        after = min(seqs, default=step + 1) - 1
        public = state.view(None, log_after=after)
        own = {p: state.view(p, log_after=after) for p in range(n)}
        public_log = {e["seq"]: e for e in public["log"]}
        own_log = {p: {e["seq"]: e for e in own[p]["log"]} for p in range(n)}
        for seat in received:
            mine = {k: v for k, v in own[seat].items() if k != "log"}
            for m in by_seq.get((seat, step), []):
                checked += 1
                assert m["view"] == mine, f"seat {seat} at seq {step} got another view"
                for p in range(n):
                    if p == seat:
                        continue
                    hidden = _private_keys(own[p]["players"][p], public["players"][p])
                    assert not hidden & set(m["view"]["players"][p]), (seat, p, hidden)
                for entry in m["log"]:
                    assert entry == own_log[seat][entry["seq"]]
                    if entry["player"] != seat:
                        theirs = own_log[entry["player"]][entry["seq"]]
                        secret = _private_keys(theirs, public_log[entry["seq"]])
                        assert not secret & set(entry), (seat, entry, secret)
                        assert entry["action"] == public_log[entry["seq"]]["action"]
    return checked


#: The games the server offers that have a greedy bot (the test seats one).
WITH_GREEDY = sorted(g for g in elfenland.GAMES if ("greedy", g) in BY_GAME)


@pytest.mark.parametrize("game", WITH_GREEDY)
def test_whole_four_player_game(make_server: ServerFactory, db_url: str, game: str) -> None:
    server = make_server()
    base = server.url
    made = create(base, game=game, players=4, seed=SEED, options=_options(game), name="Ann",
                  seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "bot", "level": "random"},
                         {"kind": "bot", "level": "greedy"}])
    gid = made["game"]["id"]
    assert made["seat"] == 0 and len(made["token"]) >= 40
    joined = post(base, f"/api/games/{gid}/join", {"name": "Bob"}).json()
    assert joined["seat"] == 1
    started = post(base, f"/api/games/{gid}/start", {"token": made["token"]})
    assert started.status_code == 200, started.text
    assert started.json()["status"] == "running"

    async def run() -> tuple[list[JSON], list[JSON], list[JSON]]:
        spectator: list[JSON] = []

        async def watch() -> None:
            async with connect(f"{server.ws_url}/ws/games/{gid}") as ws:
                while True:
                    msg = await recv(ws, 60)
                    spectator.append(msg)
                    if msg["type"] == "update" and msg["view"]["current_player"] is None:
                        return

        a, b, _ = await asyncio.gather(
            play_seat(server.ws_url, gid, made["token"], 0),
            play_seat(server.ws_url, gid, joined["token"], 1), watch())
        return a, b, spectator

    ann, bob, spectator = asyncio.run(run())
    for messages in (ann, bob):
        assert not [m for m in messages if m["type"] == "error"]
    actions = stored_actions(db_url, gid)
    final = replay(made["game"], SEED, actions)
    assert final.is_terminal()
    last = ann[-1]["view"]
    assert last["scores"] == final.scores() and last["winners"] == final.winners()
    assert bob[-1]["seq"] == len(actions) == ann[-1]["seq"]
    # Both humans and both bots played.
    players = {e["player"] for m in ann if m["type"] == "update" for e in m["log"]}
    assert players == {0, 1, 2, 3}

    assert check_no_hidden_info(made["game"], SEED, actions, {0: ann, 1: bob}) > 20
    public_view = replay(made["game"], SEED, actions).view(None)
    assert spectator[-1]["view"] == {k: v for k, v in public_view.items() if k != "log"}
    assert spectator[-1]["view"]["viewer"] is None

    summary = HTTP.get(f"{base}/api/games/{gid}").json()["game"]
    assert summary["status"] == "finished" and summary["seq"] == len(actions)
    finished = HTTP.get(f"{base}/api/games", params={"status": "finished"}).json()["games"]
    assert gid in [g["id"] for g in finished]

    # A finished game stays as a replay: any seat's view at any step.
    step = len(actions) // 2
    r = HTTP.get(f"{base}/api/games/{gid}/replay", params={"step": step, "seat": 2}).json()
    assert r["steps"] == len(actions) and r["step"] == step
    assert r["view"] == replay(made["game"], SEED, actions[:step]).view(2)
    public_log: list[Any] = HTTP.get(f"{base}/api/games/{gid}/actions").json()["actions"]
    assert public_log == [e["action"] for e in public_view["log"]]

    async def after_the_end() -> JSON:
        async with connect(f"{server.ws_url}/ws/games/{gid}?token={made['token']}") as ws:
            await recv_until(ws, lambda m: m["type"] == "update")
            await ws.send(json.dumps({"type": "action", "action": "pass",
                                      "seq": len(actions)}))
            return await recv_until(ws, lambda m: m["type"] == "error")

    assert asyncio.run(after_the_end())["code"] == "game-over"
