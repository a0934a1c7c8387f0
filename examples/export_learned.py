"""Export a policy saved by ``train_selfplay.py`` as the ``learned`` bot's weights file.

    python examples/export_learned.py /tmp/runs/elf4.jsonl.3000.pt \\
        src/elfenland/bots/weights/elfenland-4p.elfw --log /tmp/runs/elf4.jsonl

The file (``elfenland.bots.learned.Weights``) needs neither torch nor numpy to load.
Before writing, the export plays the torch model and both torch-free forward passes on
positions of random games and demands the same scores (to float32 rounding) and the same
choices.  ``--log`` copies that checkpoint's evaluation figures into the header.
"""

from __future__ import annotations

import argparse
import json
import random
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import torch

from elfenland.bots.learned import TENSORS, Weights, load_policy, observation
from elfenland.envs.actions import action_table
from elfenland.games.registry import game_info


def torch_policy(saved: dict[str, Any]) -> Any:
    """The trainer's network, with the saved weights."""
    import runpy

    module = runpy.run_path(str(Path(__file__).with_name("train_selfplay.py")))
    policy = module["Policy"](saved["obs_size"], action_table(saved["game"]).rows,
                              saved.get("hidden", 64), saved.get("embed", 32))
    policy.load_state_dict(saved["state_dict"])
    policy.eval()
    return policy


def to_weights(saved: dict[str, Any], trained: dict[str, Any]) -> Weights:
    rows = action_table(saved["game"]).rows
    columns = [int(c) + 2 for c in rows.max(0)]  # as the trainer's Policy counts them
    offsets = np.cumsum([0, *columns[:-1]]).tolist()
    state = saved["state_dict"]
    header = {k: saved[k] for k in ("game", "players", "obs_size", "observation_version",
                                    "action_table_version", "hidden", "embed")}
    header["planner_moves"] = bool(saved.get("planner_moves", False))
    header["column_offsets"] = [int(o) for o in offsets]
    header["trained"] = trained
    tensors = {n: array("f", state[n].detach().cpu().float().numpy().ravel().tolist())
               for n in TENSORS}
    shapes = {n: tuple(int(d) for d in state[n].shape) for n in TENSORS}
    return Weights(header, tensors, shapes)


def torch_scores(policy: Any, obs: Any, ids: list[int]) -> list[float]:
    with torch.no_grad():
        logits, _ = policy(torch.as_tensor(np.asarray(obs, dtype=np.float32))[None],
                           torch.as_tensor(ids, dtype=torch.int64)[None])
    out: list[float] = logits[0].tolist()
    return out


def check(policy: Any, weights: Weights, positions: int = 60) -> tuple[float, int]:
    """The largest difference between torch's scores and the exported forward passes'
    over positions of random games, and the number of positions where one of them
    would choose another action than torch (clear choices only: torch's best by 1e-4)."""
    forward = [load_policy(weights, "numpy"), load_policy(weights, "python")]
    rng = random.Random(7)
    state = game_info(weights.game).new_game(players=weights.players, seed=7)
    worst, differ = 0.0, 0
    for _ in range(positions):
        if state.is_terminal():
            state = game_info(weights.game).new_game(players=weights.players,
                                                     seed=rng.randrange(10**6))
        ids = state.legal_action_ids()
        obs = observation(state, state.current_player(), weights.obs_size)
        want = torch_scores(policy, obs, ids)
        for f in forward:
            got = f.scores(obs, ids)
            worst = max(worst, max(abs(a - b) for a, b in zip(got, want, strict=True)))
            top = max(want)
            if max(range(len(ids)), key=got.__getitem__) != want.index(top) \
                    and sorted(want)[-2] < top - 1e-4:
                differ += 1
        for _ in range(rng.randrange(1, 6)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(list(state.legal_actions())))
    return worst, differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint", help="a .pt file written by train_selfplay.py")
    parser.add_argument("out", help="the weights file to write")
    parser.add_argument("--log", default="", help="the training log (JSON lines)")
    args = parser.parse_args()
    saved = torch.load(args.checkpoint, weights_only=False)
    trained: dict[str, Any] = {"checkpoint": Path(args.checkpoint).name}
    if args.log:
        update = int(Path(args.checkpoint).suffixes[-2].lstrip("."))
        for line in Path(args.log).read_text().splitlines():
            entry = json.loads(line)
            if entry["update"] == update:
                trained.update(entry)
    weights = to_weights(saved, trained)
    data = weights.to_bytes()
    worst, differ = check(torch_policy(saved), Weights.from_bytes(data))
    if worst > 1e-4 or differ:
        raise SystemExit(f"the export scores otherwise than torch: {worst:.2e}, "
                         f"{differ} choices differ")
    Path(args.out).write_bytes(data)
    print(f"wrote {args.out}: {len(data):,} bytes; largest score difference from torch "
          f"{worst:.2e}")


if __name__ == "__main__":
    main()
