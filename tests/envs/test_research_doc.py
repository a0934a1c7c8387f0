"""Every code block of docs/research.md runs as written (the training example with fewer
games), so the page cannot drift from the adapters."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .conftest import need

need("numpy")
need("pettingzoo")
need("pyspiel")

DOC = Path(__file__).parents[2] / "docs" / "research.md"
FULL_SIZE = "TRAIN_GAMES, EVAL_GAMES, PLAYERS = 300, 100, 2"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def run(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "research_doc"}
    exec(compile(code, str(DOC), "exec"), namespace)
    return namespace


def test_the_page_has_the_seven_examples() -> None:
    found = blocks()
    assert len(found) == 7
    assert sum(FULL_SIZE in b for b in found) == 1


def test_random_agent_loops_play_whole_games() -> None:
    pettingzoo_loop, openspiel_loop, ismcts_game = blocks()[:3]
    ns = run(pettingzoo_loop)
    assert ns["env"].agents == [] and ns["env"].unwrapped.state_.is_terminal()
    assert ns["env"].unwrapped.state_.rules.name == "moon"
    for code in (openspiel_loop, ismcts_game):
        ns = run(code)
        assert ns["state"].is_terminal() and abs(sum(ns["state"].returns()) - 1) < 1e-9


def test_training_example_runs_and_evaluates() -> None:
    code = next(b for b in blocks() if FULL_SIZE in b)
    ns = run(code.replace(FULL_SIZE, "TRAIN_GAMES, EVAL_GAMES, PLAYERS = 40, 4, 2"))
    assert ns["X"].shape[0] == len(ns["y"]) > 40
    assert ns["w"].shape == (ns["X"].shape[1] + 1,)
    assert 0.0 <= ns["won"] <= 4.0


def test_threaded_batch_example_runs() -> None:
    code = next(b for b in blocks() if "threads=2" in b)
    games = run(code)["games"]
    assert games.threads == 2 and int(games.moves.sum()) == games.num_envs


def test_batched_example_runs() -> None:
    code = next(b for b in blocks() if "VectorGames" in b)
    ns = run(code)
    games = ns["games"]
    assert games.obs.shape == (256, games.layout.size) and ns["rows"].size == 256
    assert int(games.moves.max()) > 0 and games.state(0).rules.name == "moon"


def test_elfengold_example_reads_the_auction_and_hidden_coins() -> None:
    code = next(b for b in blocks() if "elfengold_env" in b)
    ns = run(code)
    state = ns["env"].unwrapped.state_
    assert state.is_terminal() and not state.rules.eg_public_gold
    assert ns["bids_seen"] > 10
    assert ns["high_bid"] >= 0 and ns["my_coins"] >= 0
