"""The lobby's request bodies (validated by pydantic, so the OpenAPI schema documents
them) and the ``GameSummary`` every lobby answer and ``lobby`` message carries."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from ..core.errors import ElfenlandError
from ..core.game import GameState
from ..games.registry import GAMES, game_info, new_game
from .botseats import bot_title
from .clock import TempoRequest
from .errors import ServerError
from .names import clean_name as clean_name  # names.py cleans every name (issue 23)
from .store import GameRecord

NAME_MAX = 40
#: Kept in a game's stored options by the server for itself, never passed to the engine:
#: the creator chose the seed (which predicts every hand), so the game is unrated and
#: its seed is shown to everyone.
SEED_CHOSEN = "seed_chosen"
#: Also the server's, never the engine's: the creator asked for the route hint ("Suggest
#: a route", the exact planner's best journey) at this table.  A planner playing for you
#: is not your skill, so such a table is unrated; every other table refuses the hint.
ROUTE_HINT = "route_hint"
#: The keys of a game's stored options that are the server's own.
SERVER_KEYS = frozenset({SEED_CHOSEN, ROUTE_HINT})
#: Options the server sets for a new game unless its creator asks otherwise: the keep
#: step after Elfenland's last round changes nothing, so players are not asked it.
NEW_GAME_DEFAULTS: dict[str, dict[str, Any]] = {"elfenland": {"final_keep": False}}


class SeatRequest(BaseModel):
    kind: Literal["human", "open", "bot"] = "open"
    level: str | None = Field(default=None, max_length=40)
    #: A hotseat seat's player name.
    name: str | None = Field(default=None, max_length=NAME_MAX)


class CreateGame(BaseModel):
    game: str = Field(default="elfenland", max_length=40)
    players: int | None = Field(default=None, ge=1, le=12)
    rules: str | None = Field(default=None, max_length=40)
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    name: str | None = Field(default=None, max_length=NAME_MAX)
    seats: list[SeatRequest] | None = Field(default=None, max_length=12)
    #: Live (a clock per turn with a bank) or turn-based (hours per turn); None: no clock.
    tempo: TempoRequest | None = None
    #: A player token (POST /api/players): the creator's seat is linked to that player.
    player: str | None = Field(default=None, max_length=200)
    #: Hotseat: every "human" seat is played from the creator's device, each with its
    #: own token (answered in ``hotseat``), instead of waiting for others to join.
    hotseat: bool = False

    @model_validator(mode="after")
    def _options_declared(self) -> CreateGame:
        check_options(self.game, self.rules, self.options)
        return self


def check_options(game: str, rules: str | None, options: dict[str, Any]) -> None:
    """A new game's ``rules`` and ``options`` against the game's declared option
    specification (``GameInfo.options``): the rule set must be one of the game's, every
    option one it has, of its type and in its range.  Refused with ``bad-option`` (422),
    naming the option and what it may be.  An unknown game is left to the hub."""
    try:
        spec = game_info(game).options
    except ElfenlandError:
        return
    if rules is not None and rules.strip().lower() not in spec.rule_sets:
        raise ServerError("bad-option", f"rules: {spec.game} has the rule sets "
                                        f"{', '.join(sorted(spec.rule_sets))}, not {rules!r}")
    if "name" in options:
        raise ServerError("bad-option", "options: 'name' is not an option; choose a rule set "
                                        "with 'rules'")
    try:
        spec.check({k: v for k, v in options.items() if k not in SERVER_KEYS})
    except ElfenlandError as exc:
        raise ServerError("bad-option", f"options: {exc}") from None


class JoinGame(BaseModel):
    name: str | None = Field(default=None, max_length=NAME_MAX)
    seat: int | None = None
    player: str | None = Field(default=None, max_length=200)


class StartGame(BaseModel):
    token: str | None = Field(default=None, max_length=200)
    fill: str | None = Field(default=None, max_length=40)


class SeatToBot(BaseModel):
    token: str = Field(max_length=200)
    level: str | None = Field(default=None, max_length=40)


class TakeSeat(BaseModel):
    token: str = Field(max_length=200)




def rules_name(state: GameState) -> str | None:
    """The name the engine gives the rule set a game plays by (``amigo``, ``moon``,
    ``standard``), so that clients always know the rules, even when none was asked for."""
    name = getattr(getattr(state, "rules", None), "name", None)
    return name if isinstance(name, str) else None


@cache
def default_rules(game: str) -> str | None:
    """The rule set a game gets when created without one (for games stored before the
    server recorded it)."""
    info = GAMES.get(game)
    if info is None:
        return None
    try:
        return rules_name(new_game(game=game, players=info.min_players, seed=0))
    except ElfenlandError:
        return None


def engine_options(options: dict[str, Any]) -> dict[str, Any]:
    """A game's stored options without the server's own keys: what ``new_game`` takes."""
    return {k: v for k, v in options.items() if k not in SERVER_KEYS}


def new_game_options(game: str, requested: dict[str, Any], seed: int | None
                     ) -> dict[str, Any]:
    """The options stored for a new game: the server's defaults, what the creator asked
    for, and whether they chose the seed."""
    if SEED_CHOSEN in requested:
        raise ElfenlandError(f"{SEED_CHOSEN!r} is set by the server, not an option")
    hint = requested.get(ROUTE_HINT, False)
    if not isinstance(hint, bool):
        raise ElfenlandError(f"{ROUTE_HINT!r} is true or false, not {hint!r}")
    if hint and game != "elfenland":
        raise ElfenlandError("the route hint is an Elfenland table option")
    requested = {k: v for k, v in requested.items() if k != ROUTE_HINT}
    options = {**NEW_GAME_DEFAULTS.get(game, {}), **requested}
    if hint:
        options[ROUTE_HINT] = True
    if seed is not None:
        options[SEED_CHOSEN] = True
    return options


def custom_rules(record: GameRecord) -> bool:
    """Whether the game's options leave its named rule set (variants aside): such a
    "custom" game is playable but never rated, like one whose seed was chosen."""
    info = GAMES.get(record.game)
    if info is None:
        return False
    rules = record.rules if record.rules is not None else default_rules(record.game)
    return not info.options.is_standard(str(rules), engine_options(record.options))


def unrated(record: GameRecord) -> bool:
    """Never rated: the creator chose the seed (which predicts every hand), the route hint
    plays part of it, or the rules are custom."""
    return (bool(record.options.get(SEED_CHOSEN) or record.options.get(ROUTE_HINT))
            or custom_rules(record))


def seed_facts(record: GameRecord) -> dict[str, Any]:
    """A chosen seed is shown to everyone from the start (and the game is unrated); a
    drawn one only once the game is over, when it can no longer predict anything.  Custom
    rules also make a game unrated."""
    chosen = bool(record.options.get(SEED_CHOSEN))
    custom = custom_rules(record)
    facts: dict[str, Any] = {"seed_chosen": chosen, "custom_rules": custom,
                             "unrated": unrated(record),
                             "route_hint": bool(record.options.get(ROUTE_HINT))}
    if chosen or record.status == "finished":
        facts["seed"] = record.seed
    return facts


def summary(record: GameRecord, connected: set[int], seq: int) -> dict[str, Any]:
    info = GAMES.get(record.game)
    seats: list[dict[str, Any]] = []
    for s in record.seats:
        entry: dict[str, Any] = {"seat": s.seat, "kind": s.kind}
        if s.kind == "human":
            entry.update(name=s.name, connected=s.seat in connected)
        elif s.kind == "bot":
            entry.update(level=s.level, name=bot_title(s.level or "bot"))
            if s.token_hash is not None:
                # A human's seat a bot plays for now; they may take it back.
                entry.update(human=s.name, connected=s.seat in connected)
        seats.append(entry)
    return {
        "id": record.id,
        "game": record.game,
        "title": info.title if info else record.game,
        "rules": record.rules if record.rules is not None else default_rules(record.game),
        "options": engine_options(record.options),
        "players": record.players,
        "status": record.status,
        "seats": seats,
        "seq": seq,
        "created": record.created,
        "join_url": f"/#/game/{record.id}",
        **seed_facts(record),
    }


def mark_connected(out: dict[str, Any], seats: set[int]) -> None:
    """Also count ``seats`` as connected in a summary (sockets on another process)."""
    for entry in out["seats"]:
        if "connected" in entry and entry["seat"] in seats:
            entry["connected"] = True
