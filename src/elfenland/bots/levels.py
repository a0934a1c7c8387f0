"""The bot levels beyond ``random``, registered in ``BOT_LEVELS`` by game.

A factory takes the game's registry name and a seed, so one level name ("greedy",
"search") gives the right bot for whichever game a seat is in.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import ElfenlandError
from ..games.registry import game_info
from .base import BOT_LEVELS, Bot


def _elfenland_greedy(seed: int | None) -> Bot:
    from .elfenland_greedy import ElfenlandGreedyBot

    return ElfenlandGreedyBot(seed)


def _elfenland_search(seed: int | None) -> Bot:
    from .elfenland_search import ElfenlandSearchBot

    return ElfenlandSearchBot(seed)


def _elfenland_expert(seed: int | None) -> Bot:
    from .elfenland_expert import ElfenlandExpertBot

    return ElfenlandExpertBot(seed)


def _kingelves_expert(seed: int | None) -> Bot:
    from .kingelves_expert import KingOfTheElvesExpertBot

    return KingOfTheElvesExpertBot(seed)


def _kingelves_greedy(seed: int | None) -> Bot:
    from .kingelves_greedy import KingOfTheElvesGreedyBot

    return KingOfTheElvesGreedyBot(seed)


def _kingelves_search(seed: int | None) -> Bot:
    from .kingelves_search import KingOfTheElvesSearchBot

    return KingOfTheElvesSearchBot(seed)


def _elfengold_greedy(seed: int | None) -> Bot:
    from .elfengold_greedy import ElfengoldGreedyBot

    return ElfengoldGreedyBot(seed)


def _elfengold_search(seed: int | None) -> Bot:
    from .elfengold_search import ElfengoldSearchBot

    return ElfengoldSearchBot(seed)


#: (level, game) -> constructor from a seed.
BY_GAME: dict[tuple[str, str], Callable[[int | None], Bot]] = {
    ("greedy", "elfenland"): _elfenland_greedy,
    ("search", "elfenland"): _elfenland_search,
    ("greedy", "king-of-the-elves"): _kingelves_greedy,
    ("search", "king-of-the-elves"): _kingelves_search,
    ("greedy", "elfengold"): _elfengold_greedy,
    ("search", "elfengold"): _elfengold_search,
    ("expert", "elfenland"): _elfenland_expert,
    ("expert", "king-of-the-elves"): _kingelves_expert,
}


def _factory(level: str) -> Callable[[str, int | None], Bot]:
    def make(game: str, seed: int | None) -> Bot:
        name = game_info(game).name
        try:
            build = BY_GAME[(level, name)]
        except KeyError:
            raise ElfenlandError(f"there is no {level} bot for {name}") from None
        return build(seed)

    return make


for _level in ("greedy", "search", "expert"):
    BOT_LEVELS[_level] = _factory(_level)


def _elfenland_learned(seed: int | None) -> Bot:
    from .learned import LearnedBot

    return LearnedBot("elfenland", seed)


# The self-play policy, for the games it has shipped weights for (bots/learned.py).
BY_GAME[("learned", "elfenland")] = _elfenland_learned
BOT_LEVELS["learned"] = _factory("learned")
