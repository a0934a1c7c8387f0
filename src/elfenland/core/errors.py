"""Typed errors. All are ``ValueError``s so that callers who only care that the input
was bad can catch one thing, while tools can tell the kinds apart."""

from __future__ import annotations


class ElfenlandError(ValueError):
    """Base of every error the engines raise for bad input."""


class IllegalActionError(ElfenlandError):
    """The action is well formed but the rules do not allow it now."""


class ActionParseError(ElfenlandError):
    """The text or id does not name any action of the game."""


class UnknownTownError(ActionParseError):
    """A town name that resolves to no town on the board."""


class PositionError(ElfenlandError):
    """A position document that is malformed or describes an impossible position."""


class SerializationError(ElfenlandError):
    """A saved game that cannot be read back (corrupt, or from another game)."""


class GameOverError(IllegalActionError):
    """An action sent to a game that has already ended."""


class InvariantError(ElfenlandError):
    """A state that breaks one of its game's invariants: from a position document, an
    impossible position; after a legal action, a bug in the engine."""
