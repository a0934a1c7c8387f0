"""What the three compiled engines' Python wrappers (``games/<game>/fast.py``) share: the
history carried between the pure and the compiled engine, the log read back from the
compiled history, the choice of engine and the saved game replayed on it.

A compiled engine keeps each action's facts as one number (``fact``); the pure engine
keeps them as the public and private dicts of its log.  Each game's ``fast.py`` owns
the two conversions (``fact(action, public, private)`` and ``facts(action, fact)``);
the walks over the history that use them are the same for every game, so they are here,
once.  Standard library only, like the rest of ``core``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .game import GameState, JSONDict
from .saving import load_game

#: An action's facts as the compiled history keeps them, and back.
FactOf = Callable[[Any, JSONDict, JSONDict], int]
FactsOf = Callable[[Any, int], tuple[JSONDict, JSONDict]]
LogEntry = tuple[int, int, JSONDict, JSONDict]

S = TypeVar("S")
F = TypeVar("F", bound=GameState)

def compiled_chain(links: Iterable[Any], fact: FactOf) -> Any:
    """The compiled engine's history (links ``(previous, player, action, fact)``) from a
    pure engine's links ``(previous, player, action, public, private)``; a link that is
    already a compiled one is kept as it is."""
    chain: Any = None
    for link in links:
        if len(link) == 4:  # already a compiled engine's link
            chain = (chain, *link[1:])
        else:
            chain = (chain, link[1], link[2], fact(link[2], link[3], link[4]))
    return chain


def pure_chain(links: Iterable[Any], facts: FactsOf) -> Any:
    """The pure engine's history from the compiled engine's links."""
    chain: Any = None
    for _, player, action, fact in links:
        public, private = facts(action, fact)
        chain = (chain, player, action, public, private)
    return chain


def log_entries(links: Iterable[Any], facts: FactsOf) -> list[LogEntry]:
    """The log's entries ``(player, action id, public, private)`` of compiled links."""
    out = []
    for _, player, action, fact in links:
        public, private = facts(action, fact)
        out.append((player, action._id, public, private))
    return out


def on_engine(state: S, fast: type[Any], enabled: bool) -> S:
    """``state`` on the compiled engine when it serves (``enabled``), else itself."""
    if enabled and not isinstance(state, fast):
        return fast.from_state(state)  # type: ignore[no-any-return]
    return state


def load_fast(text: str, game: str, title: str, fast: Callable[..., F],
              from_state: Callable[[Any], F], rules_key: str,
              rules_from_json: Callable[[Any], Any],
              from_position: Callable[[JSONDict], Any]) -> F:
    """A saved game (``dump_game``'s text) replayed on the compiled engine ``fast``: from
    its position if it has one (``from_state`` of the pure position), else from its
    players, seed and rules (``rules_key``)."""

    def new_state(doc: JSONDict) -> F:
        return fast(players=doc["players"], seed=doc["seed"],
                    rules=rules_from_json(doc[rules_key]))

    def positioned(doc: JSONDict) -> F:
        return from_state(from_position(doc))

    return load_game(text, game, title, new_state, positioned)
