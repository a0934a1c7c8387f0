"""The board, the browser's files, the OpenAPI schema, and bots that fail."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

import pytest

import elfenland
from elfenland import bots
from elfenland.core.game import Action, GameState
from elfenland.server import botseats
from elfenland.server.background import BackgroundServer
from elfenland.web import STATIC_DIR

from .helpers import HTTP


def test_map_static_and_schema(server: BackgroundServer) -> None:
    base = server.url
    shipped = resources.files("elfenland.games.elfenland") / "data" / "elfenland-map.json"
    r = HTTP.get(f"{base}/api/maps/elfenland")
    assert r.status_code == 200 and r.json() == json.loads(shipped.read_text("utf-8"))
    page = HTTP.get(f"{base}/")
    if (STATIC_DIR / "index.html").is_file():
        assert page.status_code == 200
        assert page.text == (STATIC_DIR / "index.html").read_text("utf-8")
    paths = HTTP.get(f"{base}/openapi.json").json()["paths"]
    assert {"/api/games", "/api/games/{game_id}/join", "/api/games/{game_id}/start",
            "/api/games/{game_id}/replay"} <= set(paths)
    missing = HTTP.get(f"{base}/api/no-such-thing")
    assert missing.status_code == 404 and missing.json()["code"] == "not-found"


class _Broken:
    name = "broken"

    def choose(self, state: GameState) -> Action:
        raise RuntimeError("no idea")


class _Slow:
    name = "slow"

    def choose(self, state: GameState) -> Action:
        time.sleep(0.5)
        return state.legal_actions()[0]


@pytest.mark.parametrize("bot", [_Broken, _Slow])
def test_bot_that_fails_or_dawdles_is_replaced_by_a_legal_move(
        monkeypatch: pytest.MonkeyPatch, bot: type) -> None:
    monkeypatch.setitem(bots.BOT_LEVELS, "odd", lambda game, seed: bot())
    state = elfenland.new_game(players=3, seed=1)
    with ThreadPoolExecutor(1) as pool:
        text, own = asyncio.run(botseats.bot_decision(pool, "odd", "elfenland", 9, state, 0.1))
    assert not own
    assert text in [str(a) for a in state.legal_actions()]


def test_levels_fall_back_to_the_best_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    assert botseats.resolve_level("random", "elfenland", 3) == "random"
    for level in ("search", "greedy"):
        monkeypatch.delitem(bots.BOT_LEVELS, level, raising=False)
    assert botseats.resolve_level("search", "elfenland", 3) == "random"
    monkeypatch.setitem(bots.BOT_LEVELS, "greedy", lambda game, seed: _Broken())
    assert botseats.resolve_level("search", "elfenland", 3) == "greedy"
    assert botseats.resolve_level(None, "elfenland", 3) == "greedy"
    assert botseats.resolve_level(" RANDOM ", "elfenland", 3) == "random"


@pytest.mark.parametrize(("level", "game", "players", "seated"), [
    ("learned", "elfenland", 4, "learned"),      # its weights: 4-player Elfenland
    ("learned", "elfenland", 2, "search"),       # no weights for 2 players
    ("learned", "elfengold", 4, "search"),       # no weights for Elfengold
    ("learned", "king-of-the-elves", 4, "learned"),  # its weights: 4-player KoE
    ("learned", "king-of-the-elves", 2, "search"),   # no weights for 2 players
    ("learned-planner", "elfenland", 4, "learned-planner"),
    ("learned-planner", "king-of-the-elves", 4, "search"),  # Elfenland's planner only
    ("quick", "elfengold", 3, "search"),         # no quick Elfengold bot
    ("quick", "king-of-the-elves", 3, "quick"),
    ("greedy", "elfengold", 6, "greedy"),
])
def test_a_seat_gets_a_level_that_can_play_its_game(level: str, game: str, players: int,
                                                    seated: str) -> None:
    """A level with no bot for the game or player count is never seated: it would fail
    at its first move (make_bot raises) and leave the seat to the fallback move."""
    assert botseats.resolve_level(level, game, players) == seated
    state = elfenland.new_game(game, players=players, seed=4)
    bot = bots.make_bot(seated, game, 1)
    assert bot.choose(state) in state.legal_actions()


class _NoThreads(ThreadPoolExecutor):
    """An executor that counts what is handed to it."""

    def __init__(self) -> None:
        super().__init__(1)
        self.submitted = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.submitted += 1
        return super().submit(*args, **kwargs)


def test_a_random_bot_decides_on_the_event_loop_as_it_would_on_a_thread() -> None:
    """A random bot's decision (one seeded draw) is taken without the hop to a bot thread
    and back, and is the action the thread would have chosen; other levels, and a
    ``random`` level registered anew, still go to the thread."""
    state = elfenland.new_game(players=4, seed=3)
    with _NoThreads() as pool:
        for seed in range(20):
            text, own = asyncio.run(botseats.bot_decision(pool, "random", "elfenland", seed,
                                                          state, 1.0))
            assert own and text == str(bots.make_bot("random", "elfenland", seed).choose(state))
        assert pool.submitted == 0
        asyncio.run(botseats.bot_decision(pool, "greedy", "elfenland", 1, state, 5.0))
        assert pool.submitted == 1
    with _NoThreads() as pool, pytest.MonkeyPatch.context() as mp:
        mp.setitem(bots.BOT_LEVELS, "random", lambda game, seed: _Slow())
        text, own = asyncio.run(botseats.bot_decision(pool, "random", "elfenland", 9, state,
                                                      0.1))
        assert pool.submitted == 1 and not own
