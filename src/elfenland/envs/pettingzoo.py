"""The three games (Elfenland, King of the Elves, Elfengold) as PettingZoo AEC
environments.

The engine is sequential (exactly one player acts at a time, chance is drawn inside it), so
the AEC model fits directly: ``agent_selection`` is the engine's current player, each
agent's observation is ``{"observation": vector, "action_mask": int8 mask}`` over the fixed
action space (the agent to act also finds its legal ids, sorted, in
``infos[agent]["legal_actions"]``, for agents that want a list), and rewards are the
engine's ``returns()`` (1 shared among the winners), paid once when the game ends.
Rule sets and variants are constructor options, passed to the engine's ``new_game``::

    env = elfenland_env(players=4, rules="moon")
    env = king_of_the_elves_env(players=3, magic_spell=True)
    env = elfengold_env(players=4, eg_public_gold=False, witch=True)

An action that is not legal now raises ``IllegalEnvAction`` (both the engine's
``IllegalActionError`` and Gymnasium's ``InvalidAction``) and leaves the game as it was;
wrap the environment in PettingZoo's ``TerminateIllegalWrapper`` for the "illegal move
loses" convention instead.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.error import InvalidAction
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.errors import ElfenlandError, IllegalActionError
from ..core.game import GameState
from ..games.registry import game_info
from .observation import FloatArray, MaskArray, encoder_for, num_actions

ObsDict = dict[str, FloatArray | MaskArray]


class IllegalEnvAction(IllegalActionError, InvalidAction):
    """An action id that is outside the action space or not legal for the agent now."""


class UnknownAgent(ElfenlandError, KeyError):
    """An agent name that is not one of the environment's (``player_0`` …): a
    ``KeyError`` as a dictionary's, and an ``ElfenlandError`` (a ``ValueError``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class NoAgentToAct(ElfenlandError):
    """``step`` or ``last`` on the bare environment before ``reset`` or once every agent
    has left the game (the order-enforcing wrapper warns instead)."""


class ElfenlandAECEnv(AECEnv[str, ObsDict, int]):
    """Either game as an AEC environment; agents are ``player_0`` … ``player_{n-1}``."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"], "name": "elfenland_v0", "is_parallelizable": False}

    def __init__(self, game: str = "elfenland", players: int = 4,
                 render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        self.game = game_info(game).name
        self.players = players
        self.options = dict(options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ElfenlandError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        # Builds one game now so that bad options fail here, not at the first reset.
        probe = self._new_state(0)
        self._encoder = encoder_for(probe)
        self._obs_size = self._encoder.layout.size
        self._num_actions = num_actions(self.game)
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        high = self._encoder.layout.high()
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=0.0, high=high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self._num_actions,),
                                          dtype=np.int8),
            }) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self._num_actions)
                              for a in self.possible_agents}
        self._seeder = random.Random()
        self.state_: GameState = probe
        self.agents: list[str] = []

    def _new_state(self, seed: int) -> GameState:
        return game_info(self.game).new_game(players=self.players, seed=seed, **self.options)

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- the loop
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game.  ``seed`` fixes this game and the games of later unseeded resets."""
        if isinstance(seed, np.integer):
            seed = int(seed)
        if seed is not None:
            self._seeder = random.Random(seed)
        self.state_ = self._new_state(self._seeder.randrange(2**63))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select(self.possible_agents[self.state_.current_player()])

    def _select(self, agent: str) -> None:
        """Hand the turn to ``agent``, with its legal action ids in its info."""
        self.agent_selection = agent
        self.infos[agent]["legal_actions"] = sorted(self.state_.legal_action_ids())

    def observe(self, agent: str) -> ObsDict:
        """New arrays every call (a learner may keep them); on the compiled engine both
        are written in C, straight into them."""
        seat = self._seat.get(agent)
        if seat is None:
            raise UnknownAgent(f"no agent {agent!r}: the agents are {self.possible_agents}")
        state = self.state_
        fill = getattr(state, "_observe_into", None)
        if fill is None:  # the pure engine: the Python reference encoder
            mask = np.zeros(self._num_actions, dtype=np.int8)
            if state.current_player() == seat:
                mask[self.infos[agent]["legal_actions"]] = 1
            return {"observation": self._encoder.encode(state, seat),
                    "action_mask": mask}
        obs = np.empty(self._obs_size, dtype=np.float32)
        fill(obs, seat)
        if state.current_player() == seat:  # never once the game is over (TERMINAL < 0)
            mask = np.empty(self._num_actions, dtype=np.int8)
            state._legal_mask_into(mask)  # type: ignore[attr-defined]
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[ObsDict | None, float, bool, bool,
                                                  dict[str, Any]]:
        if not self.agents:
            self._no_agent()
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def _no_agent(self) -> None:
        if not hasattr(self, "agent_selection"):
            raise NoAgentToAct("no agent to act: reset() first")
        raise NoAgentToAct("no agent to act: every agent has left the game; reset()")

    def step(self, action: int | None) -> None:
        if not self.agents:
            self._no_agent()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        # A plain int (the usual case) is checked by the range test alone.
        ok = (type(action) is int or (isinstance(action, int | np.integer)
                                      and not isinstance(action, bool)))
        if not ok or not 0 <= action < self._num_actions:  # type: ignore[operator]
            raise IllegalEnvAction(
                f"an action is an integer id in range({self._num_actions}), not {action!r}")
        try:
            state.apply_action(int(action))  # type: ignore[arg-type]
        except ElfenlandError as exc:
            raise IllegalEnvAction(f"{agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        if state.is_terminal():
            returns = state.returns()
            for a in self.agents:
                self.rewards[a] = returns[self._seat[a]]
                self.terminations[a] = True
            self._accumulate_rewards()
            # Dead agents leave in seat order, the last actor first.
            self.agent_selection = agent
            for a in self.agents:
                self.infos[a].pop("legal_actions", None)
        else:
            self._select(self.possible_agents[state.current_player()])

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        view = self.state_.view(None)
        head = f"{self.game} round {view['round']} {view['phase']}"
        if self.state_.is_terminal():
            return f"{head}: scores {view['scores']}, winners {view['winners']}"
        return f"{head}: player_{view['current_player']} to act"

    def close(self) -> None:
        pass


def raw_env(game: str = "elfenland", **kwargs: Any) -> ElfenlandAECEnv:
    return ElfenlandAECEnv(game=game, **kwargs)


class OrderEnforcing(wrappers.OrderEnforcingWrapper[str, ObsDict, int]):
    """PettingZoo's order-enforcing wrapper with the same checks, minus its cost on the
    hot path: the stock one reaches every attribute ``last()`` and the agent iterator
    read through two ``__getattr__`` hops (about eight a step), which cost more than the
    compiled engine's whole step.  Before ``reset`` everything goes the stock way, so the
    errors are PettingZoo's own."""

    def last(self, observe: bool = True) -> tuple[ObsDict | None, float, bool, bool,
                                                  dict[str, Any]]:
        result: tuple[ObsDict | None, float, bool, bool, dict[str, Any]]
        result = super().last(observe) if not self._has_reset else self.env.last(observe)
        return result

    def step(self, action: int | None) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent: str = self.env.agent_selection
        return agent

    def __str__(self) -> str:
        return str(self.env)


def env(game: str = "elfenland", **kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """The environment behind (a faster copy of) PettingZoo's order-enforcing wrapper,
    as its docs advise."""
    return OrderEnforcing(raw_env(game, **kwargs))


def elfenland_env(players: int = 4, rules: str = "amigo", destination: bool = False,
                  **options: Any) -> AECEnv[str, ObsDict, int]:
    """Elfenland: ``rules`` "amigo" or "moon", the destination variant, or any single rule
    option (``mare_nebulae_rafts=1``, ``boatmen=True``…)."""
    return env("elfenland", players=players, rules=rules, destination=destination, **options)


def elfengold_env(players: int = 4, **options: Any) -> AECEnv[str, ObsDict, int]:
    """Elfengold: any of its rule options (``eg_public_gold=False``, ``witch=True``,
    ``random_gold=True``, ``town_cards=True``, the section-2 questions ``eg_*``…), as
    ``elfenland.games.elfengold.OPTIONS`` declares them."""
    return env("elfengold", players=players, **options)


def king_of_the_elves_env(players: int = 4, **variants: Any) -> AECEnv[str, ObsDict, int]:
    """King of the Elves: variants ``magic_spell``, ``weak_gold``, ``gold_for_all`` and
    the card-count settings as keyword options."""
    return env("king-of-the-elves", players=players, **variants)
