"""Bots that sit in seats on the server: which level a request gets, and one decision
taken off the event loop within a time limit."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import Executor

from ..bots import BOT_LEVELS, make_bot
from ..bots.levels import plays
from ..core.game import GameState

#: Strongest first: a level that is not registered falls back to the best that is.
PREFERENCE: tuple[str, ...] = ("search", "greedy", "random")


def best_level(game: str, players: int) -> str:
    for level in PREFERENCE:
        if plays(level, game, players):
            return level
    return sorted(BOT_LEVELS)[0]


def resolve_level(requested: str | None, game: str, players: int) -> str:
    """The level a seat of this game gets: the one asked for if it has a bot for this
    game and player count (``learned`` has weights for 4-player Elfenland and King of
    the Elves, ``learned-planner`` for 4-player Elfenland, ``quick`` no Elfengold bot),
    else the best one that has: never a bot that fails at its move."""
    if requested is not None:
        key = requested.strip().lower()
        if plays(key, game, players):
            return key
    return best_level(game, players)


def bot_title(level: str) -> str:
    return f"{level.replace('-', ' ').capitalize()} bot"


def decision_seed(game_seed: int, seat: int, seq: int) -> int:
    """Each decision gets its own seed from the game, seat and step, so a bot plays the
    same after a server restart as it would have without one."""
    return (game_seed * 1_000_003 + seat * 10_007 + seq) % (2**63)


#: Levels whose decision is one seeded draw among the legal actions: far cheaper than the
#: hop to a bot thread and back (a copy of the state, a thread woken, the event loop woken
#: again: on a loaded machine each wake-up waits for a core), so taken on the event loop.
ON_LOOP: frozenset[str] = frozenset({"random"})


#: The factories the ``ON_LOOP`` levels had when this module was loaded: a level
#: registered anew (a plugin, a test) is not known to be cheap and goes to a thread.
_BUILT_IN = {level: BOT_LEVELS.get(level) for level in ON_LOOP}


def _choose(level: str, game: str, seed: int, state: GameState) -> str:
    bot = make_bot(level, game, seed)
    return str(bot.choose(state))


async def bot_decision(executor: Executor, level: str, game: str, seed: int,
                       state: GameState, time_limit: float) -> tuple[str, bool]:
    """The bot's action text, and whether the bot chose it (False: it failed or ran
    out of time, and a seeded random legal action stands in).  A level in ``ON_LOOP``
    decides here, the others in ``executor`` within ``time_limit``."""
    if level in ON_LOOP and BOT_LEVELS.get(level) is _BUILT_IN.get(level):
        try:
            return _choose(level, game, seed, state), True
        except Exception:
            legal = state.legal_actions()
            return str(legal[random.Random(seed).randrange(len(legal))]), False
    loop = asyncio.get_running_loop()
    snapshot = state.clone()
    future = loop.run_in_executor(executor, _choose, level, game, seed, snapshot)
    try:
        return await asyncio.wait_for(future, time_limit), True
    except Exception:
        legal = state.legal_actions()
        return str(legal[random.Random(seed).randrange(len(legal))]), False
