"""Saved games for every engine: a game is where it started (its options and seed, or a
position document) plus its actions in order, and loading replays them.  Replaying is
the only way back in, so a loaded game is always one the rules could have produced."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from .errors import ElfenlandError, PositionError, SerializationError
from .game import GameState, JSONDict

S = TypeVar("S", bound=GameState)


def dump_game(game: str, start: JSONDict | None, origin: JSONDict | None,
              actions: Sequence[object]) -> str:
    """``start``: the new-game arguments; ``origin``: the position it began from instead."""
    doc: JSONDict = {"format": f"{game}-game/1", "game": game}
    if origin is None:
        doc.update(start or {})
    else:
        doc["position"] = origin
    doc["actions"] = [str(a) for a in actions]
    return json.dumps(doc, separators=(",", ":"))


def load_game(text: str, game: str, title: str, new_state: Callable[[JSONDict], S],
              from_position: Callable[[JSONDict], S]) -> S:
    """Replay a game written by ``dump_game`` (raises ``SerializationError``)."""
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict) or doc.get("format") != f"{game}-game/1":
            raise SerializationError(f"not a saved {title} game")
        state = from_position(doc["position"]) if "position" in doc else new_state(doc)
        actions = doc["actions"]
        if not isinstance(actions, list):
            raise SerializationError("actions must be a list")
        for i, action in enumerate(actions):
            try:
                state.apply_action(action)
            except ValueError as exc:
                raise SerializationError(f"action {i} ({action!r}): {exc}") from None
    except SerializationError:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise SerializationError(f"corrupt saved game: {exc}") from None
    return state


def build_position(doc: object, fmt: str, build: Callable[[JSONDict], S]) -> S:
    """Check a position document's shape and format, then build it; whatever goes wrong
    inside ``build`` comes out as one ``PositionError`` saying what."""
    if not isinstance(doc, dict):
        raise PositionError("a position is a JSON object")
    found = doc.get("format", fmt)
    if found != fmt:
        raise PositionError(f"unknown position format {found!r}")
    try:
        state = build(doc)
    except PositionError:
        raise
    except ElfenlandError as exc:
        raise PositionError(str(exc)) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise PositionError(f"bad position: {exc!r}") from None
    check_playable(state)
    return state


def check_playable(state: GameState) -> None:
    """The last guard of every loaded position: someone can act, and every action it
    offers can be played (each tried on a clone).  The engines' own checks say more
    precisely what is wrong; this one catches whatever they do not foresee."""
    if state.is_terminal():
        return
    legal = state.legal_actions()
    if not legal:
        raise PositionError(f"nobody can act in this position (player "
                            f"{state.current_player()} is to act but has no legal action)")
    for action in legal:
        trial = state.clone()
        try:
            trial.apply_action(action)
        except (ValueError, LookupError, ArithmeticError, AssertionError) as exc:
            raise PositionError(f"this position offers {action}, which cannot be played "
                                f"from it: {exc or type(exc).__name__}") from None
