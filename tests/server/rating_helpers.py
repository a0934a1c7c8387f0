"""What the tests of the start-up rating scan share (``tests/server/test_rating_scan.py``
on one process, ``tests/cluster/test_rating_scan.py`` on two): finished games whose
rating was never decided, a count of each game's replays, and a wait for a hub's
background work."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

from elfenland.server.hub import Hub
from elfenland.server.live import build_state, now_iso
from elfenland.server.store import GameRecord, PlayerRecord, SeatRecord, Store

ANN = PlayerRecord("ann", "Ann", None, "")
CY = PlayerRecord("cy", "Cy", None, "")


def finished_game(store: Store, gid: str, holders: list[PlayerRecord], seed: int) -> None:
    """A finished Elfenland game whose seats are held by ``holders`` (one seat each,
    in order), played out at random and stored action by action, with no rating
    decided (the state a process killed at the game's end leaves)."""
    seats = tuple(SeatRecord(i, "human", p.name, None, f"seat-{gid}-{i}")
                  for i, p in enumerate(holders))
    record = GameRecord(gid, "elfenland", len(seats), None, {"final_keep": False}, seed,
                        "running", 0, now_iso(), "h", seats)
    store.create_game(record)
    for i, p in enumerate(holders):
        store.link_seat(gid, i, p.id)
    state = build_state(record)
    pick = random.Random(seed)
    seq = 0
    while not state.is_terminal():
        seat = state.current_player()
        action = str(pick.choice(state.legal_actions()))
        state.apply_action(action)
        seq += 1
        store.append_action(gid, seq, seat, action, finished=state.is_terminal())


def count_replays(store: Store) -> Counter[str]:
    """Counts, per game, the store reads of its actions (each replay reads them)."""
    reads: Counter[str] = Counter()
    actions = store.actions

    def counted(game_id: str) -> list[str]:
        reads[game_id] += 1
        return actions(game_id)

    store.actions = counted  # type: ignore[method-assign]
    return reads


async def settle(hub: Hub) -> None:
    """Wait until the hub's background work (the scan among it) is done."""
    for _ in range(2000):
        if not hub._tasks:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the hub's background work did not end")
