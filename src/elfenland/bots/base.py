"""The bot interface and the registry of bot levels."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from ..core.errors import ElfenlandError
from ..core.game import Action, GameState


class Bot(Protocol):
    name: str

    def choose(self, state: GameState) -> Action:
        """A legal action for ``state.current_player()``.  Uses only what that player
        may know (hidden parts are resampled, never read)."""
        ...


class RandomBot:
    """Uniformly random among the legal actions: the baseline every bot must beat."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        legal = state.legal_actions()
        if not legal:
            raise ElfenlandError("no legal action: the game is over")
        return legal[self.rng.randrange(len(legal))]


BotFactory = Callable[[str, int | None], Bot]

#: Level name -> factory(game name, seed).  Other modules add their levels here.
BOT_LEVELS: dict[str, BotFactory] = {
    "random": lambda game, seed: RandomBot(seed),
}


def make_bot(level: str, game: str = "elfenland", seed: int | None = None) -> Bot:
    try:
        factory = BOT_LEVELS[level.strip().lower()]
    except KeyError:
        raise ElfenlandError(f"unknown bot {level!r}; choose one of {sorted(BOT_LEVELS)}") from None
    return factory(game, seed)
