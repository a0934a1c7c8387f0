"""Saved games for every engine: a game is where it started (its options and seed, or a
position document) plus its actions in order, and loading replays them.  Replaying is
the only way back in, so a loaded game is always one the rules could have produced."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

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
        if "position" not in doc:
            # Without one the engine would draw a fresh seed: another game, silently.
            seed = doc.get("seed")
            if not isinstance(seed, int) or isinstance(seed, bool):
                raise SerializationError(f"a saved game's seed is an integer, not {seed!r}")
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
    except (ValueError, KeyError, TypeError, LookupError, ArithmeticError, AttributeError,
            RecursionError) as exc:
        raise SerializationError(f"corrupt saved game: {exc!r}") from None
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
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError,
            RecursionError) as exc:
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


def parse_counts(value: Any, kinds: int, what: str, kind_of: Callable[[str], int]) -> list[int]:
    """Counts per kind from a position's list of names or {name: count} mapping; both
    games write hands and piles this way, so a hand-made position reads either.
    ``kind_of`` names the kind or raises ``ValueError``."""
    out = [0] * kinds
    if value is None:
        return out
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = [(name, 1) for name in value]
    else:
        raise PositionError(f"{what}: expected a list or an object, not {value!r}")
    for name, n in items:
        try:
            k = kind_of(str(name))
        except ValueError as exc:
            raise PositionError(f"{what}: {exc}") from None
        if not 0 <= k < kinds:
            raise PositionError(f"{what}: there are no {name} here")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise PositionError(f"{what}: bad count {n!r} for {name}")
        out[k] += n
    return out


def parse_winners(value: Any, n: int) -> list[int]:
    """A finished position's winners: distinct seats, at least one.  Both engines load
    through this, so they accept exactly the same lists."""
    if not isinstance(value, list) or not value:
        raise PositionError(f"winners: a list of one or more seats, not {value!r}")
    for p in value:
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < n:
            raise PositionError(f"winners: {p!r} is not a seat (0 to {n - 1})")
    if len(set(value)) != len(value):
        raise PositionError(f"winners: a seat named twice in {value!r}")
    return sorted(value)


def per_player(doc: JSONDict, key: str, n: int, default: Any) -> list[Any]:
    """A position's per-player entry: a list with one item per player, or the default."""
    value = doc.get(key)
    if value is None:
        return [default] * n
    if not isinstance(value, list) or len(value) != n:
        raise PositionError(f"{key}: expected a list with one entry per player ({n})")
    return value
