"""The interface every game's state offers, in the names game-AI researchers know from
OpenSpiel, so that bots, the server, the UI and tournaments work with any game."""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Protocol, TypeAlias

from .errors import ElfenlandError
from .rng import Rng

PlayerId: TypeAlias = int
#: ``current_player()`` when nobody is to act because the game is over.
TERMINAL: PlayerId = -4
JSONDict: TypeAlias = dict[str, Any]


def check_viewer(viewer: object, players: int, log_after: object = 0) -> PlayerId | None:
    """A view's reader: ``None`` (a spectator) or a seat of the game; and ``log_after``
    a count of entries.  Anything else (a seat out of range, ``True``, ``1.0``, ``"0"``)
    raises ``ElfenlandError``: a view for a reader nobody meant either shows a seat's
    hidden cards to the wrong caller or shows nothing while looking like an answer."""
    seat = None if viewer is None else _whole(viewer)
    if viewer is not None and (seat is None or not 0 <= seat < players):
        raise ElfenlandError(f"no player {viewer!r} to view the game as (seats 0 to "
                             f"{players - 1}, or None for a spectator)")
    after = _whole(log_after)
    if after is None or after < 0:
        raise ElfenlandError(f"log_after is a count of log entries, not {log_after!r}")
    return seat


def check_player(player: object, players: int) -> PlayerId:
    """``player`` as a seat of a game of ``players``, or ``ElfenlandError``."""
    seat = _whole(player)
    if seat is None or not 0 <= seat < players:
        raise ElfenlandError(f"no player {player!r} (seats 0 to {players - 1})")
    return seat


def _whole(value: object) -> int | None:
    """``value`` as an int if it is a whole number's type (numpy's too), not a bool."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


class Action(Protocol):
    """A move: a small frozen value with a text notation and an id in a fixed space."""

    @property
    def id(self) -> int: ...

    def __str__(self) -> str: ...


class GameState(ABC):
    """A position of a game plus what is needed to go on from it (its random state)."""

    #: The registry name of the game ("elfenland", "king-of-the-elves").
    game_name: str = ""

    @property
    @abstractmethod
    def num_players(self) -> int: ...

    @abstractmethod
    def current_player(self) -> PlayerId:
        """The seat to act, or ``TERMINAL``."""

    @abstractmethod
    def legal_actions(self) -> Sequence[Action]: ...

    def legal_action_ids(self) -> list[int]:
        return [a.id for a in self.legal_actions()]

    @abstractmethod
    def parse_action(self, text: str | int) -> Action:
        """The action named by a notation string or id (raises ``ActionParseError``)."""

    @abstractmethod
    def apply_action(self, action: Action | str | int) -> None:
        """Play an action; raises ``IllegalActionError`` and changes nothing if illegal."""

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def scores(self) -> list[int]: ...

    @abstractmethod
    def winners(self) -> list[PlayerId]: ...

    def returns(self) -> list[float]:
        """1 shared among the winners, 0 for the others; all 0 before the end."""
        if not self.is_terminal():
            return [0.0] * self.num_players
        won = self.winners()
        return [1.0 / len(won) if p in won else 0.0 for p in range(self.num_players)]

    @abstractmethod
    def clone(self) -> GameState: ...

    @abstractmethod
    def view(self, player: PlayerId | None, log_after: int = 0) -> JSONDict:
        """What ``player`` may see, JSON-safe; ``None`` for a spectator.  Its ``log``
        holds the entries after the first ``log_after`` only: a server that already sent
        the rest need not rebuild a whole game's log at every action."""

    @abstractmethod
    def serialize(self) -> str:
        """The game as its start and action list: replays to an equal state."""

    @abstractmethod
    def to_position(self) -> JSONDict:
        """The full position document (hidden parts included)."""

    @abstractmethod
    def resample_from_infostate(self, player: PlayerId, rng: Rng) -> GameState:
        """A full state that ``player`` cannot tell apart from this one."""

    @property
    @abstractmethod
    def history(self) -> Sequence[Action]:
        """The actions played since the state was created."""

    def history_length(self) -> int:
        """``len(history)`` without building the list: a server asks it at every action."""
        return len(self.history)

    def action_to_string(self, action: Action | int) -> str:
        return str(self.parse_action(action) if isinstance(action, int) else action)


def chain_tail(chain: Any, count: int) -> list[Any]:
    """The newest ``count`` links of a history kept as nested tuples (each link's first
    item is the link before it), oldest first: a log's tail without walking the game."""
    out = []
    link = chain
    for _ in range(count):
        if link is None:
            break
        out.append(link)
        link = link[0]
    out.reverse()
    return out
