"""The ``learned`` level: the shipped trained policies (4-player Elfenland and King of the
Elves), played without torch.

For each game it loads its weights from the package, scores alike with numpy and in pure
Python (and with only the standard library importable), plays only legal actions in
whole games and in the tournament command, and beats random players clearly; in
Elfenland the ``planner_moves`` option hands the move phase to the greedy bot's
planner."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.learned import LearnedBot, Weights, load_policy, observation, shipped_weights
from elfenland.cli import main
from elfenland.core.errors import ElfenlandError
from elfenland.core.game import GameState

#: The games with shipped weights (4 players each), and their files.
GAMES = {"elfenland": "elfenland-4p.elfw", "king-of-the-elves": "king-of-the-elves-4p.elfw"}
each_game = pytest.mark.parametrize("game", list(GAMES))


def positions(count: int, seed: int = 3, game: str = "elfenland") -> list[GameState]:
    """Positions of 4-player games played at random (every phase, several rounds)."""
    rng = random.Random(seed)
    out: list[GameState] = []
    state = elfenland.new_game(game, players=4, seed=seed)
    while len(out) < count:
        if state.is_terminal():
            state = elfenland.new_game(game, players=4, seed=rng.randrange(10**6))
        out.append(state.clone())
        for _ in range(rng.randrange(1, 8)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(list(state.legal_actions())))
    return out


@each_game
def test_the_shipped_weights_fit_todays_observation_and_action_rows(game: str) -> None:
    pytest.importorskip("numpy")
    from elfenland.envs.actions import ACTION_TABLE_VERSION, action_table
    from elfenland.envs.observation import OBSERVATION_VERSION, observation_layout

    w = shipped_weights(game)
    assert (w.game, w.players) == (game, 4)
    assert w.obs_size == observation_layout(game, 4).size
    assert w.shapes["body.0.weight"][1] == w.obs_size
    assert w.header["observation_version"] == OBSERVATION_VERSION
    assert w.header["action_table_version"] == ACTION_TABLE_VERSION
    # Each column's values (from -1 to its largest) have their own embedding rows.
    rows = action_table(game).rows
    widths = [int(c) + 2 for c in rows.max(0)]
    assert w.offsets == [sum(widths[:i]) for i in range(len(widths))]
    assert w.shapes["embed.weight"][0] == sum(widths)
    # The header says where the weights come from (the training log's figures).
    assert w.header["trained"]["vs_random"] > 0.5
    assert w.header["trained"]["game"] == game
    size = (Path(elfenland.__file__).parent / "bots" / "weights" / GAMES[game]).stat()
    assert size.st_size < 400_000


@each_game
def test_the_file_round_trips_and_a_damaged_one_is_refused(game: str) -> None:
    w = shipped_weights(game)
    data = w.to_bytes()
    again = Weights.from_bytes(data)
    assert again.header == w.header and again.tensors == w.tensors
    for bad in (b"ELFX" + data[4:], data[:-4], data + b"\0\0\0\0", data[:4] + b"\2" + data[5:]):
        with pytest.raises(ElfenlandError):
            Weights.from_bytes(bad)


@each_game
def test_numpy_and_pure_python_give_the_same_scores_and_choices(game: str) -> None:
    np = pytest.importorskip("numpy")
    w = shipped_weights(game)
    fast, pure = load_policy(w, "numpy"), load_policy(w, "python")
    for state in positions(80, game=game):
        ids = state.legal_action_ids()
        obs = observation(state, state.current_player(), w.obs_size)
        a, b = np.array(fast.scores(obs, ids)), np.array(pure.scores(obs, ids))
        assert np.allclose(a, b, rtol=1e-4, atol=1e-4)
        if len(ids) > 1 and np.sort(a)[-2] < a.max() - 1e-3:
            assert a.argmax() == b.argmax()


@each_game
def test_the_pure_engine_encodes_what_the_compiled_one_does(
        game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy")  # the pure engine's observation is numpy's
    bot = LearnedBot(game)
    fast = elfenland.new_game(game, players=4, seed=11)
    monkeypatch.setenv("ELFENLAND_ENGINE", "pure")
    pure = elfenland.new_game(game, players=4, seed=11)
    assert not hasattr(pure, "_observe_into") and hasattr(fast, "_observe_into")
    for _ in range(120):
        if fast.is_terminal():
            break
        a, b = bot.choose(fast), bot.choose(pure)
        assert a.id == b.id
        fast.apply_action(a)
        pure.apply_action(b.id)


def play(bots: list[object], seed: int, game: str = "elfenland") -> GameState:
    """One game; every action a bot chooses must be legal in the state it was given."""
    state = elfenland.new_game(game, players=len(bots), seed=seed)
    while not state.is_terminal():
        legal = set(state.legal_action_ids())
        action = bots[state.current_player()].choose(state)  # type: ignore[attr-defined]
        assert action.id in legal
        state.apply_action(action)
    return state


@each_game
@pytest.mark.parametrize("backend", ["numpy", "python"])
def test_whole_games_against_greedy_and_random_are_legal(game: str, backend: str) -> None:
    if backend == "numpy":
        pytest.importorskip("numpy")
    for seed in range(2):
        bots: list[object] = [LearnedBot(game, backend=backend),
                              make_bot("greedy", game, seed),
                              make_bot("random", game, seed),
                              LearnedBot(game, backend=backend)]
        state = play(bots[seed:] + bots[:seed], seed, game)
        assert state.is_terminal()


@each_game
def test_it_beats_random_players_clearly(game: str) -> None:
    """Learned in every seat in turn against three random players, 40 seeded games: a
    random player's share is 25%."""
    bot, wins = LearnedBot(game), 0.0
    for k in range(40):
        seat = k % 4
        bots: list[object] = [make_bot("random", game, 100 + k) for _ in range(4)]
        bots[seat] = bot
        wins += play(bots, 500 + k, game).returns()[seat]
    assert wins / 40 >= 0.6


@each_game
def test_it_plays_in_the_tournament_command(game: str, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    assert main(["tournament", "--game", game, "--bots", "learned,greedy,random,random",
                 "--games", "4", "--seed", "3", "--quiet", "--out", str(out)]) == 0
    summary = json.loads(out.read_text())["summary"]
    learned = next(s for s in summary if s["bot"] == "learned")
    assert learned["games"] == 4 and len(learned["scores"]) == 4
    assert sum(s["wins"] for s in summary) == pytest.approx(4, abs=0.01)


def test_games_and_player_counts_without_weights_are_refused() -> None:
    with pytest.raises(ElfenlandError, match="no learned bot for elfengold"):
        make_bot("learned", "elfengold")
    with pytest.raises(ElfenlandError, match="no learned weights for elfengold"):
        shipped_weights("elfengold")
    for game in GAMES:
        two = elfenland.new_game(game, players=2, seed=1)
        with pytest.raises(ElfenlandError, match="4 players"):
            make_bot("learned", game).choose(two)
    koe = elfenland.new_game("king-of-the-elves", players=4, seed=1)
    with pytest.raises(ElfenlandError,
                       match="plays elfenland with 4 players, not king-of-the-elves"):
        LearnedBot("elfenland").choose(koe)
    with pytest.raises(ElfenlandError, match="Elfenland option"):
        LearnedBot("king-of-the-elves", planner_moves=True)
    with pytest.raises(ElfenlandError, match="backend"):
        load_policy(shipped_weights("elfenland"), "cuda")


@each_game
def test_it_plays_with_the_standard_library_alone(game: str) -> None:
    """numpy made unimportable: the pure forward pass and the compiled engine's encoder
    play a whole game, and numpy never gets imported."""
    script = f"""
import sys
sys.modules["numpy"] = None
import elfenland
from elfenland.bots import make_bot
game = {game!r}
bot = make_bot("learned", game)
assert type(bot.policy).__name__ == "PurePolicy"
state = elfenland.new_game(game, players=4, seed=5)
rnd = [make_bot("random", game, s) for s in range(4)]
moves = 0
while not state.is_terminal():
    p = state.current_player()
    legal = set(state.legal_action_ids())
    a = (bot if p == 1 else rnd[p]).choose(state)
    assert a.id in legal
    state.apply_action(a)
    moves += p == 1
assert sys.modules["numpy"] is None
print(moves, state.scores()[1])
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    moves, _score = map(int, done.stdout.split())
    assert moves > 20


def test_planner_moves_hand_the_move_phase_to_the_greedy_planner() -> None:
    """With ``planner_moves`` the bot makes the greedy bot's journeys and discards in the
    move phase and the policy's choices everywhere else."""
    from elfenland.bots.elfenland_greedy import ElfenlandGreedyBot
    from elfenland.bots.learned import planner_phase

    plain = LearnedBot("elfenland", planner_moves=False)
    hybrid, greedy = LearnedBot("elfenland", planner_moves=True), ElfenlandGreedyBot(1)
    moving = other = differ = 0
    for state in positions(150, seed=8):
        got = hybrid.choose(state)
        if planner_phase(state):
            moving += 1
            assert got == greedy.choose(state)
            differ += got != plain.choose(state)
        else:
            other += 1
            assert got == plain.choose(state)
    assert moving > 20 and other > 20
    assert differ > 0  # the planner travels otherwise than the policy alone would


def test_the_learned_planner_level_plays_in_the_tournament_command(tmp_path: Path) -> None:
    """``learned-planner``: the policy with the planner's journeys, as a level of its own
    (4-player Elfenland only; ``learned`` stays the policy alone)."""
    from elfenland.bots.levels import plays

    bot = make_bot("learned-planner", "elfenland", 3)
    assert isinstance(bot, LearnedBot) and bot.mover is not None
    assert make_bot("learned", "elfenland").mover is None  # type: ignore[attr-defined]
    assert plays("learned-planner", "elfenland", 4)
    assert not plays("learned-planner", "elfenland", 3)
    assert not plays("learned-planner", "king-of-the-elves", 4)
    out = tmp_path / "t.json"
    assert main(["tournament", "--bots", "learned-planner,greedy,learned,random",
                 "--games", "4", "--seed", "5", "--quiet", "--out", str(out)]) == 0
    summary = json.loads(out.read_text())["summary"]
    assert {s["bot"] for s in summary} == {"learned-planner", "greedy", "learned", "random"}
    assert all(s["games"] == 4 for s in summary)
