"""The three games registered with OpenSpiel as ``python_elfenland``,
``python_king_of_the_elves`` and ``python_elfengold``.

Importing this module registers them; then ``pyspiel.load_game("python_elfenland",
{"players": 3, "rules": "moon"})`` works like any OpenSpiel game, and OpenSpiel's
algorithms (IS-MCTS included, through the engines' ``resample_from_infostate``) run on it.

Chance is ``SAMPLED_STOCHASTIC``: the engines deal cards and draw counters from their own
seeded random state inside ``apply_action`` (a deal of eight cards to six players is one
engine step, not 48 chance nodes), so each state carries its chance and a clone draws the
same future.  The game's ``rng_seed`` parameter seeds the sequence of games that
``new_initial_state()`` starts.

With ``explicit_chance=True`` the chance is one explicit node instead: the first move of
every game is chance choosing one of ``deals`` equally likely deals (the engine's seed),
after which the game is deterministic (the engine's random state lives in the state).
OpenSpiel's C++ serialization then works as for any explicit-chance game (a state is its
history, replayed from the root), so ``random_sim_test(serialize=True)`` and
``pyspiel.serialize_game_and_state`` work; with sampled chance they cannot (see below).

Information states: ``information_state_string`` is the engine's ``view(player)`` with its
log (every public action and the player's own private draws), as canonical JSON;
``observation_string`` is the same view without the log.  The tensors are the fixed-size
vector of ``elfenland.envs.observation`` for both, so the information-state tensor holds
what the player sees now, not the whole history (see ``docs/research.md``).
"""

from __future__ import annotations

import base64
import io
import json
import pickle
from typing import Any

import numpy as np
import pyspiel

from ..core.errors import ElfenlandError, IllegalActionError, SerializationError
from ..core.game import TERMINAL, GameState
from ..core.rng import Rng
from ..games.elfengold.items import GOLD_CARDS, MAX_BID, TOTAL_ITEMS
from ..games.elfengold.options import Rules as ElfengoldRules
from ..games.elfenland.board import load_board
from ..games.elfenland.rules import Rules as ElfenlandRules
from ..games.registry import game_info
from .elfengold_observation import MAX_HAND
from .observation import ALWAYS_HIDDEN, FloatArray, encoder_for, num_actions

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
#: What a state shows before its deal is chosen (explicit chance).
_PENDING_TEXT = '{"deal":null}'
assert _TERMINAL == TERMINAL, "the engines and OpenSpiel agree on the terminal player id"

#: King of the Elves has no bound of its own: a player with an empty hand may "draw 3,
#: discard 4" (drawing three, discarding those three) for ever, and each draw starts the
#: round of passes again.  OpenSpiel needs a finite length, so the adapter stops a game at
#: this many actions and scores it as the end does (most gold wins).  It is about ten
#: times the longest of 200 random six-player games (5,202 actions; mean 2,483).
KING_OF_THE_ELVES_MAX_LENGTH = 50_000


#: Explicit chance: how many deals the root chance node chooses among by default (each
#: outcome seeds the engine; ``rng_seed`` picks which family of deals).
DEFAULT_DEALS = 1024


class IllegalSpielAction(pyspiel.SpielError, IllegalActionError):
    """An action that is not legal now: OpenSpiel's ``SpielError``, and the engine's
    ``IllegalActionError`` (a ``ValueError``)."""


class BadSpielState(pyspiel.SpielError, SerializationError):
    """``game.deserialize_state(text)`` of text that is not a state of this game:
    OpenSpiel's ``SpielError``, and the engines' ``SerializationError`` (a
    ``ValueError``)."""


class _StateUnpickler(pickle.Unpickler):
    """Reads the pickled attributes of a saved state, refusing every global but the
    adapter's ``_Engine``: OpenSpiel unpickles a Python state's text with ``pickle``,
    which would otherwise run whatever callable the text names."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, "_Engine"):
            return _Engine
        raise pickle.UnpicklingError(f"a saved state names no {module}.{name}")


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


def elfengold_max_game_length(players: int, rules: ElfengoldRules) -> int:
    """An upper bound on the actions of any Elfengold game under ``rules``.

    Per round and player: three card draws in phase 1 and two after the move (each of
    which may take the gold card deck), one ``hide``; the auction sells at most
    ``2 × players`` items, each at most ``2 × players + 1`` times (every failed sale puts
    its defaulter out, or first empties their purse), each sale at most ``MAX_BID``
    rising bids and one pass each; in placement at most every item of the pile once,
    with fewer than ``players`` passes before each and ``players`` to close; in the move
    every step or flight spends a card of a hand of at most 69, and so does every
    discard, plus ``end`` and the choice of coins or cards; then two keeps each.  A blind
    draw that turns up a gold card does not count and is drawn again: each of the 7 gold
    cards can do that once, and once more after each take of the deck.
    """
    n = players
    counting_draws = rules.rounds * 5 * n
    auction = 2 * n * (2 * n + 1) * (MAX_BID + n)
    place = (TOTAL_ITEMS + 1) * (n + 1)
    move = n * (2 * MAX_HAND + 2)
    per_round = n + auction + place + move + 2 * n
    return rules.rounds * per_round + counting_draws * (1 + GOLD_CARDS) + GOLD_CARDS


class _Engine:
    """The engine state inside an OpenSpiel state.  ``State.clone()`` deep-copies the
    state's attributes, so this is where the copy becomes the engine's cheap
    ``clone()``; pickling (``pyspiel.serialize_game_and_state``) goes through the
    engine's own ``serialize()``."""

    __slots__ = ("cap", "logs", "moves", "pending", "prefix", "state")

    def __init__(self, state: GameState, cap: int = 0,
                 prefix: tuple[int, tuple[Any, ...]] | None = None, moves: int = 0,
                 pending: bool = False) -> None:
        self.state = state
        #: Explicit chance: the deal is still to be chosen (``state`` is then the game's
        #: unplayed placeholder, never shown to anyone).
        self.pending = pending
        #: The game's length cap (0: none), kept here rather than a reference to the game,
        #: which a deep copy of the state's attributes would copy too.
        self.cap = cap
        #: Actions played since the game began (a resampled engine state starts a new
        #: history, but not a new game).
        self.moves = moves
        #: After resampling for a player: (player, the log entries that player had seen),
        #: so that the sampled state keeps the information state it was drawn from.
        self.prefix = prefix
        #: Per viewer, the log entries of ``state.view`` already built, with the history
        #: length they cover: a log only grows, so each view builds only the entries
        #: after them (the whole log, rebuilt at every call, made OpenSpiel's
        #: ``random_sim_test`` quadratic in a game's length; Elfengold's auctions are long).
        self.logs: dict[int | None, tuple[int, tuple[Any, ...]]] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        copy = _Engine(self.state.clone(), self.cap, self.prefix, self.moves, self.pending)
        copy.logs = dict(self.logs)
        return copy

    def __getstate__(self) -> tuple[str, int, Any, int, bool]:
        return self.state.serialize(), self.cap, self.prefix, self.moves, self.pending

    def __setstate__(self, data: tuple[Any, ...]) -> None:
        from ..games.registry import deserialize

        text, cap, prefix, moves = data[:4]
        self.state = deserialize(text)
        self.cap = cap
        self.moves = moves
        self.pending = bool(data[4]) if len(data) > 4 else False
        self.prefix = None if prefix is None else (prefix[0], tuple(prefix[1]))
        self.logs = {}


def _view_parts(engine: _Engine, player: int | None) -> tuple[dict[str, Any], list[Any]]:
    """The engine state's view for ``player`` without its log, and the log (its entries
    are shared with other calls: read them, do not change them)."""
    state = engine.state
    done, seen = engine.logs.get(player, (0, ()))
    view = state.view(player, log_after=done)
    new = view.pop("log")
    view.pop("seq", None)
    # Whether the last action may be taken back is the table's (the server's undo), read
    # from the history like seq: not part of a position a resampled state shares.
    view.pop("take_back", None)
    for entry in new:
        entry.pop("seq", None)
    if new:
        seen = (*seen, *new)
        engine.logs[player] = (state.history_length(), seen)
    return view, list(seen)


def _dumps(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


class _SpielState(pyspiel.State):
    """An OpenSpiel state around an engine state."""

    def __init__(self, game: _SpielGame, engine: _Engine) -> None:
        super().__init__(game)
        self._e = engine
        self._deals = game.deals
        self._obs_size = game.encoder.layout.size

    @property
    def engine(self) -> GameState:
        """The engine state (read it, do not change it: OpenSpiel keeps the history)."""
        if self._e.pending:
            raise ValueError("the deal is not chosen yet (explicit chance)")
        return self._e.state

    # ----------------------------------------------------------------- the game
    def _truncated(self) -> bool:
        e = self._e
        return e.cap > 0 and e.moves >= e.cap

    # OpenSpiel calls these several times a step, hence the inlined checks.  The engines'
    # TERMINAL is OpenSpiel's (-4).
    def current_player(self) -> int:
        e = self._e
        if e.pending:
            return _CHANCE
        if e.cap > 0 and e.moves >= e.cap:
            return _TERMINAL
        return e.state.current_player()

    def is_terminal(self) -> bool:
        e = self._e
        if e.pending:
            return False
        return e.state.is_terminal() or (e.cap > 0 and e.moves >= e.cap)

    def legal_actions(self, player: int | None = None) -> list[int]:
        """OpenSpiel's answer, given here: its C++ ``LegalActions`` calls back into
        Python four times to reach ``_legal_actions`` (player to act, terminal, chance,
        player again), which cost more than the compiled engine's whole step.  C++
        callers (``legal_actions_mask``, C++ algorithms) still go that way, to the same
        list."""
        e = self._e
        if e.pending:
            return list(range(self._deals)) if player in (None, _CHANCE) else []
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
        if self._e.pending:
            return list(range(self._deals))
        return sorted(self._e.state.legal_action_ids())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Explicit chance: the deals, equally likely (none once dealt)."""
        if not self._e.pending:
            return []
        p = 1.0 / self._deals
        return [(k, p) for k in range(self._deals)]

    def _apply_action(self, action: int) -> None:
        e = self._e
        if e.pending:
            if not 0 <= action < self._deals:
                raise IllegalSpielAction(f"chance outcome {action}: not a deal "
                                         f"(0 to {self._deals - 1})")
            e.state = self.get_game().deal(int(action))
            e.pending = False
            e.logs = {}
            return
        if e.cap > 0 and e.moves >= e.cap:
            raise IllegalSpielAction("the game is over")
        try:
            e.state.apply_action(int(action))  # a finished game raises GameOverError
        except ElfenlandError as exc:
            raise IllegalSpielAction(f"action {action}: {exc}") from None
        e.moves += 1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"deal {action}"
        return self._e.state.action_to_string(int(action))

    def returns(self) -> list[float]:
        s = self._e.state
        if self._e.pending:
            return [0.0] * s.num_players
        if s.is_terminal() or not self._truncated():
            return s.returns()
        # Stopped at the length cap: scored as at the end, the most gold winning.
        scores = s.scores()
        best = max(scores)
        won = [p for p, v in enumerate(scores) if v == best]
        return [1.0 / len(won) if p in won else 0.0 for p in range(s.num_players)]

    def __str__(self) -> str:
        if self._e.pending:
            return _PENDING_TEXT
        return _dumps(self._e.state.to_position())

    def __deepcopy__(self, memo: dict[int, Any]) -> _SpielState:
        return self.clone()  # type: ignore[no-any-return]

    # ----------------------------------------------------------------- information
    def observation_tensor(self, player: int | None = None) -> FloatArray:
        """The player's observation vector, written by the engine straight into a new
        float32 numpy array (the numbers ``make_observation(game)`` gives).

        Answered here, not through OpenSpiel's C++: its bridge for Python games builds a
        new initial state per call to learn the tensor's size, then copies the numbers
        into a Python list (about 17 µs for 4-player Elfenland against 0.6 µs here).  An
        array, not a list, because the list alone costs about 7 µs; it compares, indexes
        and converts as OpenSpiel's list does.  C++ callers still get OpenSpiel's list.
        """
        if player is None:
            player = self.current_player()
        n = self._e.state.num_players
        if not 0 <= player < n:
            raise IllegalSpielAction(f"no player {player} in a {n}-player game")
        out: FloatArray = np.zeros(self._obs_size, np.float32)
        if self._e.pending:
            return out
        fill = getattr(self._e.state, "_observe_into", None)
        if fill is not None:
            fill(out, player)
        else:
            out[:] = self.get_game().encoder.encode(self._e.state, player)
        return out

    #: The information-state tensor is the observation vector (see the module's notes).
    information_state_tensor = observation_tensor

    def information_state_log(self, player: int) -> list[Any]:
        if self._e.pending:
            return []
        _, log = _view_parts(self._e, player)
        prefix = self._e.prefix
        if prefix is not None and prefix[0] == player:
            return [*prefix[1], *log]
        return log

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> _SpielState:
        """A state ``player_id`` cannot tell from this one, drawn by the engine; the
        sampler (OpenSpiel's ``UniformProbabilitySampler`` or any callable giving
        numbers in [0, 1)) seeds the draw."""
        if self._e.pending:  # nothing is known before the deal: this state will do
            return self.clone()  # type: ignore[no-any-return]
        draw = float(probability_sampler())
        if not 0.0 <= draw < 1.0:  # NaN included
            raise ValueError(f"the sampler gave {draw}, not a number in [0, 1)")
        seed = int(draw * 2**53)
        sampled = self._e.state.resample_from_infostate(player_id, Rng(seed))
        seen = tuple(self.information_state_log(player_id))
        return _SpielState(self.get_game(),
                           _Engine(sampled, self._e.cap, (player_id, seen), self._e.moves))


class _Observer:
    """OpenSpiel's observer interface: a flat tensor and a string for one player.

    The observation types OpenSpiel asks for, by (public_info, private_info):

    - (True, SINGLE_PLAYER), the default: the player's whole vector
      (``elfenland.envs.observation``), the string its ``view(player)``;
    - (True, NONE), a spectator: the same vector with every observer-only block zeroed
      (town cards and gold totals come back once the game is over), the view of no seat;
    - (False, SINGLE_PLAYER), the private part alone (``generate_playthrough`` asks for
      it): the observer-only blocks of the player's own seat, one named piece each
      (``hand``, ``secret``, ``town_card``, ``distance`` in Elfenland; ``gold``, ``hand``
      in King of the Elves), and the string those pieces as JSON;
    - ALL_PLAYERS is refused: no observation shows every hand.

    ``perfect_recall`` adds the log to the string (the information state); the tensor is
    the same (see ``docs/research.md``).
    """

    def __init__(self, game: _SpielGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observations are of one player: no observer sees every hand")
        self.game = game
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.spectator = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        self.private_only = not iig_obs_type.public_info
        layout = game.encoder.layout
        # A spectator sees what the view for no seat shows: never a hand, and town cards
        # or gold totals only once the game is over.
        self._hidden = [b for b in layout.blocks if b.private and b.seat == 0]
        self._hands = [b for b in self._hidden if b.name in ALWAYS_HIDDEN]
        self._full: FloatArray = np.zeros(layout.size, np.float32)
        if self.private_only:
            size = 0 if self.spectator else sum(b.size for b in self._hidden)
            self.tensor: FloatArray = np.zeros(size, np.float32)
            self.dict: dict[str, FloatArray] = {}
            at = 0
            for b in [] if self.spectator else self._hidden:
                self.dict[b.name] = self.tensor[at:at + b.size]
                at += b.size
        else:
            self.tensor = self._full
            # One piece: OpenSpiel copies every named piece on each call, and the layout
            # (``observation_layout``) names the blocks inside it.
            self.dict = {"observation": self.tensor}

    def set_from(self, state: _SpielState, player: int) -> None:
        full = self._full
        if state._e.pending:
            full[:] = 0.0
        else:
            engine = state._e.state
            fill = getattr(engine, "_observe_into", None)
            if fill is not None:  # the compiled engine writes into the tensor itself
                fill(full, player)
            else:
                full[:] = self.game.encoder.encode(engine, player)
            if self.spectator:
                for b in self._hands if state.is_terminal() else self._hidden:
                    full[b.offset:b.offset + b.size] = 0.0
        if self.private_only and not self.spectator:
            at = 0
            for b in self._hidden:
                self.tensor[at:at + b.size] = full[b.offset:b.offset + b.size]
                at += b.size

    def string_from(self, state: _SpielState, player: int) -> str:
        if self.private_only:
            if self.spectator:
                return ""
            self.set_from(state, player)
            return _dumps({name: [float(x) for x in piece] for name, piece in self.dict.items()})
        if state._e.pending:
            return _PENDING_TEXT
        viewer = None if self.spectator else player
        view, log = _view_parts(state._e, viewer)
        if self.perfect_recall:
            view["log"] = log if self.spectator else state.information_state_log(player)
        return _dumps(view)


class _SpielGame(pyspiel.Game):
    """One of the two games with its parameters (players, rule set, seed)."""

    def __init__(self, game_type: Any, params: dict[str, Any] | None = None) -> None:
        params = {**game_type.parameter_specification, **(params or {})}
        self.name = _GAME_OF[game_type.short_name]
        self.players = int(params["players"])
        self.options = _engine_options(self.name, params)
        self.rng_seed = int(params["rng_seed"])
        self._seeds = Rng(self.rng_seed)
        self.explicit = bool(params["explicit_chance"])
        self.deals = int(params["deals"])
        if self.deals < 1:
            raise ValueError("deals must be positive")
        probe = game_info(self.name).new_game(players=self.players, seed=0, **self.options)
        self._probe = probe
        self.encoder = encoder_for(probe)
        if self.name == "elfenland":
            self.cap = 0
            length = elfenland_max_game_length(self.players, probe.rules)  # type: ignore[attr-defined]
        elif self.name == "elfengold":
            self.cap = 0
            length = elfengold_max_game_length(self.players, probe.rules)  # type: ignore[attr-defined]
        else:
            self.cap = int(params["max_game_length"])
            if self.cap < 1:
                raise ValueError("max_game_length must be positive")
            length = self.cap
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions(self.name),
            max_chance_outcomes=self.deals if self.explicit else 0,
            num_players=self.players, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
            max_game_length=length)
        if self.explicit:
            game_type = _game_type(game_type.short_name, game_type.long_name,
                                   game_type.parameter_specification, explicit=True)
        super().__init__(game_type, info, params)

    def deal(self, outcome: int) -> GameState:
        """Explicit chance: the engine state that chance outcome ``outcome`` deals (the
        same for the same ``rng_seed``, whatever happened before)."""
        seed = (self.rng_seed * self.deals + outcome) % 2**63
        return game_info(self.name).new_game(players=self.players, seed=seed, **self.options)

    def new_initial_state(self, seed: int | None = None) -> _SpielState:
        """A new game; without ``seed``, the next one of the game's seeded sequence
        (explicit chance: the root, where chance chooses the deal)."""
        if self.explicit and seed is None:
            return _SpielState(self, _Engine(self._probe, self.cap, pending=True))
        if seed is None:
            seed = self._seeds.randrange(2**63)
        state = game_info(self.name).new_game(players=self.players, seed=seed, **self.options)
        return _SpielState(self, _Engine(state, self.cap))

    def deserialize_state(self, text: str) -> _SpielState:
        """The state ``state.serialize()`` gave.  OpenSpiel's own reader (for Python
        games: a history line, a move number, then the state's attributes pickled) is
        given only text checked here first: anything else raises ``BadSpielState`` (a
        ``SpielError`` and a ``ValueError``) with the game, its seed sequence included,
        unchanged; and the pickle may name no class but the adapter's own."""
        if not isinstance(text, str):
            raise TypeError(f"a saved state is text, not {type(text).__name__}")
        self._check_saved_state(text)
        seeds = self._seeds.to_json()
        try:
            state = super().deserialize_state(text)
        except Exception as exc:  # pyspiel's checks, the engine's reader
            self._seeds = Rng.from_json(seeds)
            raise BadSpielState(f"not a saved state of this game: {exc}") from None
        return state  # type: ignore[no-any-return]

    def _check_saved_state(self, text: str) -> None:
        pieces = text.split("\n", 2)
        try:
            if len(pieces) != 3 or not pieces[0].startswith("history=") \
                    or not pieces[1].startswith("move_number=") \
                    or not pieces[2].startswith("__dict__="):
                raise ValueError("three lines: history=, move_number=, __dict__=")
            history = pieces[0][len("history="):]
            for entry in history.split(",") if history else ():
                player, action = entry.split(":")
                if not -10 <= int(player) < self.players or not 0 <= int(action) < 2**31:
                    raise ValueError(f"history entry {entry!r}")
            if not 0 <= int(pieces[1][len("move_number="):]) < 2**31:
                raise ValueError("move_number")
            blob = base64.b64decode(pieces[2][len("__dict__="):], validate=True)
            attrs = _StateUnpickler(io.BytesIO(blob)).load()
            engine = attrs.get("_e") if isinstance(attrs, dict) else None
            if not isinstance(engine, _Engine) or set(attrs) != {"_e", "_deals", "_obs_size"}:
                raise ValueError("not the attributes of a state")
            if attrs["_deals"] != self.deals or attrs["_obs_size"] != self.encoder.layout.size \
                    or engine.cap != self.cap or (engine.pending and not self.explicit):
                raise ValueError("a state of this game with other parameters")
            if not engine.pending and (engine.state.num_players != self.players
                                       or engine.state.rules != self._probe.rules):  # type: ignore[attr-defined]
                raise ValueError("a state of another game, player count or rule set")
        except BadSpielState:
            raise
        except Exception as exc:  # base64, pickle, the engine's reader
            raise BadSpielState(f"not a saved state of this game: {exc}") from None

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        return _Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
                         params)


#: Elfengold's rule options that are game parameters of their own (every other option
#: goes in the ``options`` JSON parameter).
ELFENGOLD_PARAMETERS = ("eg_public_gold", "witch", "random_gold", "town_cards")


def _engine_options(name: str, params: dict[str, Any]) -> dict[str, Any]:
    if name in ("elfenland", "elfengold"):
        options: dict[str, Any]
        if name == "elfenland":
            options = {"rules": str(params["rules"]),
                       "destination": bool(params["destination"])}
        else:
            options = {k: bool(params[k]) for k in ELFENGOLD_PARAMETERS}
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


def _game_type(short_name: str, long_name: str, params: dict[str, Any],
               explicit: bool = False) -> Any:
    """The registered type has sampled chance; a game loaded with
    ``explicit_chance=True`` reports explicit chance (OpenSpiel reads the game's own)."""
    chance = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance.EXPLICIT_STOCHASTIC if explicit else chance.SAMPLED_STOCHASTIC,
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


_GAME_OF = {"python_elfenland": "elfenland", "python_king_of_the_elves": "king-of-the-elves",
            "python_elfengold": "elfengold"}

ELFENLAND_TYPE = _game_type("python_elfenland", "Python Elfenland", {
    "players": 4, "rng_seed": 0, "rules": "amigo", "destination": False, "options": "",
    "explicit_chance": False, "deals": DEFAULT_DEALS})
KING_OF_THE_ELVES_TYPE = _game_type("python_king_of_the_elves", "Python King of the Elves", {
    "players": 4, "rng_seed": 0, "magic_spell": False, "weak_gold": False,
    "gold_for_all": False, "max_game_length": KING_OF_THE_ELVES_MAX_LENGTH,
    "explicit_chance": False, "deals": DEFAULT_DEALS})
ELFENGOLD_TYPE = _game_type("python_elfengold", "Python Elfengold", {
    "players": 4, "rng_seed": 0, "eg_public_gold": True, "witch": False,
    "random_gold": False, "town_cards": False, "options": "",
    "explicit_chance": False, "deals": DEFAULT_DEALS})


class ElfenlandGame(_SpielGame):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(ELFENLAND_TYPE, params)


class KingOfTheElvesGame(_SpielGame):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(KING_OF_THE_ELVES_TYPE, params)


class ElfengoldGame(_SpielGame):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(ELFENGOLD_TYPE, params)


pyspiel.register_game(ELFENLAND_TYPE, ElfenlandGame)
pyspiel.register_game(KING_OF_THE_ELVES_TYPE, KingOfTheElvesGame)
pyspiel.register_game(ELFENGOLD_TYPE, ElfengoldGame)

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
    if not isinstance(text, str):
        raise TypeError(f"a saved game and state is text, not {type(text).__name__}")
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
