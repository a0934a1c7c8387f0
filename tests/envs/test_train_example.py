"""The self-play trainer in examples/ runs on the batched environment: a few updates
train, evaluate against random players and save weights that load back.

PyTorch is the optional ``[train]`` extra, not one CI installs (a CPU wheel is about
200 MB); without it this module is skipped, and the example with it."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

EXAMPLE = Path(__file__).parents[2] / "examples" / "train_selfplay.py"


@pytest.mark.parametrize("game", ["elfenland", "king-of-the-elves"])
def test_a_few_updates_train_evaluate_and_save(game: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "policy.pt"
    monkeypatch.setattr(sys, "argv", [
        str(EXAMPLE), "--game", game, "--players", "2", "--envs", "8", "--steps", "40",
        "--updates", "3", "--minutes", "2", "--eval-every", "3", "--eval-games", "4",
        "--max-game-length", "120", "--device", "cpu",
        "--save", str(out)])
    module = runpy.run_path(str(EXAMPLE), run_name="__main__")
    lines = [ln.split() for ln in capsys.readouterr().out.splitlines()[1:]]
    assert len(lines) >= 1 and all(0.0 <= float(ln[-1]) <= 1.0 for ln in lines)
    saved = torch.load(out, weights_only=False)
    assert saved["game"] == game and saved["players"] == 2
    from elfenland.envs.actions import action_table

    policy = module["Policy"](saved["obs_size"], action_table(game).rows)
    policy.load_state_dict(saved["state_dict"])
    assert policy.actions().shape[0] == action_table(game).rows.shape[0]
