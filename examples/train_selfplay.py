"""Self-play PPO on the batched environment, scoring legal actions by their structure.

    pip install "elfenland[rl,train]"      # numpy, gymnasium, PyTorch
    python examples/train_selfplay.py --game elfenland --players 2 --minutes 10

One policy plays every seat of ``--envs`` games at once (``elfenland.envs.vector``).  It
never sees a table of all action ids: the network embeds the observation of the seat to
act, embeds each legal action's structured row (``elfenland.envs.actions``: kind,
transport, route, towns, payment …) and scores the pair, so ``move A-B`` by dragon and by
caravan share what they have in common.  The update is PPO's clipped objective with
Monte Carlo returns (the game's result for the seat that acted, 1 shared among the
winners) minus a learned value: simple, and right for a game whose only reward is at the
end.  Transitions wait in a buffer until their game ends; the stored log-probabilities
keep the ratio honest for the few that wait across an update.  ``--imitate`` (with
``--dagger`` rounds) first clones the greedy bot, so that self-play starts from its play.

Every ``--eval-every`` updates the policy (its most likely action) plays seat 0 against
random players in fresh games, and prints its mean return (0.5 = a random player's in a
2-player game; 1 = always wins).  ``--save`` writes the weights (``torch.save`` of the
state dict with the settings).  CPU by default (``--device cuda`` when present).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
import torch
from torch import nn

from elfenland.envs.actions import action_table
from elfenland.envs.vector import VectorGames


class Policy(nn.Module):
    """Scores each legal action: (observation embedding) · (action embedding), where an
    action's embedding is computed from its structured row, never looked up by its id:
    actions that share a route, a town, a kind or a payment share those parts."""

    def __init__(self, obs_size: int, table_rows: np.ndarray, hidden: int = 64,
                 embed: int = 32) -> None:
        super().__init__()
        columns = [int(c) + 2 for c in table_rows.max(0)]  # values -1 .. max, shifted by 1
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden), nn.ReLU())
        self.query = nn.Linear(hidden, embed)
        self.value = nn.Linear(hidden, 1)
        offsets = np.cumsum([0, *columns[:-1]])
        # Every action's row, as indices into one embedding table (one range per column).
        self.register_buffer("rows", torch.as_tensor(table_rows.astype(np.int64) + 1 + offsets))
        self.embed = nn.Embedding(int(sum(columns)), embed)
        self.mix = nn.Sequential(nn.ReLU(), nn.Linear(embed, embed))

    def actions(self) -> torch.Tensor:
        """The embedding of every action id (one row each), from the rows' columns."""
        return self.mix(self.embed(self.rows).sum(-2))  # type: ignore[operator]

    def forward(self, obs: torch.Tensor, ids: torch.Tensor,
                table: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits over the padded legal ids (-1: padding, -inf) and the value of the
        seat to act (its expected return)."""
        h = self.body(obs)
        if table is None:  # training: embed only the actions this batch holds
            uniq, where = torch.unique(ids.clamp(min=0), return_inverse=True)
            e = self.mix(self.embed(self.rows[uniq]).sum(-2))[where]  # type: ignore[index]
        else:
            e = table[ids.clamp(min=0)]
        logits = (e @ self.query(h).unsqueeze(-1)).squeeze(-1)
        logits = logits.masked_fill(ids < 0, float("-inf"))
        return logits, torch.sigmoid(self.value(h).squeeze(-1))


def legal(games: VectorGames) -> np.ndarray:
    """The padded legal ids, cut to the widest row of this step."""
    return games.legal_ids[:, :int(games.num_legal.max())].astype(np.int64)


def evaluate(policy: Policy, game: str, players: int, options: dict[str, Any], games: int,
             device: str, seed: int, opponent: str = "random",
             planner_moves: bool = False) -> float:
    """Mean return of the policy (its most likely action) against ``players - 1``
    opponents of one bot level ("random", or "greedy" played through the game's own
    bot), the policy's seat rotating with the game (game k: seat k mod players).  A
    return is the real result: 1 for a win, shared among tied winners; a game stopped at
    the length cap counts as a draw.  With ``planner_moves`` the greedy bot's planner
    plays the policy's seat in the move phase (``LearnedBot(planner_moves=True)``)."""
    from elfenland.bots.base import make_bot
    from elfenland.bots.learned import planner_phase

    n = min(64, games)
    v = VectorGames(game, n, players, **options)
    v.reset(seed)
    rng = np.random.default_rng(seed)
    rows_n = np.arange(n)
    bots = [make_bot(opponent, game, seed + i) for i in range(n)]
    movers = [make_bot("greedy", game, seed + 10**4 + i) for i in range(n)] \
        if planner_moves else []
    started = np.arange(n)  # the index of each slot's current game
    total, done, next_game = 0.0, 0, n
    with torch.no_grad():
        table = policy.actions()
    while done < games:
        seat = started % players
        with torch.no_grad():
            logits, _ = policy(torch.as_tensor(v.obs.copy(), device=device),
                               torch.as_tensor(legal(v), device=device), table)
        best = logits.argmax(-1).cpu().numpy()
        ids = v.legal_ids[rows_n, best].astype(np.int64)
        others = np.flatnonzero(v.player != seat)
        for i in np.flatnonzero(v.player == seat) if planner_moves else ():
            state = v.state(int(i))
            if planner_phase(state):
                ids[i] = movers[i].choose(state).id
        if opponent == "random":
            rand = (rng.random(n) * v.num_legal).astype(np.int64)
            ids[others] = v.legal_ids[others, rand[others]]
        else:
            for i in others:
                ids[i] = bots[i].choose(v.state(int(i))).id
        v.step(ids)
        for i in np.flatnonzero(v.terminated | v.truncated):
            if started[i] < games:  # a truncated game counts as a draw
                s = int(seat[i])
                total += float(v.rewards[i, s]) if v.terminated[i] else 1.0 / players
                done += 1
            started[i], next_game = next_game, next_game + 1
    return total / games


def imitate(policy: Policy, optimiser: torch.optim.Optimizer, args: argparse.Namespace,
            options: dict[str, Any]) -> tuple[float, int, int]:
    """Behaviour cloning before self-play, with DAgger's correction.  First greedy bots
    play ``args.imitate`` games in every seat of a batch, and the policy learns to score
    their choices (cross-entropy over the legal actions).  Then each of ``args.dagger``
    rounds plays as many games again with the policy itself (its most likely action) in
    one seat of each game (rotating with the game) among greedy bots, the greedy bot
    still naming its choice in every position: plain cloning only shows the policy the
    positions greedy play leads to, and its first mistakes take it where it never
    learned anything; these rounds teach it what greedy would do there.  Every round
    trains on all positions gathered so far (stored as bytes: the observation's values
    are small counts).  Self-play then starts from a policy that plays like the greedy
    bot instead of from random play.  Returns the last loss, the positions learned from
    and how many of them the policy itself had reached (its seat in the DAgger rounds).
    With ``args.planner_moves`` the planner makes the policy's journeys: positions of the
    move phase are neither learned from nor played by the policy."""
    from elfenland.bots.base import make_bot
    from elfenland.bots.learned import planner_phase

    n = args.envs
    v = VectorGames(args.game, n, args.players, **options)
    small = bool(v.layout.high().max() <= 255)
    bots = [make_bot("greedy", args.game, args.seed + i) for i in range(n)]
    blocks: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []
    rng = np.random.default_rng(args.seed)
    loss_value, own = float("nan"), 0
    for round_ in range(args.dagger + 1):
        v.reset(10**7 + args.seed + 10**5 * round_)
        started, next_game, finished = np.arange(n), n, 0
        with torch.no_grad():
            table = policy.actions()
        while finished < args.imitate:
            width = int(v.num_legal.max())
            ids = v.legal_ids[:, :width].astype(np.int64)
            states = [v.state(i) for i in range(n)]
            chosen = np.array([bots[i].choose(states[i]).id for i in range(n)], np.int64)
            pick = (ids == chosen[:, None]).argmax(1)
            obs = v.obs.astype(np.uint8) if small else v.obs.copy()
            learn = np.array([not (args.planner_moves and planner_phase(st))
                              for st in states])
            if learn.any():
                blocks.append((torch.as_tensor(obs[learn]), torch.as_tensor(ids[learn]),
                               torch.as_tensor(pick[learn])))
            act = chosen
            mine = np.flatnonzero((v.player == started % args.players) & learn) if round_ \
                else np.empty(0, np.int64)
            own += len(mine)
            if len(mine):
                with torch.no_grad():
                    logits, _ = policy(torch.as_tensor(v.obs[mine], device=args.device),
                                       torch.as_tensor(ids[mine], device=args.device), table)
                act = chosen.copy()
                act[mine] = ids[mine, logits.argmax(-1).cpu().numpy()]
            v.step(act)
            ended = np.flatnonzero(v.terminated | v.truncated)
            finished += len(ended)
            for i in ended:
                started[i], next_game = next_game, next_game + 1
        for group in optimiser.param_groups:
            group["lr"] = args.imitate_lr
        for _ in range(args.imitate_epochs):
            order = rng.permutation(len(blocks))
            for start in range(0, len(order), 16):  # 16 batch steps: 16 × envs positions
                chunk = [blocks[j] for j in order[start:start + 16]]
                k = max(int(b[1].shape[1]) for b in chunk)
                obs_t = torch.cat([b[0] for b in chunk]).float().to(args.device)
                ids_t = torch.cat([nn.functional.pad(b[1], (0, k - b[1].shape[1]), value=-1)
                                   for b in chunk]).to(args.device)
                pick_t = torch.cat([b[2] for b in chunk]).to(args.device)
                logits, _ = policy(obs_t, ids_t)
                loss = nn.functional.cross_entropy(logits, pick_t)
                optimiser.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                optimiser.step()
                loss_value = float(loss.detach())
    return loss_value, sum(len(b[2]) for b in blocks), own


def markers_of(games: VectorGames) -> tuple[int, float]:
    """Offset and bound of the acting seat's own score in the observation: Elfenland's
    town markers placed (the towns visited, which decide the game), else none (-1)."""
    slices = games.layout.slices()
    if "markers@+0" not in slices:
        return -1, 1.0
    return slices["markers@+0"].start, games.layout.block("markers", 0).high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="elfenland")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=64, help="batch steps per update")
    parser.add_argument("--minutes", type=float, default=10.0,
                        help="budget of training time, wall clock (evaluations excluded)")
    parser.add_argument("--cpu-minutes", type=float, default=0.0,
                        help="budget of training time in process CPU time instead "
                             "(evaluations excluded; 0: use --minutes)")
    parser.add_argument("--updates", type=int, default=0,
                        help="stop after this many rollouts (0: none)")
    parser.add_argument("--max-game-length", type=int, default=None,
                        help="truncate games after this many actions (King of the Elves: "
                             "50,000 by default; truncated games teach nothing)")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--embed", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--shaping", type=float, default=0.0,
                        help="Elfenland: part of each seat's training return given by its "
                             "share of the towns it ended with (0 .. 1; the rest is the "
                             "game's result). Evaluations always report real results.")
    parser.add_argument("--imitate", type=int, default=0,
                        help="first clone the greedy bot: this many games of greedy bots "
                             "in every seat, then cross-entropy on their choices (counted "
                             "in the training time)")
    parser.add_argument("--imitate-epochs", type=int, default=4,
                        help="passes over the cloning data after each round")
    parser.add_argument("--dagger", type=int, default=0,
                        help="after cloning, this many DAgger rounds (--imitate games each, "
                             "the policy in one seat of each game, greedy naming the "
                             "choice in every position; counted in the training time)")
    parser.add_argument("--imitate-lr", type=float, default=1e-3)
    parser.add_argument("--planner-moves", action="store_true",
                        help="Elfenland: the greedy bot's planner makes the policy's "
                             "journeys (LearnedBot(planner_moves=True)); the policy is "
                             "cloned on the other phases only and evaluated so; needs "
                             "--imitate and trains no self-play after the cloning")
    parser.add_argument("--eval-every", type=int, default=10)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--eval-greedy", type=int, default=0,
                        help="games against greedy bots at each evaluation (0: none)")
    parser.add_argument("--init", default="",
                        help="start from this saved policy (a .pt of --save or --log, same "
                             "game, players, --hidden and --embed), e.g. a clone for PPO")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--save", default="", help="write the final weights here")
    parser.add_argument("--log", default="", help="append one JSON line per evaluation "
                        "(and save that policy beside it, as LOG.<update>.pt)")
    args = parser.parse_args()
    if args.planner_moves and (args.game != "elfenland" or not args.imitate):
        parser.error("--planner-moves is for Elfenland, with --imitate")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    options: dict[str, Any] = {}
    if args.max_game_length is not None:
        options["max_game_length"] = args.max_game_length
    table = action_table(args.game)
    games = VectorGames(args.game, args.envs, args.players, **options)
    games.reset(args.seed)
    policy = Policy(games.layout.size, table.rows, args.hidden, args.embed).to(args.device)
    if args.init:
        start = torch.load(args.init, weights_only=False, map_location=args.device)
        if (start["game"], start["players"]) != (args.game, args.players):
            parser.error(f"--init holds a policy for {start['game']} with "
                         f"{start['players']} players")
        policy.load_state_dict(start["state_dict"])
    optimiser = torch.optim.Adam(policy.parameters(), lr=args.lr)
    rng = np.random.default_rng(args.seed)
    n, rows_n = args.envs, np.arange(args.envs)
    m_offset, m_high = markers_of(games)
    shaping = args.shaping if m_offset >= 0 else 0.0
    # Each seat's last seen score in each game (its towns, from its own observation).
    last_markers = np.zeros((n, args.players), np.float32)
    # Rollout blocks (one batch step each), kept until every game in them has ended and
    # the return of each transition is known.
    blocks: list[dict[str, Any]] = []
    open_steps: list[list[tuple[dict[str, Any], int]]] = [[] for _ in range(n)]
    update, steps_done = 0, 0
    # Training time only: the clocks stop while the policy is evaluated.
    wall, cpu = 0.0, 0.0
    wall0, cpu0 = time.time(), time.process_time()
    loss_value = float("nan")
    cloned: dict[str, int] = {}

    def settings() -> dict[str, Any]:
        return {"game": args.game, "players": args.players, "obs_size": games.layout.size,
                "observation_version": games.layout.version,
                "action_table_version": table.version, "hidden": args.hidden,
                "embed": args.embed, "planner_moves": args.planner_moves}

    def out_of_time() -> bool:
        used = (cpu + time.process_time() - cpu0) if args.cpu_minutes else \
            (wall + time.time() - wall0)
        budget = args.cpu_minutes or args.minutes
        return used >= 60 * budget or bool(args.updates and update >= args.updates)

    def report() -> None:
        """Evaluate and log the policy, the training clocks stopped meanwhile."""
        nonlocal wall, cpu, wall0, cpu0
        wall += time.time() - wall0
        cpu += time.process_time() - cpu0
        score = evaluate(policy, args.game, args.players, options, args.eval_games,
                         args.device, seed=10**6 + update, planner_moves=args.planner_moves)
        greedy = evaluate(policy, args.game, args.players, options, args.eval_greedy,
                          args.device, seed=2 * 10**6 + update, opponent="greedy",
                          planner_moves=args.planner_moves) \
            if args.eval_greedy else float("nan")
        print(f"{update:>6} {wall / 60:>8.2f} {cpu / 60:>8.2f} {steps_done:>10,} "
              f"{loss_value:>8.4f} {score:>10.3f} {greedy:>10.3f}", flush=True)
        if args.log:
            with open(args.log, "a") as f:
                f.write(json.dumps({
                    "update": update, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                    "steps": steps_done, "vs_random": score, "vs_greedy": greedy,
                    "eval_games": args.eval_games, "eval_greedy": args.eval_greedy,
                    "players": args.players, "game": args.game,
                    "imitation_games": args.imitate,
                    "dagger_rounds": args.dagger, "planner_moves": args.planner_moves,
                    **cloned}) + "\n")
            torch.save({"state_dict": policy.state_dict(), **settings()},
                       f"{args.log}.{update}.pt")
        wall0, cpu0 = time.time(), time.process_time()

    print(f"{'update':>6} {'minutes':>8} {'cpu min':>8} {'steps':>10} {'loss':>8} "
          f"{'vs random':>10} {'vs greedy':>10}")
    if args.imitate:
        loss_value, positions, own = imitate(policy, optimiser, args, options)
        cloned.update(imitation_positions=positions, dagger_positions=own)
        report()
        for group in optimiser.param_groups:
            group["lr"] = args.lr
    while not out_of_time() and not args.planner_moves:
        with torch.no_grad():
            action_embeddings = policy.actions()
        for _ in range(args.steps):
            obs = torch.as_tensor(games.obs.copy(), device=args.device)
            ids_t = torch.as_tensor(legal(games), device=args.device)
            with torch.no_grad():
                logits, _ = policy(obs, ids_t, action_embeddings)
                dist = torch.distributions.Categorical(logits=logits)
                pick = dist.sample()
                logp = dist.log_prob(pick)
            pick_np = pick.cpu().numpy()
            seat = games.player.copy()
            if shaping:
                last_markers[rows_n, seat] = games.obs[:, m_offset] / m_high
            block = {"obs": obs, "ids": ids_t, "pick": pick, "logp": logp,
                     "seat": seat, "ret": np.full(n, np.nan, np.float32), "open": n}
            blocks.append(block)
            for i in range(n):
                open_steps[i].append((block, i))
            games.step(games.legal_ids[rows_n, pick_np])
            steps_done += n
            for i in np.flatnonzero(games.terminated | games.truncated):
                for b, j in open_steps[i]:
                    # A truncated game (King of the Elves' length cap) has no result:
                    # its transitions keep NaN and are left out.
                    if games.terminated[i]:
                        s = b["seat"][j]
                        b["ret"][j] = (1 - shaping) * games.rewards[i, s] \
                            + shaping * last_markers[i, s]
                    b["open"] -= 1
                open_steps[i] = []
                last_markers[i] = 0
        update += 1
        if update % args.eval_every == 0:  # the policy that played this rollout
            report()
        ready = [b for b in blocks if b["open"] == 0]
        blocks = [b for b in blocks if b["open"] > 0]
        if not ready:
            continue
        k = max(int(b["ids"].shape[1]) for b in ready)
        obs_all = torch.cat([b["obs"] for b in ready])
        ids_all = torch.cat([nn.functional.pad(b["ids"], (0, k - b["ids"].shape[1]), value=-1)
                             for b in ready])
        pick_all = torch.cat([b["pick"] for b in ready])
        old_all = torch.cat([b["logp"] for b in ready])
        ret_all = torch.as_tensor(np.concatenate([b["ret"] for b in ready]), device=args.device)
        keep = ~torch.isnan(ret_all)
        if not bool(keep.any()):
            continue
        obs_all, ids_all = obs_all[keep], ids_all[keep]
        pick_all, old_all, ret_all = pick_all[keep], old_all[keep], ret_all[keep]
        for _ in range(args.epochs):
            order = torch.as_tensor(rng.permutation(len(ret_all)))
            for chunk in torch.split(order, 2048):
                logits, value = policy(obs_all[chunk], ids_all[chunk])
                dist = torch.distributions.Categorical(logits=logits)
                logp = dist.log_prob(pick_all[chunk])
                ret = ret_all[chunk]
                adv = ret - value.detach()
                adv = (adv - adv.mean()) / (adv.std() + 1e-6) if len(adv) > 1 else adv
                ratio = torch.exp(logp - old_all[chunk])
                pg = -torch.min(ratio * adv, ratio.clamp(1 - args.clip, 1 + args.clip) * adv)
                loss = pg.mean() + 0.5 * ((value - ret) ** 2).mean() \
                    - args.entropy * dist.entropy().mean()
                optimiser.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                optimiser.step()
                loss_value = float(loss.detach())
    if args.save:
        torch.save({"state_dict": policy.state_dict(), **settings()}, args.save)


if __name__ == "__main__":
    main()
