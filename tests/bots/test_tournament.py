"""The tournament command: seeded, seat-rotating, parallel, and its outputs."""

from __future__ import annotations

import argparse
import csv
import json
import random
from pathlib import Path

import pytest

import elfenland
from elfenland.bots.tournament import (
    Config,
    ProgressBar,
    add_arguments,
    config_from_args,
    play_game,
    replacing,
    run_games,
    summarise,
    wilson,
)
from elfenland.cli import main


def config(games: int = 3, bots: tuple[str, ...] = ("greedy", "random", "random")) -> Config:
    return Config("elfenland", len(bots), bots, games, 5)


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(10, 10)[0] == pytest.approx(0.7225, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


def test_seats_rotate_and_games_are_reproducible() -> None:
    c = config()
    first = play_game(c, 0)
    second = play_game(c, 1)
    assert first["seats"] == ["greedy", "random", "random"]
    assert second["seats"] == ["random", "greedy", "random"]
    again = play_game(c, 0)
    assert again["scores"] == first["scores"] and again["winners"] == first["winners"]


def test_parallel_equals_serial() -> None:
    c = config(games=2, bots=("random", "random"))
    assert ([r["scores"] for r in run_games(c, 1)]
            == [r["scores"] for r in run_games(c, 2)])


def test_summary_counts_shared_wins() -> None:
    c = config(games=2, bots=("random", "random"))
    results = [
        {"entrant_of_seat": [0, 1], "winners": [0, 1], "scores": [3, 3],
         "think_seconds": [0.0, 0.0], "decisions": [1, 1]},
        {"entrant_of_seat": [1, 0], "winners": [0], "scores": [5, 2],
         "think_seconds": [0.0, 0.0], "decisions": [1, 1]},
    ]
    rows = summarise(c, results)
    assert rows[0]["wins"] == 0.5 and rows[1]["wins"] == 1.5
    assert rows[1]["scores"] == [3, 5]


def test_cli_writes_json_csv_plot_and_table(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out, table, png = tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.png"
    rc = main(["tournament", "--game", "elfenland", "--players", "2", "--bots",
               "greedy,random", "--games", "2", "--seed", "3", "--workers", "1",
               "--out", str(out), "--csv", str(table), "--plot", str(png)])
    assert rc == 0
    captured = capsys.readouterr()
    assert "greedy" in captured.out and "95% CI" in captured.out
    assert "2/2" in captured.err
    doc = json.loads(out.read_text())
    assert len(doc["games"]) == 2 and doc["summary"][0]["bot"] == "greedy"
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 4 and {r["bot"] for r in rows} == {"greedy", "random"}
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("argv", [
    ["--bots", "greedy,nobody", "--players", "2"],
    ["--bots", "random,random,random", "--players", "2"],
    ["--players", "9"],
    ["--game", "chess"],
])
def test_cli_rejects_bad_options(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--games", "1", *argv]) == 2
    assert "elfenland tournament:" in capsys.readouterr().err


def test_progress_bar_draws_in_place() -> None:
    import io

    stream = io.StringIO()
    bar = ProgressBar(4, stream, width=8)
    bar.update()
    bar.update()
    bar.close()
    text = stream.getvalue()
    assert "\r[####....] 2/4" in text and text.endswith("\n")


def test_cli_plays_under_the_games_declared_options(tmp_path: Path) -> None:
    """``--option NAME=VALUE`` reaches the games through the option specification: two
    rounds of Elfengold instead of six, King of the Elves with its magic spell."""
    out = tmp_path / "r.json"
    assert main(["tournament", "--game", "elfengold", "--players", "2", "--bots", "greedy",
                 "--games", "2", "--option", "rounds=2", "--out", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text())
    assert doc["config"]["options"] == {"rounds": 2}
    config = config_from_args(parse(["--game", "elfengold", "--option", "rounds=2"]))
    state = play_to_end(config)
    assert state.is_terminal() and state.view(None)["round"] == 2
    koe = config_from_args(parse(["--game", "king-of-the-elves", "--players", "3",
                                  "--bots", "random", "--option", "magic_spell=yes"]))
    assert koe.options() == {"magic_spell": True}
    assert play_to_end(koe).rules.magic_spell is True


@pytest.mark.parametrize(("argv", "said"), [
    (["--option", "rounds=x"], "option rounds must be an integer"),
    (["--option", "rounds=0"], "option rounds must be an integer from 1"),
    (["--option", "bogus"], "an option is NAME=VALUE"),
    (["--option", "bogus=1"], "unknown option 'bogus'"),
    (["--game", "king-of-the-elves", "--rules", "moon"], "no rule set 'moon'"),
    (["--game", "elfengold", "--destination"], "--destination is an Elfenland option"),
])
@pytest.mark.parametrize("command", [["tournament", "--games", "1"], ["play"]])
def test_both_commands_refuse_options_the_game_does_not_declare(
        command: list[str], argv: list[str], said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``play`` and ``tournament`` read their options through one helper: the same
    refusals in the same words, before any game is played."""
    assert main([*command, "--players", "2", "--bots", "random", *argv]) == 2
    out = capsys.readouterr()
    assert said in out.err + out.out
    assert "seat 0" not in out.out  # no game was started


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(["--players", "2", "--bots", "random", *argv])


def play_to_end(config: Config) -> elfenland.GameState:
    state = elfenland.new_game(config.game, players=config.players, seed=config.seed,
                               **config.options())
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("argv", "said"), [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--workers", "-3"], "--workers must be at least 1"),
    (["--bots", "search", "--search-seconds", "-1"], "--search-seconds must be more than 0"),
    (["--bots", "search", "--search-seconds", "0"], "--search-seconds must be more than 0"),
    (["--bots", "search", "--search-iterations", "0"], "--search-iterations must be at least 1"),
])
def test_the_tournament_refuses_budgets_and_workers_that_mean_nothing(
        argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--games", "1", "--players", "2", "--bots", "random", "--quiet",
                 *argv]) == 2
    out = capsys.readouterr()
    assert said in out.err
    assert "win rate" not in out.out


@pytest.mark.parametrize("flag", ["--out", "--csv", "--plot"])
def test_an_output_that_cannot_be_written_is_refused_before_any_game(
        flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, a missing folder ended a finished tournament in a traceback and lost
    its results; now nothing is played."""
    missing = tmp_path / "no-such-folder" / "r.out"
    assert main(["tournament", "--games", "1", "--players", "2", "--bots", "random",
                 "--quiet", flag, str(missing)]) == 2
    out = capsys.readouterr()
    assert "no folder" in out.err and "win rate" not in out.out
    assert main(["tournament", "--games", "1", "--players", "2", "--bots", "random",
                 "--quiet", flag, str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_a_failed_write_leaves_the_earlier_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("earlier results")
    with pytest.raises(RuntimeError), replacing(str(path)) as f:
        f.write("half of the new")
        raise RuntimeError("disk full")
    assert path.read_text() == "earlier results"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    with replacing(str(path)) as f:
        f.write("new results")
    assert path.read_text() == "new results"


@pytest.mark.parametrize("command", [["tournament", "--games", "1", "--quiet"], ["play"]])
@pytest.mark.parametrize(("argv", "said"), [
    (["--players", "2", "--bots", "learned"],
     "the learned bot plays Elfenland with 4 players, not 2"),
    (["--players", "3", "--bots", "random,learned-planner,random"],
     "the learned-planner bot plays Elfenland with 4 players, not 3"),
    (["--game", "elfengold", "--players", "2", "--bots", "quick"],
     "there is no quick bot for elfengold"),
])
def test_a_bot_that_cannot_play_the_game_is_refused_before_it(
        command: list[str], argv: list[str], said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Before, a 2-player game with the learned bot (weights for 4 players) ended in a
    traceback at its first move."""
    assert main([*command, *argv]) == 2
    out = capsys.readouterr()
    assert said in out.err + out.out
    assert "win rate" not in out.out and "Final scores" not in out.out
