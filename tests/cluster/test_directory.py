"""A cluster process reads a game into memory the way one process does
(``directory.load_game``): its actions less those taken back, and its clock, so a game
handed to another process goes on from the position its players saw, with its deadline."""

from __future__ import annotations

import asyncio

import pytest

from elfenland.server.clock import Clock, TempoRequest
from elfenland.server.compose import make_hub, make_store
from elfenland.server.config import ClusterSettings, ServerConfig
from elfenland.server.live import build_state, now_iso
from elfenland.server.store import EventRecord, GameRecord, SeatRecord

pytestmark = pytest.mark.cluster


def test_a_claimed_game_keeps_its_take_backs_and_its_clock(pg_url: str) -> None:
    config = ServerConfig(db=pg_url, cluster=ClusterSettings(name="a"))
    store = make_store(config)
    seats = (SeatRecord(0, "human", "Ann", None, "x" * 64), SeatRecord(1, "bot", None, "random"))
    record = GameRecord("g1", "elfenland", 2, None, {}, 7, "running", 0, now_iso(), "h", seats)
    clock = Clock.new(TempoRequest(kind="turn"), 2, 10.0)
    store.create_game(record, clock.dumps())
    state = build_state(record)
    played = []
    for row in (1, 2):
        text = str(state.legal_actions()[0])
        store.append_action("g1", row, state.current_player(), text)
        state.apply_action(text)
        played.append(text)
    # The second action taken back: the game is its first action only.
    store.add_event("g1", EventRecord("undo", 0, 2, {"row": 2, "action": played[1]},
                                      now_iso(), key="undo:2"))
    hub = make_hub(store, config)

    async def look() -> tuple[int, Clock | None, list[int]]:
        game = await hub.get("g1", keep=False)
        return game.seq, game.clock, game.rows

    try:
        seq, loaded, rows = asyncio.run(look())
    finally:
        hub.directory.close()
        store.close()
    assert (seq, rows) == (1, [1])
    assert loaded == clock
