"""Both games registered with OpenSpiel as ``python_elfenland`` and
``python_king_of_the_elves``.

Importing this module registers them; then ``pyspiel.load_game("python_elfenland",
{"players": 3, "rules": "moon"})`` works like any OpenSpiel game, and OpenSpiel's
algorithms (IS-MCTS included, through the engines' ``resample_from_infostate``) run on it.

Chance is ``SAMPLED_STOCHASTIC``: the engines deal cards and draw counters from their own
seeded random state inside ``apply_action`` (a deal of eight cards to six players is one
engine step, not 48 chance nodes), so each state carries its chance and a clone draws the
same future.  The game's ``rng_seed`` parameter seeds the sequence of games that
``new_initial_state()`` starts.

Information states: ``information_state_string`` is the engine's ``view(player)`` with its
log (every public action and the player's own private draws), as canonical JSON;
``observation_string`` is the same view without the log.  The tensors are the fixed-size
vector of ``elfenland.envs.observation`` for both, so the information-state tensor holds
what the player sees now, not the whole history (see ``docs/research.md``).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from ..core.errors import ElfenlandError, IllegalActionError
from ..core.game import TERMINAL, GameState
from ..core.rng import Rng
from ..games.elfenland.board import load_board
from ..games.elfenland.rules import Rules as ElfenlandRules
from ..games.registry import game_info
from .observation import FloatArray, encoder_for, num_actions

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
assert _TERMINAL == TERMINAL, "the engines and OpenSpiel agree on the terminal player id"

#: King of the Elves has no bound of its own: a player with an empty hand may "draw 3,
#: discard 4" (drawing three, discarding those three) for ever, and each draw starts the
#: round of passes again.  OpenSpiel needs a finite length, so the adapter stops a game at
#: this many actions and scores it as the end does (most gold wins).  It is about ten
#: times the longest of 200 random six-player games (5,202 actions; mean 2,483).
KING_OF_THE_ELVES_MAX_LENGTH = 50_000


class IllegalSpielAction(pyspiel.SpielError, IllegalActionError):
    """An action that is not legal now: OpenSpiel's ``SpielError``, and the engine's
    ``IllegalActionError`` (a ``ValueError``)."""


def elfenland_max_game_length(players: int, rules: ElfenlandRules) -> int:
    """An upper bound on the actions of any Elfenland game under ``rules``.

    Per round: one secret draw and ``counter_draws`` draws each; in the placement phase
    at most one counter per road (and no more than the players hold) plus one obstacle
    each, with fewer than ``players`` passes before each placement and ``players`` passes
    to close it; in the move phase every step and every discard spends a card of a hand
    of at most ``hand_limit + cards_per_deal``, plus one "end" each; then the keeps.
    """
    held = rules.counters_kept + 1 + rules.counter_draws
    placements = min(players * held, len(load_board().roads)) + players
    place_phase = players * (placements + 1)
    move_phase = players * (rules.hand_limit + rules.cards_per_deal + 1)
    draws = players * (1 + rules.counter_draws)
    return rules.rounds * (draws + place_phase + move_phase + players * rules.counters_kept)


class _Engine:
    """The engine state inside an OpenSpiel state.  ``State.clone()`` deep-copies the
    state's attributes, so this is where the copy becomes the engine's cheap
    ``clone()``; pickling (``pyspiel.serialize_game_and_state``) goes through the
    engine's own ``serialize()``."""

    __slots__ = ("cap", "moves", "prefix", "state")

    def __init__(self, state: GameState, cap: int = 0,
                 prefix: tuple[int, tuple[Any, ...]] | None = None, moves: int = 0) -> None:
        self.state = state
        #: The game's length cap (0: none), kept here rather than a reference to the game,
        #: which a deep copy of the state's attributes would copy too.
        self.cap = cap
        #: Actions played since the game began (a resampled engine state starts a new
        #: history, but not a new game).
        self.moves = moves
        #: After resampling for a player: (player, the log entries that player had seen),
        #: so that the sampled state keeps the information state it was drawn from.
        self.prefix = prefix

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.state.clone(), self.cap, self.prefix, self.moves)

    def __getstate__(self) -> tuple[str, int, Any, int]:
        return self.state.serialize(), self.cap, self.prefix, self.moves

    def __setstate__(self, data: tuple[str, int, Any, int]) -> None:
        from ..games.registry import deserialize

        text, cap, prefix, moves = data
        self.state = deserialize(text)
        self.cap = cap
        self.moves = moves
        self.prefix = None if prefix is None else (prefix[0], tuple(prefix[1]))


def _view_parts(state: GameState, player: int | None) -> tuple[dict[str, Any], list[Any]]:
    view = state.view(player)
    log = view.pop("log")
    view.pop("seq", None)
    # Whether the last action may be taken back is the table's (the server's undo), read
    # from the history like seq: not part of a position a resampled state shares.
    view.pop("take_back", None)
    for entry in log:
        entry.pop("seq", None)
    return view, log


def _dumps(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


class _SpielState(pyspiel.State):
    """An OpenSpiel state around an engine state."""

    def __init__(self, game: _SpielGame, engine: _Engine) -> None:
        super().__init__(game)
        self._e = engine

    @property
    def engine(self) -> GameState:
        """The engine state (read it, do not change it: OpenSpiel keeps the history)."""
        return self._e.state

    # ----------------------------------------------------------------- the game
    def _truncated(self) -> bool:
        e = self._e
        return e.cap > 0 and e.moves >= e.cap

    # OpenSpiel calls these several times a step, hence the inlined checks.  The engines'
    # TERMINAL is OpenSpiel's (-4).
    def current_player(self) -> int:
        e = self._e
        if e.cap > 0 and e.moves >= e.cap:
            return _TERMINAL
        return e.state.current_player()

    def is_terminal(self) -> bool:
        e = self._e
        return e.state.is_terminal() or (e.cap > 0 and e.moves >= e.cap)

    def legal_actions(self, player: int | None = None) -> list[int]:
        """OpenSpiel's answer, given here: its C++ ``LegalActions`` calls back into
        Python four times to reach ``_legal_actions`` (player to act, terminal, chance,
        player again), which cost more than the compiled engine's whole step.  C++
        callers (``legal_actions_mask``, C++ algorithms) still go that way, to the same
        list."""
        e = self._e
        if e.state.is_terminal() or (e.cap > 0 and e.moves >= e.cap):
            return []
        if player is not None and player != e.state.current_player():
            if player < 0:  # OpenSpiel's error for a pseudo-player
                return super().legal_actions(player)  # type: ignore[no-any-return]
            return []
        return sorted(e.state.legal_action_ids())

    def _legal_actions(self, player: int) -> list[int]:
        # OpenSpiel calls this only for the player to act of a state not over (its
        # ``LegalActions(player)`` checks both first, and answers [] itself otherwise).
        return sorted(self._e.state.legal_action_ids())

    def _apply_action(self, action: int) -> None:
        e = self._e
        if e.cap > 0 and e.moves >= e.cap:
            raise IllegalSpielAction("the game is over")
        try:
            e.state.apply_action(int(action))  # a finished game raises GameOverError
        except ElfenlandError as exc:
            raise IllegalSpielAction(f"action {action}: {exc}") from None
        e.moves += 1

    def _action_to_string(self, player: int, action: int) -> str:
        return self._e.state.action_to_string(int(action))

    def returns(self) -> list[float]:
        s = self._e.state
        if s.is_terminal() or not self._truncated():
            return s.returns()
        # Stopped at the length cap: scored as at the end, the most gold winning.
        scores = s.scores()
        best = max(scores)
        won = [p for p, v in enumerate(scores) if v == best]
        return [1.0 / len(won) if p in won else 0.0 for p in range(s.num_players)]

    def __str__(self) -> str:
        return _dumps(self._e.state.to_position())

    def __deepcopy__(self, memo: dict[int, Any]) -> _SpielState:
        return self.clone()  # type: ignore[no-any-return]

    # ----------------------------------------------------------------- information
    def information_state_log(self, player: int) -> list[Any]:
        _, log = _view_parts(self._e.state, player)
        prefix = self._e.prefix
        if prefix is not None and prefix[0] == player:
            return [*prefix[1], *log]
        return log

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> _SpielState:
        """A state ``player_id`` cannot tell from this one, drawn by the engine; the
        sampler (OpenSpiel's ``UniformProbabilitySampler`` or any callable giving
        numbers in [0, 1)) seeds the draw."""
        seed = int(float(probability_sampler()) * 2**53)
        sampled = self._e.state.resample_from_infostate(player_id, Rng(seed))
        seen = tuple(self.information_state_log(player_id))
        return _SpielState(self.get_game(),
                           _Engine(sampled, self._e.cap, (player_id, seen), self._e.moves))


class _Observer:
    """OpenSpiel's observer interface: a flat tensor and a string for one player."""

    def __init__(self, game: _SpielGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if not iig_obs_type.public_info or \
                iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observations are of one player, with the public information")
        self.game = game
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.spectator = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        layout = game.encoder.layout
        self.tensor: FloatArray = np.zeros(layout.size, np.float32)
        # One piece: OpenSpiel copies every named piece on each call, and the layout
        # (``layout.describe()``) names the blocks inside it.
        self.dict = {"observation": self.tensor}
        # A spectator sees what the view for no seat shows: never a hand, and town cards
        # or gold totals only once the game is over.
        self._hidden = [b for b in layout.blocks if b.private and b.seat == 0]
        self._hands = [b for b in self._hidden if b.name in ("hand", "secret")]

    def set_from(self, state: _SpielState, player: int) -> None:
        engine = state._e.state
        fill = getattr(engine, "_observe_into", None)
        if fill is not None:  # the compiled engine writes into the tensor itself
            fill(self.tensor, player)
        else:
            self.tensor[:] = self.game.encoder.encode(engine, player)
        if self.spectator:
            for b in self._hands if state.is_terminal() else self._hidden:
                self.tensor[b.offset:b.offset + b.size] = 0.0

    def string_from(self, state: _SpielState, player: int) -> str:
        viewer = None if self.spectator else player
        view, log = _view_parts(state.engine, viewer)
        if self.perfect_recall:
            view["log"] = log if self.spectator else state.information_state_log(player)
        return _dumps(view)


class _SpielGame(pyspiel.Game):
    """One of the two games with its parameters (players, rule set, seed)."""

    def __init__(self, game_type: Any, params: dict[str, Any] | None = None) -> None:
        params = {**game_type.parameter_specification, **(params or {})}
        self.name = "elfenland" if game_type.short_name == "python_elfenland" \
            else "king-of-the-elves"
        self.players = int(params["players"])
        self.options = _engine_options(self.name, params)
        self._seeds = Rng(int(params["rng_seed"]))
        probe = game_info(self.name).new_game(players=self.players, seed=0, **self.options)
        self.encoder = encoder_for(probe)
        if self.name == "elfenland":
            self.cap = 0
            length = elfenland_max_game_length(self.players, probe.rules)  # type: ignore[attr-defined]
        else:
            self.cap = int(params["max_game_length"])
            if self.cap < 1:
                raise ValueError("max_game_length must be positive")
            length = self.cap
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions(self.name), max_chance_outcomes=0,
            num_players=self.players, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
            max_game_length=length)
        super().__init__(game_type, info, params)

    def new_initial_state(self, seed: int | None = None) -> _SpielState:
        """A new game; without ``seed``, the next one of the game's seeded sequence."""
        if seed is None:
            seed = self._seeds.randrange(2**63)
        state = game_info(self.name).new_game(players=self.players, seed=seed, **self.options)
        return _SpielState(self, _Engine(state, self.cap))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
                         params)


def _engine_options(name: str, params: dict[str, Any]) -> dict[str, Any]:
    if name == "elfenland":
        options: dict[str, Any] = {"rules": str(params["rules"]),
                                   "destination": bool(params["destination"])}
        extra = str(params["options"]).strip()
        if extra:
            try:
                more = json.loads(extra)
            except ValueError as exc:
                raise ValueError(f"options is a JSON object of rule options: {exc}") from None
            if not isinstance(more, dict):
                raise ValueError("options is a JSON object of rule options")
            options.update(more)
        return options
    return {k: bool(params[k]) for k in ("magic_spell", "weak_gold", "gold_for_all")}


def _game_type(short_name: str, long_name: str, params: dict[str, Any]) -> Any:
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=6,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


ELFENLAND_TYPE = _game_type("python_elfenland", "Python Elfenland", {
    "players": 4, "rng_seed": 0, "rules": "amigo", "destination": False, "options": ""})
KING_OF_THE_ELVES_TYPE = _game_type("python_king_of_the_elves", "Python King of the Elves", {
    "players": 4, "rng_seed": 0, "magic_spell": False, "weak_gold": False,
    "gold_for_all": False, "max_game_length": KING_OF_THE_ELVES_MAX_LENGTH})


class ElfenlandGame(_SpielGame):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(ELFENLAND_TYPE, params)


class KingOfTheElvesGame(_SpielGame):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(KING_OF_THE_ELVES_TYPE, params)


pyspiel.register_game(ELFENLAND_TYPE, ElfenlandGame)
pyspiel.register_game(KING_OF_THE_ELVES_TYPE, KingOfTheElvesGame)

# ----------------------------------------------------------------- saving a game and state
#
# ``pyspiel.serialize_game_and_state`` (and pickling a game or state) cannot work for a
# Python game with sampled chance: OpenSpiel's C++ ``Game::Serialize`` then asks the game
# for its random state through ``Game::GetRNGState``, a virtual that pybind11 does not
# route to Python (``python_games.h`` has no trampoline for it), so it raises
# "GetRNGState unimplemented" whatever the game defines.  Declaring the games
# deterministic would silence it and mislead every algorithm that reads the chance mode.
# Everything else it needs works (``state.serialize()`` and ``game.deserialize_state``
# carry the engine's own saved game), so these two functions do the same job with the
# game's seed sequence saved by the adapter.

_SAVE_HEAD = "# elfenland.envs.openspiel game and state"


def serialize_game_and_state(game: _SpielGame, state: _SpielState) -> str:
    """``pyspiel.serialize_game_and_state`` for these games: the game (with where its
    sequence of seeded games has got to) and the state, as text."""
    if not isinstance(game, _SpielGame) or not isinstance(state, _SpielState):
        raise TypeError("serialize_game_and_state takes an elfenland OpenSpiel game and state")
    # The parameters as JSON, not ``str(game)``: OpenSpiel's game string cannot quote an
    # ``options`` value holding commas.
    spec = {"game": game.get_type().short_name, "parameters": game.get_parameters()}
    return "\n".join([_SAVE_HEAD, "[Game]", _dumps(spec), "[Seeds]",
                      _dumps(game._seeds.to_json()), "[State]", state.serialize()])


def deserialize_game_and_state(text: str) -> tuple[_SpielGame, _SpielState]:
    """The game and state ``serialize_game_and_state`` saved: the state plays on as the
    saved one would, and the game's next ``new_initial_state()`` is the one it would
    have started."""
    lines = text.split("\n", 6)
    if len(lines) != 7 or lines[0] != _SAVE_HEAD or lines[1] != "[Game]" \
            or lines[3] != "[Seeds]" or lines[5] != "[State]":
        raise ValueError("not a game and state saved by serialize_game_and_state")
    try:
        spec = json.loads(lines[2])
        game = pyspiel.load_game(spec["game"], spec["parameters"])
        seeds = Rng.from_json(json.loads(lines[4]))
    except (ValueError, KeyError, TypeError, pyspiel.SpielError) as exc:
        raise ValueError(f"a bad saved game: {exc}") from None
    if not isinstance(game, _SpielGame):
        raise ValueError(f"{spec['game']} is not an elfenland OpenSpiel game")
    state = game.deserialize_state(lines[6])
    # Restored last: deserializing a state starts a new game first, which draws a seed.
    game._seeds = seeds
    return game, state
