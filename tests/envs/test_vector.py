"""The batched environment against the single-game engine: the same seeds and the same
actions give bit-identical observations, masks, legal ids, rewards, terminations and
resets, over more than 100,000 steps of each game, 2 to 6 players; bad actions raise
and change nothing; the Gymnasium wrapper speaks the VectorEnv protocol."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import need

np = need("numpy")
need("gymnasium")

import elfenland  # noqa: E402
from elfenland.core.errors import IllegalActionError  # noqa: E402
from elfenland.envs.observation import action_mask, encoder_for  # noqa: E402
from elfenland.envs.vector import VectorEnv, VectorGames, legal_width  # noqa: E402

#: (players, games in the batch, steps): 5 × 20,000 = 100,000 steps per game.
RUNS = [(2, 8, 20_000), (3, 8, 20_000), (4, 16, 20_000), (5, 16, 20_000), (6, 16, 20_000)]


class Reference:
    """One slot of the batch, played on single-game engines as a researcher would."""

    def __init__(self, game: str, players: int, base: int, slot: int, n: int,
                 cap: int, options: dict[str, Any]) -> None:
        self.game, self.players, self.options = game, players, options
        self.base, self.slot, self.n, self.cap = base, slot, n, cap
        self.episode = 0
        self.start()

    def start(self) -> None:
        seed = self.base + self.slot + self.n * self.episode
        self.state = elfenland.new_game(game=self.game, players=self.players, seed=seed,
                                        **self.options)
        self.seed, self.moves = seed, 0
        self.encoder = encoder_for(self.state)

    def step(self, action: int) -> tuple[list[float], bool, bool]:
        self.state.apply_action(action)
        self.moves += 1
        rewards, term, trunc = [0.0] * self.players, False, False
        if self.state.is_terminal():
            rewards, term = list(self.state.returns()), True
        elif self.cap and self.moves >= self.cap:
            trunc = True
        if term or trunc:
            self.episode += 1
            self.start()
        return rewards, term, trunc

    def check(self, v: VectorGames, i: int) -> None:
        s = self.state
        p = s.current_player()
        assert v.player[i] == p and v.seeds[i] == self.seed and v.moves[i] == self.moves
        assert np.array_equal(v.obs[i], self.encoder.encode(s, p))
        assert np.array_equal(v.mask[i], action_mask(s))
        ids = sorted(s.legal_action_ids())
        k = len(ids)
        assert v.num_legal[i] == k and list(v.legal_ids[i, :k]) == ids
        assert (v.legal_ids[i, k:] == -1).all()


def play(game: str, players: int, n: int, steps: int, compiled: bool | None,
         cap: int | None = None, **options: Any) -> int:
    v = VectorGames(game, n, players, max_game_length=cap, compiled=compiled, **options)
    base = 1000 * players
    v.reset(base)
    refs = [Reference(game, players, base, i, n, v.max_game_length, options) for i in range(n)]
    for i, r in enumerate(refs):
        r.check(v, i)
    rng = np.random.default_rng(players)
    ends = 0
    for _ in range(steps // n):
        pick = (rng.random(n) * v.num_legal).astype(np.int64)
        actions = v.legal_ids[np.arange(n), pick].astype(np.int64)
        actors = v.player.copy()
        v.step(actions)
        assert np.array_equal(v.actor, actors)
        for i, r in enumerate(refs):
            rewards, term, trunc = r.step(int(actions[i]))
            assert list(v.rewards[i]) == rewards
            assert bool(v.terminated[i]) == term and bool(v.truncated[i]) == trunc
            ends += term or trunc
            r.check(v, i)
    return ends


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves"])
@pytest.mark.parametrize(("players", "n", "steps"), RUNS)
def test_bit_identical_to_the_single_game_engine(game: str, players: int, n: int,
                                                 steps: int) -> None:
    # King of the Elves games run to thousands of actions: a cap of 400 makes resets
    # (truncations) happen within the run, besides the games that end by the rules.
    ends = play(game, players, n, steps, compiled=None,
                cap=400 if game == "king-of-the-elves" else None)
    assert ends >= n  # every slot was reset at least once on average


def test_the_loop_is_compiled_on_the_compiled_engine() -> None:
    v = VectorGames("elfenland", 2, 2)
    assert v.compiled == hasattr(elfenland.new_game(players=2, seed=0), "_apply_id")


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves"])
def test_the_python_loop_is_the_same(game: str) -> None:
    """The fallback for the pure engine (or no C compiler) behaves as the C loop."""
    assert play(game, 3, 4, 1_200, compiled=False, cap=150) > 0


def test_the_c_entry_is_the_compiled_engines_only() -> None:
    """The C loop reaches an engine through its module's ``_c_api`` capsule; a pure
    state has none (and then the Python loop runs)."""
    from elfenland.envs.vector import engine_c_api
    from elfenland.games.elfenland.state import ElfenlandState

    for game in ("elfenland", "king-of-the-elves"):
        state = elfenland.new_game(game=game, players=2, seed=0)
        assert (engine_c_api(state) is not None) == hasattr(state, "_apply_id")
    assert engine_c_api(ElfenlandState(players=2, seed=0)) is None


def test_rule_options_reach_every_game() -> None:
    v = VectorGames("elfenland", 3, 3, rules="moon", destination=True)
    v.reset(7)
    assert all(v.state(i).rules.name == "moon" for i in range(3))  # type: ignore[attr-defined]
    assert play("elfenland", 3, 4, 2_000, compiled=None, rules="moon", destination=True) > 0


@pytest.mark.parametrize("compiled", [None, False])
def test_an_illegal_action_raises_and_changes_nothing(compiled: bool | None) -> None:
    v = VectorGames("elfenland", 4, 3, compiled=compiled)
    v.reset(1)
    good = v.legal_ids[:, 0].astype(np.int64)
    snapshot = [a.copy() for a in (v.obs, v.mask, v.legal_ids, v.player, v.moves)]
    history = [v.state(i).history_length() for i in range(4)]
    bad = good.copy()
    bad[2] = next(a for a in range(v.num_actions) if not v.mask[2, a])
    # an int64 array of the right shape goes straight to the C loop; any other (here a
    # column of the same 4 ids, an int64 buffer of 4 items too) is converted and refused
    for actions in (bad, np.full(4, -1), np.full(4, v.num_actions), good[:3], [[1, 2]],
                    good.reshape(4, 1), bad.astype(np.int32), list(bad)):
        with pytest.raises(IllegalActionError):
            v.step(actions)
    for before, now in zip(snapshot, (v.obs, v.mask, v.legal_ids, v.player, v.moves),
                           strict=True):
        assert np.array_equal(before, now)
    assert [v.state(i).history_length() for i in range(4)] == history
    v.step(good)
    assert (v.moves == 1).all()
    with pytest.raises(IllegalActionError):
        VectorGames("elfenland", 2, 2, compiled=compiled).step([0, 0])  # not reset
    with pytest.raises(IllegalActionError):
        v.step(["a", "b", "c", "d"])  # not ids at all
    with pytest.raises(ValueError):
        VectorGames("elfenland", 0, 2)


def test_legal_width_bounds_the_legal_actions() -> None:
    assert legal_width("elfenland") == 2044 and legal_width("king-of-the-elves") == 374


def test_gymnasium_vector_env() -> None:
    env = VectorEnv("king-of-the-elves", num_envs=6, players=2, max_game_length=60)
    obs, info = env.reset(seed=3)
    assert obs["observation"].shape == (6, env.single_observation_space["observation"].shape[0])
    assert obs["action_mask"].shape == (6, env.single_action_space.n)
    assert env.observation_space.contains({k: v.copy() for k, v in obs.items()})
    assert list(info["seeds"]) == [3, 4, 5, 6, 7, 8]
    rng = np.random.default_rng(0)
    total = np.zeros(6)
    ended = 0
    for _ in range(400):
        pick = (rng.random(6) * info["num_legal"]).astype(np.int64)
        actions = info["legal_ids"][np.arange(6), pick]
        assert env.action_space.contains(actions.astype(np.int64))
        actors = info["player"].copy()
        obs, reward, terminated, truncated, info = env.step(actions)
        assert np.array_equal(info["actor"], actors)
        assert np.array_equal(reward, info["rewards"][np.arange(6), actors])
        total += reward
        ended += int(terminated.sum() + truncated.sum())
    assert ended > 6
    assert env.metadata["autoreset_mode"].name == "SAME_STEP"


@pytest.mark.parametrize("compiled", [None, False])
def test_the_arrays_are_read_only_to_the_user(compiled: bool | None) -> None:
    v = VectorGames("king-of-the-elves", 3, 2, compiled=compiled)
    v.reset(0)
    for array in (v.obs, v.mask, v.legal_ids, v.rewards, v.terminated, v.player):
        with pytest.raises(ValueError):
            array[0] = 1
    before = v.obs.copy()
    v.step(v.legal_ids[:, 0])
    assert not np.array_equal(before, v.obs) or (v.moves == 1).all()


@pytest.mark.parametrize("compiled", [None, False])
def test_a_dropped_batch_is_freed(compiled: bool | None) -> None:
    """Nothing the C batch holds refers back to its ``VectorGames`` (the C type is not
    tracked by the garbage collector, so such a cycle would never be freed)."""
    import gc
    import weakref

    v = VectorGames("elfenland", 2, 2, compiled=compiled)
    v.reset(0)
    v.step(v.sample_legal_actions())
    v.step([int(a) for a in v.sample_legal_actions()])  # through the conversion too
    ref = weakref.ref(v)
    del v
    gc.collect()
    assert ref() is None
