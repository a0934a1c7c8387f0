"""The batched environment's sampler of random legal actions (``sample_legal_actions``):
it only ever gives legal ids (over 10,000 steps of each game, 2 to 6 players, with
resets), it is deterministic for a seed (and a game's draws depend on its seed alone,
not on N or its slot), every legal id is equally likely (a chi-square test at a fixed
position), the pure engine's Python loop draws exactly what the C loop draws, and bad
arguments raise and change nothing."""

from __future__ import annotations

import math
from typing import Any

import pytest

from .conftest import need

np = need("numpy")
need("gymnasium")

from elfenland.core.errors import IllegalActionError  # noqa: E402
from elfenland.envs.vector import VectorEnv, VectorGames, _Sampler  # noqa: E402

GAMES = ["elfenland", "king-of-the-elves"]
#: (players, games in the batch, game steps): 5 × 2,400 = 12,000 steps of each game.
RUNS = [(2, 4, 2_400), (3, 4, 2_400), (4, 2, 2_400), (5, 2, 2_400), (6, 2, 2_400)]


def batch(game: str, n: int, players: int, seed: int, **kw: Any) -> VectorGames:
    # King of the Elves: a cap of 300 actions makes truncations (resets) happen in a run
    cap = 300 if game == "king-of-the-elves" else None
    games = VectorGames(game, n, players, max_game_length=cap, **kw)
    games.reset(seed)
    return games


def trajectory(games: VectorGames, steps: int) -> list[list[int]]:
    out = []
    for _ in range(steps):
        out.append(games.sample_legal_actions().tolist())
        games.step(games.actions)
    return out


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("players", "n", "steps"), RUNS)
def test_only_legal_ids(game: str, players: int, n: int, steps: int) -> None:
    games = batch(game, n, players, seed=100 * players)
    rows = np.arange(n)
    own = np.zeros(n, np.int64)
    ends = 0
    for k in range(steps // n):
        # alternately into the batch's own array and into one of the caller's
        actions = games.sample_legal_actions() if k % 2 else games.sample_legal_actions(out=own)
        assert actions is (games.actions if k % 2 else own)
        assert ((actions >= 0) & (actions < games.num_actions)).all()
        assert (games.mask[rows, actions] == 1).all()
        games.step(actions)
        ends += int(games.terminated.sum() + games.truncated.sum())
    assert ends >= 1  # the sampler was also used right after an automatic reset


@pytest.mark.parametrize("game", GAMES)
def test_deterministic_for_a_seed(game: str) -> None:
    first = trajectory(batch(game, 4, 3, seed=11), 600)
    again = batch(game, 4, 3, seed=11)
    assert trajectory(again, 600) == first
    again.reset(11)  # a reset starts every game's draws over
    assert trajectory(again, 600) == first
    assert trajectory(batch(game, 4, 3, seed=12), 600) != first


@pytest.mark.parametrize("game", GAMES)
def test_a_games_draws_depend_on_its_seed_alone(game: str) -> None:
    """Slot 2 of a batch of 3 reset with seed 9 plays seed 11, as slot 0 of a batch of
    one reset with seed 11 does: the same random game, whatever N and the slot."""
    wide, single = batch(game, 3, 4, seed=9), batch(game, 1, 4, seed=11)
    assert wide.seeds[2] == single.seeds[0] == 11
    steps = 0
    while True:
        a, b = wide.sample_legal_actions(), single.sample_legal_actions()
        assert a[2] == b[0]
        wide.step(a)
        single.step(b)
        steps += 1
        if single.terminated[0] or single.truncated[0]:
            break  # both start their next games, of different seeds (14 and 12)
        assert np.array_equal(wide.obs[2], single.obs[0])
    assert steps > 20
    assert wide.terminated[2] == single.terminated[0] and wide.truncated[2] == single.truncated[0]
    assert np.array_equal(wide.rewards[2], single.rewards[0])


def chi_square_bound(df: int, z: float) -> float:
    """The chi-square quantile z standard deviations out (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize("game", GAMES)
def test_uniform_over_the_legal_ids(game: str) -> None:
    """At a fixed position with 12 to 60 legal ids, 2,000 draws per id: every id is
    drawn, and the chi-square statistic is below its 1-in-a-million quantile (z = 4.75),
    so only a biased sampler fails; a sampler favouring one id by 30% of its share fails
    (the test's power, checked on the counts)."""
    games = batch(game, 1, 4, seed=5)
    while not 12 <= games.num_legal[0] <= 60:
        games.step(games.sample_legal_actions())
    k = int(games.num_legal[0])
    legal = games.legal_ids[0, :k].tolist()
    draws = 2_000 * k
    counts = dict.fromkeys(legal, 0)
    for _ in range(draws):
        counts[int(games.sample_legal_actions()[0])] += 1
    assert set(counts) == set(legal) and min(counts.values()) > 0
    expected = draws / k
    stat = sum((c - expected) ** 2 / expected for c in counts.values())
    bound = chi_square_bound(k - 1, 4.75)
    assert stat < bound, (k, stat, bound)
    # the test has the power to see a bias: one id 30% likelier than its share
    biased = dict(counts)
    biased[legal[0]] += int(0.3 * expected)
    stat_biased = sum((c - expected) ** 2 / expected for c in biased.values())
    assert stat_biased > bound


def test_the_bounded_draw_is_exact_for_small_ranges() -> None:
    """Lemire's rejection: over bound 3 the 2^64 outputs split 3 ways exactly once the
    few low products are rejected; drawn 30,000 times, each value stays near 10,000."""
    sampler = _Sampler(1)
    counts = [0, 0, 0]
    for _ in range(30_000):
        counts[sampler.below(3)] += 1
    assert all(abs(c - 10_000) < 4.75 * math.sqrt(30_000 * (1 / 3) * (2 / 3)) for c in counts)
    assert {sampler.below(1) for _ in range(50)} == {0}


@pytest.mark.parametrize("game", GAMES)
def test_the_python_loop_draws_what_the_c_loop_draws(game: str) -> None:
    compiled = batch(game, 3, 4, seed=21)
    if not compiled.compiled:
        pytest.skip("no compiled engine to compare with")
    pure = batch(game, 3, 4, seed=21, compiled=False)
    assert trajectory(pure, 400) == trajectory(compiled, 400)


@pytest.mark.parametrize("compiled", [None, False])
def test_bad_arguments_raise_and_change_nothing(compiled: bool | None) -> None:
    with pytest.raises(IllegalActionError):
        VectorGames("elfenland", 2, 2, compiled=compiled).sample_legal_actions()  # no reset
    games = batch("elfenland", 3, 3, seed=4, compiled=compiled)
    before = games.actions.copy()
    for out in (np.zeros(3, np.int32), np.zeros(4, np.int64), np.zeros((3, 1), np.int64),
                np.zeros(6, np.int64)[::2], [0, 0, 0], games.legal_ids[:, 0].astype(np.int64)
                .view()):
        if isinstance(out, np.ndarray) and out.dtype == np.int64 and out.shape == (3,) \
                and out.flags.c_contiguous:
            out.flags.writeable = False
        with pytest.raises(ValueError):
            games.sample_legal_actions(out)
    assert np.array_equal(games.actions, before)
    # an illegal id written into the batch's own array is refused like any other
    games.actions[:] = games.sample_legal_actions()
    games.actions[1] = next(a for a in range(games.num_actions) if not games.mask[1, a])
    moves = games.moves.copy()
    with pytest.raises(IllegalActionError):
        games.step(games.actions)
    assert np.array_equal(games.moves, moves)


def test_the_gymnasium_env_samples_legal_actions() -> None:
    env = VectorEnv("elfenland", num_envs=4, players=3)
    obs, _ = env.reset(seed=2)
    for _ in range(300):
        actions = env.sample_legal_actions()
        assert (obs["action_mask"][np.arange(4), actions] == 1).all()
        obs, *_ = env.step(actions)
