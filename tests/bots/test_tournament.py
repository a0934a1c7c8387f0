"""The tournament command: seeded, seat-rotating, parallel, and its outputs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from elfenland.bots.tournament import (
    Config,
    ProgressBar,
    play_game,
    run_games,
    summarise,
    wilson,
)
from elfenland.cli import main


def config(games: int = 3, bots: tuple[str, ...] = ("greedy", "random", "random")) -> Config:
    return Config("elfenland", len(bots), bots, games, 5, None, False, None, None)


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
