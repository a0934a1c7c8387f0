"""Bots for both games, on the engines' public surface only.

``make_bot(name, game, seed)`` gives a bot by level name ("random", "greedy",
"search"); every bot has one method, ``choose(state) -> action``, and may be put in any
seat at any moment.
"""

from __future__ import annotations

from .base import BOT_LEVELS, Bot, RandomBot, make_bot
from .levels import check_plays, plays  # importing levels registers "greedy", "search"...

__all__ = ["BOT_LEVELS", "Bot", "RandomBot", "check_plays", "make_bot", "plays"]
