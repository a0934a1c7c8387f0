"""The games by name, so that callers can start, load and set up any of them alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ..core.errors import ElfenlandError, PositionError, SerializationError
from ..core.game import GameState, JSONDict
from ..core.options import OptionSpec


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    module: str
    min_players: int
    max_players: int

    def _mod(self) -> Any:
        return import_module(self.module)

    @property
    def options(self) -> OptionSpec:
        """The game's declared rule options (``OPTIONS`` in the ``options`` module beside
        its ``api``): what the engines check and the server validates against."""
        spec = import_module(self.module.rsplit(".", 1)[0] + ".options").OPTIONS
        assert isinstance(spec, OptionSpec)
        return spec

    @property
    def new_game(self) -> Callable[..., GameState]:
        return self._mod().new_game  # type: ignore[no-any-return]

    @property
    def deserialize(self) -> Callable[[str], GameState]:
        return self._mod().deserialize  # type: ignore[no-any-return]

    @property
    def from_position(self) -> Callable[[JSONDict], GameState]:
        return self._mod().from_position  # type: ignore[no-any-return]


GAMES: dict[str, GameInfo] = {
    "elfenland": GameInfo("elfenland", "Elfenland", "elfenland.games.elfenland.api", 2, 6),
    "king-of-the-elves": GameInfo("king-of-the-elves", "King of the Elves",
                                  "elfenland.games.kingelves.api", 2, 6),
    "elfengold": GameInfo("elfengold", "Elfengold", "elfenland.games.elfengold.api", 2, 6),
}
ALIASES = {
    "elfenland": "elfenland",
    "kingelves": "king-of-the-elves", "king-of-elves": "king-of-the-elves",
    "koenig-der-elfen": "king-of-the-elves", "konig-der-elfen": "king-of-the-elves",
    "roi-des-elfes": "king-of-the-elves",
}


def game_info(name: str) -> GameInfo:
    key = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    key = ALIASES.get(key, key)
    if key not in GAMES:
        raise ElfenlandError(f"unknown game {name!r}; choose one of {sorted(GAMES)}")
    return GAMES[key]


def option_spec(game: str = "elfenland") -> OptionSpec:
    """The declared rule options of ``game`` (any of its names)."""
    return game_info(game).options


def new_game(game: str = "elfenland", **options: Any) -> GameState:
    return game_info(game).new_game(**options)


def deserialize(text: str) -> GameState:
    """Load any game saved with ``serialize()``."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise SerializationError(f"a saved game is JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise SerializationError("a saved game is a JSON object")
    name = doc.get("game", "elfenland")
    try:
        info = game_info(name)
    except ElfenlandError as exc:
        raise SerializationError(str(exc)) from None
    return info.deserialize(text)


def engine_backend(game: str = "elfenland") -> str:
    """Which engine runs ``game``: ``"compiled"`` (the C fast path, when it was built and
    ``ELFENLAND_ENGINE`` is not ``pure``) or ``"pure"`` (the reference, always there)."""
    backend = getattr(game_info(game)._mod(), "engine_backend", None)
    return str(backend()) if backend is not None else "pure"


def load_position(doc: JSONDict | str) -> GameState:
    """Set up any game from its position document (a dict or its JSON text)."""
    if isinstance(doc, str):
        try:
            doc = json.loads(doc)
        except ValueError as exc:
            raise PositionError(f"a position is JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise PositionError("a position is a JSON object")
    fmt = str(doc.get("format", "elfenland-position/1"))
    for info in GAMES.values():
        if fmt.startswith(info.name + "-position/"):
            return info.from_position(doc)
    raise PositionError(f"unknown position format {fmt!r}")
