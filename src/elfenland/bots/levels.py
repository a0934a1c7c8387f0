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


def _elfenland_quick(seed: int | None) -> Bot:
    from .elfenland_quick import ElfenlandQuickBot

    return ElfenlandQuickBot(seed)


def _kingelves_quick(seed: int | None) -> Bot:
    from .kingelves_quick import KingOfTheElvesQuickBot

    return KingOfTheElvesQuickBot(seed)


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
    ("quick", "elfenland"): _elfenland_quick,
    ("quick", "king-of-the-elves"): _kingelves_quick,
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


for _level in ("greedy", "search", "quick"):
    BOT_LEVELS[_level] = _factory(_level)


def _learned(game: str, planner_moves: bool = False) -> Callable[[int | None], Bot]:
    def make(seed: int | None) -> Bot:
        from .learned import LearnedBot

        return LearnedBot(game, seed, planner_moves=planner_moves)

    return make


#: The games the trained policy has shipped weights for (``bots/learned.py``'s SHIPPED).
LEARNED_GAMES = ("elfenland", "king-of-the-elves")
for _game in LEARNED_GAMES:
    BY_GAME[("learned", _game)] = _learned(_game)
BOT_LEVELS["learned"] = _factory("learned")
# The same policy with the greedy bot's planner making its journeys (Elfenland only):
# a level of its own, so that ``learned`` stays the trained policy alone.
BY_GAME[("learned-planner", "elfenland")] = _learned("elfenland", planner_moves=True)
BOT_LEVELS["learned-planner"] = _factory("learned-planner")


def _learned_players(game: str) -> Callable[[int], bool]:
    def fits(players: int) -> bool:
        from .learned import shipped_weights

        return players == shipped_weights(game).players

    return fits


#: (level, game) -> the player counts its bot can play, where that is not every count.
PLAYER_COUNTS: dict[tuple[str, str], Callable[[int], bool]] = {
    **{("learned", game): _learned_players(game) for game in LEARNED_GAMES},
    ("learned-planner", "elfenland"): _learned_players("elfenland"),
}


def plays(level: str, game: str, players: int) -> bool:
    """Whether ``make_bot(level, game)`` gives a bot that can play a game of ``players``.

    A server asks before it seats a bot: a level registered for some games only (or,
    like ``learned``, for one player count) would otherwise fail at its first move.  A
    level with no per-game constructors (``random``, one registered by hand) plays any.
    """
    if level not in BOT_LEVELS:
        return False
    name = game_info(game).name
    if not any(known == level for known, _ in BY_GAME):
        return True
    if (level, name) not in BY_GAME:
        return False
    fits = PLAYER_COUNTS.get((level, name))
    return fits is None or fits(players)


def check_plays(level: str, game: str, players: int) -> None:
    """``plays`` as a refusal, for the commands that seat bots before a game starts
    (``play``, ``tournament``): ``ElfenlandError`` saying which player counts the level
    plays, rather than a failure at the bot's first move."""
    info = game_info(game)
    name = level.strip().lower()
    if name not in BOT_LEVELS:
        raise ElfenlandError(f"unknown bot {level!r}; choose one of {sorted(BOT_LEVELS)}")
    if plays(name, info.name, players):
        return
    counts = [n for n in range(info.min_players, info.max_players + 1)
              if plays(name, info.name, n)]
    if not counts:
        raise ElfenlandError(f"there is no {name} bot for {info.name}")
    raise ElfenlandError(f"the {name} bot plays {info.title} with "
                         f"{' or '.join(map(str, counts))} players, not {players}")


def seat_levels(text: str, game: str, players: int) -> tuple[str, ...]:
    """A command line's ``--bots``: comma-separated levels, one a seat or one for all,
    each checked to play ``game`` with ``players`` (``check_plays``)."""
    levels = tuple(b.strip().lower() for b in str(text).split(",") if b.strip())
    if len(levels) == 1:
        levels *= players
    if len(levels) != players:
        raise ElfenlandError(f"--bots names {len(levels)} bots for {players} players")
    for level in sorted(set(levels)):
        check_plays(level, game, players)
    return levels
