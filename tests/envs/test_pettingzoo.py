"""Both games as PettingZoo AEC environments, checked by PettingZoo's own conformance
tests (``api_test``, ``seed_test``) and by what a researcher relies on: rewards from
``returns()``, rule sets as options, and a clear error for an illegal action."""

from __future__ import annotations

import pytest

from .conftest import need

np = need("numpy")
need("pettingzoo")
need("gymnasium")

from gymnasium.error import InvalidAction  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from elfenland.core.errors import ElfenlandError, IllegalActionError  # noqa: E402
from elfenland.envs.pettingzoo import (  # noqa: E402
    ElfenlandAECEnv,
    elfengold_env,
    elfenland_env,
    king_of_the_elves_env,
    raw_env,
)


@pytest.mark.parametrize("make", [
    lambda: elfenland_env(players=3),
    lambda: elfenland_env(players=2, rules="moon"),
    lambda: king_of_the_elves_env(players=3, magic_spell=True),
    lambda: elfengold_env(players=3),
    lambda: elfengold_env(players=2, eg_public_gold=False, witch=True, town_cards=True),
])
def test_pettingzoo_api_test(make) -> None:  # type: ignore[no-untyped-def]
    api_test(make(), num_cycles=400)


@pytest.mark.parametrize("make", [
    lambda: elfenland_env(players=4, destination=True),
    lambda: king_of_the_elves_env(players=2),
    lambda: elfengold_env(players=4, random_gold=True),
])
def test_pettingzoo_seed_test(make) -> None:  # type: ignore[no-untyped-def]
    seed_test(make, num_cycles=300)


def play_out(env: ElfenlandAECEnv, seed: int) -> dict[str, float]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            action = None
        else:
            assert env.observation_space(agent)["observation"].contains(obs["observation"])
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return totals


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves", "elfengold"])
def test_rewards_are_the_engines_returns(game: str) -> None:
    env = raw_env(game, players=3)
    totals = play_out(env, seed=5)
    assert not env.agents
    returns = env.state_.returns()
    assert [totals[a] for a in env.possible_agents] == returns
    assert abs(sum(returns) - 1.0) < 1e-9


def test_seeded_resets_repeat_and_unseeded_resets_differ() -> None:
    env = raw_env("elfenland", players=2)
    env.reset(seed=11)
    first = env.state_.serialize()
    env.reset()
    second = env.state_.serialize()
    env.reset(seed=11)
    assert env.state_.serialize() == first
    assert second != first


def test_rule_sets_reach_the_engine() -> None:
    env = raw_env("elfenland", players=3, rules="moon", mare_nebulae_rafts=2)
    env.reset(seed=1)
    assert env.state_.rules.name == "moon" and env.state_.rules.mare_nebulae_rafts == 2
    kote = raw_env("king-of-the-elves", players=2, magic_spell=True)
    kote.reset(seed=1)
    assert kote.state_.rules.magic_spell
    gold = raw_env("elfengold", players=3, eg_public_gold=False, witch=True)
    gold.reset(seed=1)
    assert not gold.state_.rules.eg_public_gold and gold.state_.rules.witch
    assert gold.action_space("player_0").n == 44_522
    with pytest.raises(ElfenlandError):
        raw_env("elfengold", players=3, eg_overbid="sometimes")
    with pytest.raises(ElfenlandError):
        raw_env("elfenland", players=3, rules="no-such-rules")
    with pytest.raises(ElfenlandError):
        raw_env("elfenland", players=9)


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves", "elfengold"])
def test_an_illegal_action_raises_and_changes_nothing(game: str) -> None:
    env = raw_env(game, players=3)
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.state_.serialize()
    obs_before = env.observe(agent)["observation"].copy()
    for bad in (illegal, -1, env.action_space(agent).n, None, 1.5):
        with pytest.raises(InvalidAction) as info:
            env.step(bad)  # type: ignore[arg-type]
        assert isinstance(info.value, IllegalActionError) and isinstance(info.value, ValueError)
        assert env.state_.serialize() == before
        assert env.agent_selection == agent
        assert np.array_equal(env.observe(agent)["observation"], obs_before)
    env.step(int(np.flatnonzero(mask)[0]))
    assert env.state_.serialize() != before


def test_only_the_agent_to_act_has_a_mask() -> None:
    env = raw_env("elfenland", players=4)
    env.reset(seed=2)
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


def test_ansi_render_names_the_player_to_act_and_the_winners() -> None:
    env = raw_env("king-of-the-elves", players=2, render_mode="ansi")
    env.reset(seed=4)
    assert env.render() == f"king-of-the-elves round 1 building: {env.agent_selection} to act"
    play_out(env, seed=4)
    assert "winners" in (env.render() or "")
    with pytest.raises(ElfenlandError):
        raw_env("elfenland", render_mode="human")


def test_terminate_illegal_wrapper_gives_the_illegal_move_loses_convention() -> None:
    from pettingzoo.utils import wrappers

    env = wrappers.OrderEnforcingWrapper(wrappers.TerminateIllegalWrapper(
        raw_env("elfenland", players=3), illegal_reward=-1))
    env.reset(seed=1)
    obs, *_ = env.last()
    offender = env.agent_selection
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1


def test_elfengold_observation_holds_coins_gold_values_and_the_auction() -> None:
    """What the issue asks of the Elfengold observation, read through the env."""
    from elfenland.envs.observation import observation_layout

    env = raw_env("elfengold", players=3)
    env.reset(seed=6)
    sl = observation_layout("elfengold", 3).slices()
    state = env.state_
    while state.phase.value != "auction":
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.step(state.parse_action("bid 3").id)
    for agent in env.possible_agents:
        seat = int(agent.split("_")[1])
        obs = env.observe(agent)["observation"]
        coins = [obs[sl[f"coins@+{r}"]][0] for r in range(3)]
        assert coins == [float(state.coins[(seat + r) % 3]) for r in range(3)]
        assert obs[sl["gold_values"]].tolist() == [float(g) for g in state.gold_values]
        assert obs[sl["auction_high_bid"]].tolist() == [3.0]
        assert obs[sl["auction_item"]][state.row[0]] == 1.0
