"""The self-play trainer in examples/ runs on the batched environment: a few updates
train, evaluate against random players and save weights that load back.

PyTorch is the optional ``[train]`` extra, not one CI installs (a CPU wheel is about
200 MB); without it this module is skipped, and the example with it."""

from __future__ import annotations

import json
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
    assert len(lines) >= 1 and all(0.0 <= float(ln[-2]) <= 1.0 for ln in lines)  # vs random
    saved = torch.load(out, weights_only=False)
    assert saved["game"] == game and saved["players"] == 2
    from elfenland.envs.actions import action_table

    policy = module["Policy"](saved["obs_size"], action_table(game).rows)
    policy.load_state_dict(saved["state_dict"])
    assert policy.actions().shape[0] == action_table(game).rows.shape[0]


def test_the_exported_weights_score_as_the_torch_policy(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A trained policy exported for the ``learned`` bot: its torch-free forward passes
    (numpy and pure Python) give torch's scores, on positions of random games."""
    out, log = tmp_path / "policy.pt", tmp_path / "log.jsonl"
    monkeypatch.setattr(sys, "argv", [
        str(EXAMPLE), "--game", "elfenland", "--players", "4", "--envs", "8", "--steps", "300",
        "--updates", "2", "--eval-every", "2", "--eval-games", "4", "--eval-greedy", "4",
        "--shaping", "0.3", "--device", "cpu", "--save", str(out), "--log", str(log)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    entry = json.loads(log.read_text().splitlines()[-1])
    assert entry["update"] == 2 and 0.0 <= entry["vs_greedy"] <= 1.0
    export = runpy.run_path(str(EXAMPLE.with_name("export_learned.py")))
    saved = torch.load(out, weights_only=False)
    weights = export["to_weights"](saved, {})
    from elfenland.bots.learned import Weights

    again = Weights.from_bytes(weights.to_bytes())
    worst, differ = export["check"](export["torch_policy"](saved), again, positions=40)
    assert worst < 1e-4 and differ == 0
    # A policy whose weights differ from the file's does not pass the check.
    saved["state_dict"]["embed.weight"][:, 0] += 1.0
    worst, differ = export["check"](export["torch_policy"](saved), again, positions=40)
    assert worst > 1e-2


def test_dagger_rounds_put_the_policy_in_a_seat_among_greedy_bots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--imitate`` clones greedy play; each ``--dagger`` round then plays as many games
    with the policy itself in one seat of each game (the greedy bot's choice still the
    label everywhere): the log counts the positions learned from and those the policy
    reached, about a quarter of the second round's."""
    log = tmp_path / "log.jsonl"
    monkeypatch.setattr(sys, "argv", [
        str(EXAMPLE), "--game", "elfenland", "--players", "4", "--envs", "4", "--steps", "10",
        "--imitate", "4", "--dagger", "1", "--imitate-epochs", "1", "--updates", "1",
        "--eval-every", "1", "--eval-games", "4", "--device", "cpu", "--log", str(log)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    first = json.loads(log.read_text().splitlines()[0])
    assert first["update"] == 0 and first["dagger_rounds"] == 1
    total, own = first["imitation_positions"], first["dagger_positions"]
    assert total > 4 * 100 and 0.03 < own / total < 0.3
    assert (tmp_path / "log.jsonl.0.pt").exists()


def test_planner_moves_clone_only_the_decisions_the_policy_makes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--planner-moves`` (Elfenland): the same greedy games give the cloning data
    without their move-phase positions (the planner makes those), the run stops after
    the cloning's evaluation, and the flag reaches the exported weights, so that the
    ``learned`` bot plays them with the planner's journeys."""
    counts = {}
    for planner in (False, True):
        log = tmp_path / f"log{planner}.jsonl"
        monkeypatch.setattr(sys, "argv", [
            str(EXAMPLE), "--game", "elfenland", "--players", "4", "--envs", "4",
            "--steps", "10", "--imitate", "4", "--imitate-epochs", "1", "--updates", "2",
            "--eval-every", "1", "--eval-games", "4", "--eval-greedy", "4", "--device", "cpu",
            "--log", str(log), *(["--planner-moves"] if planner else [])])
        runpy.run_path(str(EXAMPLE), run_name="__main__")
        entries = [json.loads(line) for line in log.read_text().splitlines()]
        assert entries[0]["planner_moves"] is planner
        counts[planner] = entries[0]["imitation_positions"]
        if planner:
            assert [e["update"] for e in entries] == [0]  # no self-play after cloning
            saved = torch.load(f"{log}.0.pt", weights_only=False)
    assert 0 < counts[True] < counts[False] * 0.8
    export = runpy.run_path(str(EXAMPLE.with_name("export_learned.py")))
    weights = export["to_weights"](saved, {})
    assert weights.header["planner_moves"] is True
    from elfenland.bots.learned import LearnedBot, Weights

    assert LearnedBot("elfenland", weights=Weights.from_bytes(weights.to_bytes())).mover
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), "--game", "king-of-the-elves",
                                      "--imitate", "4", "--planner-moves"])
    with pytest.raises(SystemExit):
        runpy.run_path(str(EXAMPLE), run_name="__main__")


def test_init_starts_from_a_saved_policy(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """``--init`` (PPO after a clone): the run starts from the saved weights (a run at
    learning rate 0 saves them unchanged; a fresh one would differ), and a policy of
    another game or player count is refused."""
    first, second = tmp_path / "a.pt", tmp_path / "b.pt"
    base = [str(EXAMPLE), "--game", "king-of-the-elves", "--players", "4", "--envs", "4",
            "--steps", "20", "--updates", "1", "--eval-every", "5", "--device", "cpu"]
    monkeypatch.setattr(sys, "argv", [*base, "--seed", "1", "--save", str(first)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    monkeypatch.setattr(sys, "argv", [*base, "--seed", "2", "--lr", "0", "--init", str(first),
                                      "--save", str(second)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    a = torch.load(first, weights_only=False)["state_dict"]
    b = torch.load(second, weights_only=False)["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    monkeypatch.setattr(sys, "argv", [*base[:3], "--players", "3", *base[5:],
                                      "--init", str(first)])
    with pytest.raises(SystemExit):
        runpy.run_path(str(EXAMPLE), run_name="__main__")
