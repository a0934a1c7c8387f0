"""The quick search level against today's search level, at equal CPU budgets, in
both games: prints the figures the README and docs/bots.md quote (issue #25).

    nice -n 10 python bench/search_strength.py --game elfenland --match four --games 400
    nice -n 10 python bench/search_strength.py --game king-of-the-elves --match two --games 400
    python bench/search_strength.py --summarise strength-*.jsonl
    python bench/search_strength.py --compare before.jsonl after.jsonl
    nice -n 10 python bench/search_strength.py --only timing --game elfenland --games 2
    nice -n 10 python bench/search_strength.py --only speed --game king-of-the-elves
    nice -n 10 python bench/search_strength.py --only compiled --match two --positions 30
    nice -n 10 python bench/search_strength.py --only agreement --positions 30 --deals 300
    nice -n 10 python bench/search_strength.py --only parallel --positions 30 --budget 0.1
    nice -n 10 python bench/search_strength.py --only ranking --game king-of-the-elves --deals 8
    nice -n 10 python bench/search_strength.py --game elfenland --match two --set workers=2

Matches (``--match``):

- ``four``: one quick bot against three search bots, four players.  Seeds are paired:
  game ``i`` is deal ``1 + i // 4`` with the quick in seat ``i % 4``, so every deal is
  played with the quick in each seat (run a multiple of 4 games).  An equal wins 25%.
- ``two``: quick against search, two players; deal ``1 + i // 2``, the quick in seat
  ``i % 2``.  An equal wins 50%.

Both bots get the same budget per decision, ``--budget`` seconds of CPU time of the
deciding thread (``time.thread_time``), and no iteration cap: a loaded machine makes
the match slower, not different.  Win rates count a shared win 1/k, with 95% Wilson
intervals.  Every game is appended to ``--log`` (one JSON line) as it ends, so that
``--summarise`` prints the table of an unfinished run.  King of the Elves games also log, per
round, every seat's gold at its end, what each did while building and the harm cards
each received (``rounds``, ``winners``): where the games are lost.  Seconds per decision: CPU time
of every decision each bot took (all phases), median, 99th percentile and worst.

``--compare A B`` pairs two logs by deal (the same deals played in every seat by both, a
game logged twice counted once) and prints each one's share on those deals and the
difference B − A, ± 1.96 standard errors of the per-deal differences: how a variant or
a budget compares with the level on the very same deals.  ``A`` (or ``B``) may name
several runs, ``a.jsonl,b.jsonl``: each deal's share is then their mean, on the deals
every run played whole (two runs of the level on the same deals differed by 4.6 ± 3.1
points in session 30: one run's luck is shared by every variant paired against it).

``--set name=value`` (repeatable) changes a setting of the quick level for a screening
run, e.g. ``--set search_discards=0`` (King of the Elves: discards left to the greedy
bot), ``--set search_draws=1`` (Elfenland: counter draws searched; ``2``: in the last
round only), ``--set react_wishes=0``, ``--set own_tree=0`` or ``--set standing=0.3``
(Elfenland: rivals' wishes never replanned, the searcher's later placements by its
policy, the evaluation's standing), ``--set search_keeps=1``, ``--set
search_discards=1``, ``--set search_moves=1`` (Elfenland: the counter kept, the cards
discarded, the journey moved searched with rollouts into the next round), ``--set
deviation=0``, ``--set prune=1`` or ``--set z=2`` (the root loop; ``z``: the best root
must also beat the greedy choice by that many standard errors of their paired
difference), ``--set exact=1``, ``--set horizon=0.55``, ``--set calibrated=1`` or
``--set every_rival=1`` (Elfenland: the evaluation at the rollout horizon, ``evaluate``
in ``bots/elfenland_quick.py``; ``every_rival``: the chance of beating every rival, not
the best one), ``--set obstacle=0`` or ``--set cards=0.15`` (Elfenland: the obstacle in
hand worth nothing before the last round, the level before session 28; each travel
card kept worth 0.15 town), ``--set counter=0`` (Elfenland: a transportation
counter held into the move phase, to keep, worth nothing before the last round, the
two-player level before session 29; it is a quarter of a town there now), ``--set
margin_scale=6`` or ``--set horizon_late=0.5`` (Elfenland: the margin's sigmoid read
over 6 towns, not the search bot's 4; the towns within reach worth half a town in the
round before the last, session 30), ``--set
rival_greedy=1``, ``--set block_leader=1`` or ``--set learned=1``
(Elfenland: the rollouts' players placing as the greedy bot, the blocking root beside
the leading rival, the learned value of ``bots/elfenland_value.py``), ``--set leave=4``,
``--set more_wish=2`` or ``--set blocking=2`` (Elfenland's roots, session 35: a kind of
``search``'s left out, more of the wish journey's counters, a second blocking counter),
``--set width=7``
or ``--set kept_other=1`` (King of the Elves roots and evaluation), ``--set
kept_harm=2`` (King of the Elves: each gold and harm card in hand worth 2 gold before
the last round), ``--set
learned_rollouts=1`` or ``--set policy_root=2`` (King of the Elves, 4 players: the
shipped learned policy plays the rivals in the rollouts, or makes the first root),
``--set harm_root=1``, ``--set harm_leader=1``, ``--set rival_mean=0.5`` or ``--set
learned_value=0.5`` (King of the Elves, 4 players: a root harming the leading rival, the
rollouts' harm on the richest, the margin against the rivals' mean, the learned value in
the reward), ``--set rounds_ahead=1`` (King of the Elves: rollouts played on to the next
round's building), ``--set belief=1`` or ``--set belief=2`` (King of the Elves: the
deals keep the cards the public record shows in the rivals' hands, and with 2 read their
discards by the discard rule, ``bots/kingelves_belief.py``); ``--set belief=1``
(Elfenland: the deals' rival hands pay for the counters each laid this round,
``bots/elfenland_belief.py``; 2: also a card of each face-up counter held; ``--set
belief_eps=0.02``: how rarely a deal that does not is kept; 3: deals weighted by the
greedy bot's model of each rival's draws and placements this round,
``bots/elfenland_reading.py``, ``--set reading_free=1`` leaving its upkeep out of the
budget); ``--set wide=1`` (Elfenland: the roots beyond ``search``'s five, ``wider`` in
``bots/elfenland_quick.py``: 1 every counter on a road from the player's own town, 2
every legal placement, 3 every obstacle and every counter on a road of its wish, 4
every obstacle in the last round);
``--set rival_tree=1`` (Elfenland: the rivals' placements nodes of the rollouts' tree,
each the reply worst for the searcher); ``--oracle hands`` (or ``action``,
``transport``, ``towns``; King of the Elves) tells the quick level's deals the rivals'
true cards of those kinds (Elfenland: ``hands``, the true position, the rivals' cards,
secret counters and town cards; ``transport``, their travel cards only; ``counters``,
their secret counters only; ``kept``, the travel cards each kept at the last round's
end, the rest dealt): a diagnostic of what a sharper belief could be worth, never a
level; ``--oracle-seen K`` (King of the Elves) tells them only at decisions where every
rival has already made at least K building decisions of the round (K < 0: fewer than
-K), where in the round knowing them is worth something; ``--oracle-fixed`` (both games)
tells them, instead of the truth, one draw of the engine's deal per decision (whether
the oracle's gain is its knowledge or only its deals agreeing with one another);
``--search-scale 1.4`` gives the search level 1.4 times the budget a decision (equal CPU
a game when the quick searches more of its decisions); the settings are logged with each
game and ``--summarise`` keeps runs of different settings apart.

``--search-pure`` (King of the Elves): the search bots plan their journeys with the
pure planner (``kingelves_journey.use_backend("pure")`` around each of their decisions),
as today's search level did before the compiled planner (issue #25); ``--quick-pure``
the same for the quick bot (the level as it was, for the paired difference).  Logged
with the settings.

``--only compiled`` (Elfenland, ``--match two|four``): the quick level's rollouts in
Python and compiled (``bots/_quick_rollout.h``) side by side on the same searched
positions and seeds: CPU a rollout of each and whether every search chose the same root
with the same mean rewards.

``--only speed``: CPU time per rollout of both levels on the same positions (searched
decisions met in games of greedy bots), each searching a fixed number of deals with
no time limit, side by side in one run.

``--only agreement``: on the same searched positions, how often each level's decision
at ``--budget`` CPU seconds (three seeds a position) is the one a long search reaches
(the quick with ``--deals`` deals of every root, 300 by default here), and how often
each leaves the greedy choice, and the mean regret of each level's choices (the long
search's mean reward of its own choice less that of the level's, which a choice of
the long search's greedy-kept root may make negative): a view of search noise that
needs no games.

``--only parallel``: root parallelism, the quick level with one worker and with two
(``workers``, forked processes) on the same searched positions in turns, ``--budget``
wall seconds a decision: rollouts per wall second and their ratio, wall time per
decision, the fork's cost and the wait for the worker, workers lost, load average.
The strength of two workers: ``--set workers=2`` in a match (each worker gets
``--budget`` CPU seconds of its own, so the quick spends twice the CPU of ``search``
in the same wall time on two free cores).

``--only cost`` (Elfenland, ``--match two|four`` for the players): where a ``quick``
rollout's CPU goes: CPU a rollout, the compiled planner's share and searches a rollout
(under ``cProfile``), and its calls replayed alone (a wish journey, a journey on the
laid counters, an empty hand: the part that is not search).

``--only roots`` (Elfenland, ``--match two|four``): whether roots beyond ``search``'s five
would gain, by the level's own reward: on each searched position every legal
placement is a root of two long searches (``--deals`` a root, other seeds); the best of
a set chosen on the first is valued on the second, against the best of the five so
chosen (no winner's curse); the sets: every legal placement, the five with each
``wide`` setting, the greedy choice alone.

``--only ranking`` (King of the Elves, ``--match two|four``): the greedy bot's ranking
of building actions (the quick level's roots) on one deal of the hidden cards against
its mean over ``--deals`` deals (``--set rank_deals=N`` in a match ranks the roots so):
CPU a ranking, and how often one deal's best is the mean's best.

``--only timing``: the bots at their default wall-clock budgets (``time.perf_counter``,
what a game uses), four of a kind at the table: wall seconds per decision, median,
99th percentile and worst, with the load average: whether the budget holds on this
machine as it is loaded now.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from typing import Any

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.tournament import wilson

GAMES = ("elfenland", "king-of-the-elves")
SEATS = {"four": 4, "two": 2}


#: ``--set name=value`` for the quick level (screening variants): its root loop's
#: constants (``prune``, ``prune_after``, ``deviation``, ``z``) or an attribute of the bot.
SETTINGS: dict[str, float] = {}
#: ``--search-scale``: the search level's budget is ``--budget`` times this (1: equal).
SEARCH_SCALE = [1.0]
#: ``--search-pure``, ``--quick-pure``: the levels whose journey plans are pinned pure.
PURE_PLANNER: set[str] = set()
#: ``--oracle``: the cards of the rivals' hands the quick level's deals are told (a
#: diagnostic of what knowing them is worth; no bot of the package ever reads them).
ORACLE_KINDS = {"hands": range(19), "action": range(13, 19), "transport": range(6, 13),
                "towns": range(0, 6), "counters": range(0), "kept": range(0)}
#: Elfenland ``--oracle kept``: each seat's travel cards as the last round ended (the
#: cards it kept), set by ``play`` as the game goes.
KEPT: list[list[int]] = []
#: The ``--oracle`` in force (its 1-based index in ``ORACLE_KINDS``), logged with a game.
TOLD: list[float] = []


def oracle_elfenland(part: str = "hands") -> None:
    """Elfenland: the quick level's deals are the true position (the rivals' travel cards,
    secret counters and town cards), its future draws still random: what knowing the
    hidden parts is worth.  ``part`` "transport": only the rivals' travel cards are
    the true ones, "counters" only their secret counters (the rest of each deal the
    engine's)."""
    from elfenland.bots import budget, elfenland_quick
    from elfenland.bots.elfenland_reading import put
    from elfenland.core.rng import Rng

    if part == "kept":
        import random

        def told_kept(state: Any, me: int, rng: Any, on_deal: Any,
                      refine: Any = None) -> Any:
            kept = [list(k) for k in KEPT] if KEPT and state.round > 1 else None

            def dealt(det: Any) -> None:
                if kept is None:
                    return
                pool = list(det.card_pile)
                for q in range(det.n):
                    if q != me:
                        pool = [a + b - c for a, b, c in zip(pool, det.hands[q], kept[q],
                                                             strict=True)]
                cards = [k for k, n in enumerate(pool) for _ in range(n)]
                random.Random(rng.random()).shuffle(cards)
                hands = [list(h) for h in det.hands]
                for q in range(det.n):
                    if q == me:
                        continue
                    hands[q] = list(kept[q])
                    for _ in range(sum(det.hands[q]) - sum(kept[q])):
                        hands[q][cards.pop()] += 1
                assert put(det, me, hands, det.counters_secret)
            return budget.resampled(state, me, rng, on_deal, dealt)
        elfenland_quick.resampled = told_kept  # type: ignore[assignment]
        return
    if part != "hands":
        def told_part(state: Any, me: int, rng: Any, on_deal: Any,
                      refine: Any = None) -> Any:
            def partly(det: Any) -> None:
                hands = state.hands if part == "transport" else det.hands
                secret = state.counters_secret if part == "counters" else det.counters_secret
                assert put(det, me, hands, secret)
            return budget.resampled(state, me, rng, on_deal, partly)
        elfenland_quick.resampled = told_part  # type: ignore[assignment]
        return

    def told(state: Any, me: int, rng: Any, on_deal: Any, refine: Any = None) -> Any:
        told = state if not FIXED else state.resample_from_infostate(
            me, Rng(FIXED[0].randrange(2**63)))  # ``--oracle-fixed``: one deal, not the truth

        class Truth:
            def resample_from_infostate(self, player: int, r: Rng) -> Any:
                true = told.clone()
                true.rng = Rng(r.randrange(2**63))
                return true
        return budget.resampled(Truth(), me, rng, on_deal, refine)
    elfenland_quick.resampled = told  # type: ignore[assignment]


#: ``--oracle-seen K``: the oracle holds only where every rival has made at least K
#: building decisions this round (K < 0: fewer than -K); None: everywhere.
ORACLE_SEEN: list[int] = []
#: ``--oracle-fixed``: the oracle tells a single draw of the engine's deal, not the truth.
FIXED: list[Any] = []
_DECIDING = frozenset({0, 1, 2, 3, 7, 10, 11})  # pass, no town card, draw, buy, play,
                                                # place, remove (``Kind``)


def decisions_this_round(state: Any) -> list[int]:
    """Each player's building decisions (not a discard or take) since the round began."""
    from elfenland.games.kingelves.actions import Kind, from_id
    made = [0] * state.n
    stops = 0
    for entry in state.log:
        kind = from_id(entry[1]).kind
        if kind is Kind.STOP:
            stops += 1
            if stops % state.n == 0:
                made = [0] * state.n
        elif int(kind) in _DECIDING:
            made[entry[0]] += 1
    return made


def oracle(kinds: range) -> None:
    """King of the Elves only: the quick level's belief (``kingelves_belief``) replaced by
    the rivals' true counts of ``kinds``, the rest of each hand dealt from the other
    kinds, and its deals made to agree with it (``belief=2``)."""
    from elfenland.bots import kingelves_quick
    from elfenland.bots.kingelves_belief import Belief

    def told(state: Any, discards: bool = True) -> Belief:
        if ORACLE_SEEN:
            made = decisions_this_round(state)
            seen = min(m for q, m in enumerate(made) if q != state.current)
            k = ORACLE_SEEN[0]
            if (seen < k) if k >= 0 else (seen >= -k):
                return Belief([[0] * 19 for _ in range(state.n)], [None] * state.n,
                              [0] * state.n)
        if FIXED:
            # One deal for the whole decision: the rivals' hands of a single draw of
            # the engine's, right or wrong (is the oracle's gain its knowledge, or
            # only the deals all agreeing with one another?).
            from elfenland.core.rng import Rng
            hands = state.resample_from_infostate(state.current,
                                                  Rng(FIXED[0].randrange(2**63))).hands
            return Belief([[hands[q][c] if c in kinds else 0 for c in range(19)]
                           for q in range(state.n)], [frozenset(
                               c for c in range(19) if c not in kinds)] * state.n,
                          [0] * state.n)
        rest = frozenset(c for c in range(19) if c not in kinds)
        return Belief([[state.hands[q][c] if c in kinds else 0 for c in range(19)]
                       for q in range(state.n)], [rest] * state.n, [0] * state.n)
    kingelves_quick.belief_of = told  # type: ignore[assignment]
    SETTINGS["belief"] = 2.0


def pinned(choose: Any) -> Any:
    """``choose`` with the King of the Elves journey planner pinned to the pure search."""
    from elfenland.bots.kingelves_journey import use_backend

    def pure_choose(state: Any) -> Any:
        with use_backend("pure"):
            return choose(state)
    return pure_choose


def budgeted(level: str, game: str, seed: int, budget: float) -> Any:
    bot: Any = make_bot(level, game, seed)
    bot.seconds = budget
    bot.iterations = 10**9
    bot.clock = time.thread_time
    if level == "quick":
        for name, value in SETTINGS.items():
            target = bot if hasattr(bot, name) else bot.loop  # the bot's own first
            if not hasattr(target, name):
                raise SystemExit(f"--set: the quick bot has no setting {name!r}")
            current = getattr(target, name)  # None: a setting chosen later (horizon)
            setattr(target, name, value if current is None else type(current)(value))
    if level in PURE_PLANNER:
        bot.choose = pinned(bot.choose)
    return bot


def koe_act(action: Any, p: int) -> str | None:
    """What a King of the Elves building action does, for the per-round log (``rounds``):
    a town into one's own kingdom or a rival's, a gold card, a harm card (thief, tree, sea
    monster), a buy, a draw, a removal; None for the rest."""
    kind = action.kind.name
    if kind == "PLAY":
        return "town_own" if action.kingdom == p else "town_rival"
    if kind == "PLACE":
        return "gold" if action.card.name == "GOLD" else "harm"
    return {"BUY": "buy", "DRAW": "draw", "REMOVE": "remove"}.get(kind)


def play(game: str, match: str, index: int, budget: float) -> dict[str, Any]:
    """One game of the match (see the module doc for seeds and seats)."""
    n = SEATS[match]
    deal = 1 + index // n
    seat = index % n
    bots = [budgeted("quick", game, deal * 16 + q, budget) if q == seat
            else budgeted("search", game, deal * 16 + q, budget * SEARCH_SCALE[0])
            for q in range(n)]
    state = elfenland.new_game(game, players=n, seed=deal)
    times: dict[str, list[float]] = {"quick": [], "search": []}
    # King of the Elves: per round, every seat's gold at its end, what each seat did
    # while building (``koe_act``) and the harm cards it received (the loss analysis).
    rounds: list[dict[str, Any]] = []
    # Elfenland: every seat's town pieces at each round's end (where games are lost).
    towns: list[list[int]] = []
    started = time.perf_counter()
    while not state.is_terminal():
        p = state.current_player()
        t0 = time.thread_time()
        action = bots[p].choose(state)
        times["quick" if p == seat else "search"].append(time.thread_time() - t0)
        if game == "elfenland":
            hands, was = [list(h) for h in state.hands], state.round
        if game == "king-of-the-elves":
            if len(rounds) < state.round:
                rounds.append({"acts": [{} for _ in range(n)], "harmed": [0] * n})
            act = koe_act(action, p)
            if act is not None:
                acts = rounds[-1]["acts"][p]
                acts[act] = acts.get(act, 0) + 1
                if act == "harm":
                    rounds[-1]["harmed"][action.kingdom] += 1
            before = state.round
        state.apply_action(action)
        if game == "elfenland" and state.round != was:
            KEPT[:] = hands
        if game == "elfenland" and (state.round != was or state.is_terminal()):
            towns.append([state.markers(q) for q in range(n)])
        if game == "king-of-the-elves" and (state.round != before or state.is_terminal()):
            rounds[-1]["gold"] = list(state.gold)
    won = state.winners()
    quick = bots[seat]
    return {"game": game, "match": match, "index": index, "deal": deal, "seat": seat,
            "budget": budget,
            "settings": dict(SETTINGS) | ({"search_scale": SEARCH_SCALE[0]}
                                          if SEARCH_SCALE[0] != 1.0 else {})
                        | {f"{level}_pure": 1 for level in sorted(PURE_PLANNER)}
                        | ({"oracle": TOLD[0]} if TOLD else {})
                        | ({"oracle_seen": ORACLE_SEEN[0]} if ORACLE_SEEN else {}),
            "share": 1 / len(won) if seat in won else 0.0,
            "rollouts": quick.rollouts, "searches": quick.searches,
            **({"rounds": rounds, "winners": won} if rounds else {}),
            # Elfenland: each seat's town pieces and travel cards at the end (how often
            # the tie-break on cards decides).
            **({"markers": [state.markers(q) for q in range(n)],
                "cards": [sum(state.hands[q]) for q in range(n)], "winners": won,
                "round_markers": towns,
                "obstacles": [int(state.obstacle_in_hand[q]) for q in range(n)]}
               if game == "elfenland" else {}),
            "cpu": times, "wall": time.perf_counter() - started,
            "load": os.getloadavg()[0]}


def spread(values: list[float]) -> str:
    if not values:
        return "no decisions"
    v = sorted(values)
    p99 = v[min(len(v) - 1, int(0.99 * len(v)))]
    return (f"median {statistics.median(v) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
            f"max {v[-1] * 1000:.1f} ms")


def read_log(name: str) -> list[dict[str, Any]]:
    """A ``--log`` file's games, one JSON object a line."""
    with open(name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def deal_shares(rows: list[dict[str, Any]]) -> dict[int, float]:
    """The quick level's mean share of every deal it played in all seats of its match
    (a game logged twice counts once)."""
    seats: dict[int, dict[int, float]] = {}
    n = 0
    for r in rows:
        n = SEATS[r["match"]]
        seats.setdefault(r["deal"], {}).setdefault(r["index"], float(r["share"]))
    return {deal: sum(games.values()) / n for deal, games in seats.items()
            if len(games) == n}


def runs_shares(names: str) -> dict[int, float]:
    """``deal_shares`` of one run, or the mean of several (``a.jsonl,b.jsonl``: each
    log a run, the deals every run played whole): a variant paired against one run of
    the level carries that run's own luck on its deals (session 30), against the mean
    of two runs half as much."""
    runs = [deal_shares(read_log(name)) for name in names.split(",")]
    deals = set.intersection(*(set(r) for r in runs))
    return {d: statistics.mean(r[d] for r in runs) for d in deals}


def compare(a: dict[int, float], b: dict[int, float]) -> None:
    """The paired difference of two runs (or means of runs) on the deals both played
    whole."""
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        print(f"--compare: {len(common)} deal(s) played whole by both logs; need 2")
        return
    diffs = [b[d] - a[d] for d in common]
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    print(f"{len(common)} deals ({common[0]}–{common[-1]}) played whole by both: "
          f"A {statistics.mean(a[d] for d in common):.1%}, "
          f"B {statistics.mean(b[d] for d in common):.1%}; "
          f"B − A {100 * mean:+.1f} ± {100 * half:.1f} points")


def summarise(rows: list[dict[str, Any]]) -> None:
    groups: dict[tuple[str, str, float, str], dict[int, dict[str, Any]]] = {}
    for r in rows:  # a game logged twice counts once
        settings = " ".join(f"{k}={v:g}" for k, v in sorted(r.get("settings", {}).items()))
        key = (r["game"], r["match"], r["budget"], settings)
        groups.setdefault(key, {}).setdefault(r["index"], r)
    for (game, match, budget, settings), by_index in sorted(groups.items()):
        n = SEATS[match]
        seats: dict[int, int] = {}
        for r in by_index.values():
            seats[r["deal"]] = seats.get(r["deal"], 0) + 1
        # Paired seeds: only deals played with the quick in every seat count.
        games = [r for r in by_index.values() if seats[r["deal"]] == n]
        if not games:
            print(f"\n{game}, {match}: no deal played in all {n} seats yet "
                  f"({len(by_index)} games; --games is best a multiple of {n})")
            continue
        wins = sum(r["share"] for r in games)
        lo, hi = wilson(wins, len(games))
        searches = sum(r["searches"] for r in games)
        rollouts = sum(r["rollouts"] for r in games) / searches if searches else 0.0
        print(f"\n{game}, {'quick vs 3 search' if n == 4 else 'quick vs search'} "
              f"({n} players), {budget * 1000:.0f} ms CPU per decision each, "
              f"{len(games)} games ({len(games) // n} deals x {n} seats)"
              + (f", quick with {settings}" if settings else ""))
        print(f"  quick wins {wins / len(games):.1%}  95% CI [{lo:.1%}, {hi:.1%}]  "
              f"(an equal: {1 / n:.0%})")
        for level in ("quick", "search"):
            cpu = [t for r in games for t in r["cpu"][level]]
            print(f"  {level} CPU per decision: {spread(cpu)}")
        per_game = {"quick": statistics.mean(sum(r["cpu"]["quick"]) for r in games),
                    "search": statistics.mean(sum(r["cpu"]["search"]) for r in games) / (n - 1)}
        print(f"  CPU per game and seat: quick {per_game['quick']:.2f} s, "
              f"search {per_game['search']:.2f} s")
        print(f"  quick rollouts per search: {rollouts:.1f}; "
              f"wall per game {statistics.mean(r['wall'] for r in games):.1f} s; "
              f"load average {statistics.mean(r['load'] for r in games):.2f}")
    sys.stdout.flush()


def timing(game: str, games: int) -> None:
    """Four bots of a level at their default wall budgets; wall time per decision."""
    for level in ("search", "quick"):
        walls: list[float] = []
        started = time.perf_counter()
        for g in range(games):
            bots: list[Any] = [make_bot(level, game, 1000 * g + q) for q in range(4)]
            state = elfenland.new_game(game, players=4, seed=500 + g)
            while not state.is_terminal():
                t0 = time.perf_counter()
                action = bots[state.current_player()].choose(state)
                walls.append(time.perf_counter() - t0)
                state.apply_action(action)
        print(f"{game}: four {level} bots at their default budget ({bots[0].seconds} s), "
              f"{games} games, {(time.perf_counter() - started) / games:.0f} s wall a game, "
              f"wall per decision: {spread(walls)}; load average {os.getloadavg()[0]:.2f}",
              flush=True)


def searched_positions(game: str, count: int, players: int = 4
                       ) -> list[tuple[Any, list[Any]]]:
    """Positions where both levels search (several root actions), with those roots."""
    out: list[tuple[Any, list[Any]]] = []
    seed = 0
    while len(out) < count:
        state: Any = elfenland.new_game(game, players=players, seed=900 + seed)
        greedy = [make_bot("greedy", game, seed * 8 + q) for q in range(players)]
        probe: Any = make_bot("quick", game, seed)
        while not state.is_terminal() and len(out) < count:
            if game == "elfenland":
                from elfenland.bots.elfenland_search import candidates
                from elfenland.games.elfenland.state import Phase

                roots = (candidates(state, probe.greedy) if state.phase is Phase.PLACE
                         else [])
            else:
                from elfenland.games.kingelves.state import Pending
                from elfenland.games.kingelves.state import Phase as KPhase

                legal = state.legal_actions()
                roots = (probe.candidates(state, legal)
                         if state.phase is KPhase.BUILDING and state.pending is Pending.NONE
                         and len(legal) > 1 else [])
            if len(roots) > 1:
                out.append((state.clone(), roots))
            state.apply_action(greedy[state.current_player()].choose(state))
        seed += 1
    return out


def root_width(count: int, deals: int, players: int) -> None:
    """``--only roots``: the best of each set of roots, chosen on one long search of
    every legal placement and valued on another, against the best of ``search``'s."""
    from elfenland.bots.elfenland_quick import wider

    positions = searched_positions("elfenland", count, players)
    gains: dict[str, list[float]] = {}
    sizes: dict[str, list[int]] = {}
    outside = 0
    for k, (state, five) in enumerate(positions):
        n = len(five)
        roots = list(five) + [a for a in state.legal_actions() if a not in five]
        runs = []
        for run in range(2):
            bot: Any = make_bot("quick", "elfenland", 1000 * k + run + 7)
            bot.iterations, bot.seconds = deals * len(roots), 1e9
            bot.search(state, roots)
            runs.append(list(bot.loop.last))
        first, second = runs
        sets = {"every legal placement": list(range(len(roots))),
                "greedy choice alone": [0]}
        for mode in (1, 3):
            extra = set(wider(state, five, mode))
            sets[f"the five and wide={mode}"] = [
                i for i, a in enumerate(roots) if i < n or a in extra]
        best_five = max(range(n), key=lambda i: first[i])
        for name, members in sets.items():
            best = max(members, key=lambda i: first[i])
            gains.setdefault(name, []).append(second[best] - second[best_five])
            sizes.setdefault(name, []).append(len(members))
        outside += max(range(len(roots)), key=lambda i: first[i]) >= n
    print(f"elfenland, {players} players: {len(positions)} searched positions, {deals} "
          f"deals a root; the best of every legal placement lies outside search's roots "
          f"in {outside}; the best of each set against the best of search's roots, "
          f"reward on the second search (± 1.96 standard errors):")
    for name, got in gains.items():
        err = 1.96 * statistics.stdev(got) / len(got) ** 0.5 if len(got) > 1 else 0.0
        print(f"  {name}: {statistics.mean(sizes[name]):.1f} roots, "
              f"{statistics.mean(got):+.4f} ± {err:.4f}", flush=True)


def rollout_cost(count: int, deals: int, players: int) -> None:
    """Where an Elfenland ``quick`` rollout's CPU goes: the level's own search of
    ``deals`` deals a root on ``count`` searched positions, timed, then again under
    ``cProfile`` for the compiled planner's share (a C function's own time is not
    slowed by the profiler); then the planner's calls of one more such run replayed
    alone, wish journeys (counters on empty roads) apart from journeys on the laid
    counters (the evaluation's), and each with an empty hand (reading the arguments
    and building the bounds' tables, no search)."""
    import cProfile
    import pstats

    from elfenland.bots import planner

    positions = searched_positions("elfenland", count, players)

    def run() -> int:
        n = 0
        for i, (state, roots) in enumerate(positions):
            bot: Any = make_bot("quick", "elfenland", i)
            bot.iterations, bot.seconds = deals * len(roots), 1e9
            bot.search(state, roots)
            n += bot.rollouts
        return int(n)

    t0 = time.thread_time()
    n = run()
    per = (time.thread_time() - t0) / n
    profile = cProfile.Profile()
    profile.enable()
    run()
    profile.disable()
    stats: Any = pstats.Stats(profile)
    c = next(v for k, v in stats.stats.items()
             if k[2] == "<built-in method elfenland.bots._planner.plan>")
    searches, c_time = c[1] / n, c[2] / n
    real = planner._planner  # type: ignore[attr-defined]
    calls: list[tuple[Any, ...]] = []

    class Spy:
        @staticmethod
        def plan(*a: Any) -> Any:
            calls.append(a)
            return real.plan(*a)

        tables = staticmethod(real.tables)
        walks = staticmethod(real.walks)
        outlook = staticmethod(real.outlook)

    planner._planner = Spy()  # type: ignore[attr-defined]
    try:
        run()
    finally:
        planner._planner = real  # type: ignore[attr-defined]

    def each(group: list[tuple[Any, ...]]) -> float:
        t = time.thread_time()
        for a in group:
            real.plan(*a)
        return (time.thread_time() - t) / max(1, len(group)) * 1e6

    wild = [a for a in calls if a[3]]
    laid = [a for a in calls if not a[3]]
    empty = [(*a[:13], (0,) * 7, *a[14:]) for a in calls]
    print(f"elfenland, {players} players: {len(positions)} searched positions, {deals} "
          f"deals a root: {per * 1000:.3f} ms of CPU a rollout, of which the compiled "
          f"planner's search {c_time * 1000:.3f} ms ({c_time / per:.0%}; "
          f"{searches:.1f} searches a rollout); replayed alone: a wish journey "
          f"{each(wild):.0f} us ({len(wild)}), a journey on the laid counters "
          f"{each(laid):.0f} us ({len(laid)}), either with an empty hand {each(empty):.0f} "
          f"us; load average {os.getloadavg()[0]:.2f}", flush=True)


def compiled_rollouts(count: int, deals: int, players: int) -> None:
    """``--only compiled``: the Elfenland quick level's rollouts in Python and in C
    (``_quick_rollout.h``) side by side: on the same searched positions, ``deals`` deals
    a root each, the same seeds, CPU a rollout of each (best of three runs, alternated)
    and how many searches gave the same choice and every root's mean reward."""
    positions = searched_positions("elfenland", count, players)

    def run(compiled: bool) -> tuple[list[tuple[int, tuple[float, ...]]], float]:
        got = []
        n = 0
        t0 = time.thread_time()
        for i, (state, roots) in enumerate(positions):
            bot: Any = make_bot("quick", "elfenland", i)
            bot.compiled = compiled
            bot.iterations, bot.seconds = deals * len(roots), 1e9
            chosen = bot.search(state, roots)
            got.append((chosen.id, tuple(bot.loop.last)))
            n += bot.rollouts
        return got, (time.thread_time() - t0) / n

    best = {False: math.inf, True: math.inf}
    answers: dict[bool, list[tuple[int, tuple[float, ...]]]] = {}
    for _ in range(3):
        for compiled in (False, True):
            answers[compiled], per = run(compiled)
            best[compiled] = min(best[compiled], per)
    same = sum(a == b for a, b in zip(answers[False], answers[True], strict=True))
    print(f"elfenland, {players} players: {len(positions)} searched positions, {deals} "
          f"deals a root: CPU a rollout, Python {best[False] * 1000:.3f} ms, compiled "
          f"{best[True] * 1000:.3f} ms, ratio {best[False] / best[True]:.2f}x; the same "
          f"choice and rewards in {same} of {len(positions)} searches; load average "
          f"{os.getloadavg()[0]:.2f}", flush=True)


def speed(game: str, count: int, deals: int, players: int = 4) -> None:
    positions = searched_positions(game, count, players)
    cpu = {"search": 0.0, "quick": 0.0}
    rollouts = {"search": 0, "quick": 0}
    for i, (state, roots) in enumerate(positions):
        search: Any = make_bot("search", game, i)
        search.iterations, search.seconds = deals, 1e9
        quick: Any = make_bot("quick", game, i)
        quick.iterations, quick.seconds = deals * len(roots), 1e9
        t0 = time.thread_time()
        search.search(state, roots)
        cpu["search"] += time.thread_time() - t0
        rollouts["search"] += deals * len(roots)
        t0 = time.thread_time()
        quick.search(state, roots)
        cpu["quick"] += time.thread_time() - t0
        rollouts["quick"] += quick.rollouts
    per = {k: cpu[k] / rollouts[k] for k in cpu}
    print(f"{game}, {players} players: {len(positions)} searched positions, {deals} deals "
          f"of every root "
          f"(search) or as many rollouts (quick, roots pruned): CPU per rollout "
          f"search {per['search'] * 1000:.3f} ms, quick {per['quick'] * 1000:.3f} ms, "
          f"ratio {per['search'] / per['quick']:.1f}x", flush=True)


def agreement(game: str, count: int, deals: int, budget: float) -> None:
    positions = searched_positions(game, count)
    agree = {"search": 0, "quick": 0}
    leave = {"search": 0, "quick": 0, "reference": 0}
    regret = {"search": 0.0, "quick": 0.0}
    for i, (state, roots) in enumerate(positions):
        reference: Any = make_bot("quick", game, 10_000 + i)
        reference.iterations, reference.seconds = deals * len(roots), 1e9
        ref = reference.search(state, roots)
        worth = reference.loop.last
        leave["reference"] += ref != roots[0]
        for k in range(3):
            for level in ("search", "quick"):
                bot = budgeted(level, game, 10 * i + k, budget)
                choice = bot.search(state, roots)
                agree[level] += choice == ref
                leave[level] += choice != roots[0]
                regret[level] += worth[roots.index(ref)] - worth[roots.index(choice)]
    n = 3 * len(positions)
    print(f"{game}: {len(positions)} searched positions x 3 seeds, {budget * 1000:.0f} ms "
          f"CPU a decision: the long search's choice (quick, {deals} deals a root) "
          f"chosen by search {agree['search'] / n:.0%}, quick {agree['quick'] / n:.0%}; "
          f"the greedy choice left by search {leave['search'] / n:.0%}, quick "
          f"{leave['quick'] / n:.0%}, the long search "
          f"{leave['reference'] / len(positions):.0%}; mean regret by the long search's "
          f"rewards, search {regret['search'] / n:.4f}, quick {regret['quick'] / n:.4f}",
          flush=True)


def ranking(count: int, deals: int, players: int) -> None:
    """King of the Elves: the greedy bot's ranking of building actions on one deal of
    the hidden cards (the quick level's roots) against its mean over ``deals`` deals:
    CPU a ranking, and how often one deal's best is the mean's best or among one deal's
    best three (the level's two-player roots)."""
    from elfenland.bots.kingelves_greedy import KingOfTheElvesGreedyBot

    positions = searched_positions("king-of-the-elves", count, players)
    cpu: list[float] = []
    same = within = 0
    for i, (state, _) in enumerate(positions):
        legal = state.legal_actions()
        greedy = KingOfTheElvesGreedyBot(i)
        t0 = time.thread_time()
        one = [a for _, a in greedy.rank(state, legal)]
        cpu.append(time.thread_time() - t0)
        best = greedy.rank(state, legal, deals)[0][1]
        same += one[0] == best
        within += best in one[:3]
    n = len(positions)
    print(f"king-of-the-elves, {players} players: {n} building decisions of greedy games; "
          f"a ranking {statistics.median(cpu) * 1000:.2f} ms CPU (median); one deal's best "
          f"is the best of {deals} deals' mean in {same / n:.1%}, that best among one "
          f"deal's best three in {within / n:.1%}", flush=True)


def parallel(game: str, count: int, budget: float) -> None:
    """Root parallelism: the quick level with one worker and with two on the same
    positions, in turns (which goes first alternates), each decision ``budget`` wall
    seconds (``time.perf_counter``, as in a game): rollouts per wall second, the wall
    time a decision took, and what forking cost (the forks, and the wait for the
    worker after the parent's own share)."""
    positions = searched_positions(game, count)
    rollouts = {1: 0, 2: 0}
    walls: dict[int, list[float]] = {1: [], 2: []}
    forks: list[float] = []
    fork_cpu: list[float] = []
    waits: list[float] = []
    lost = 0
    load = os.getloadavg()[0]
    for i, (state, roots) in enumerate(positions):
        for workers in ((1, 2) if i % 2 == 0 else (2, 1)):
            bot: Any = make_bot("quick", game, i)
            bot.seconds, bot.iterations, bot.loop.workers = budget, 10**9, workers
            t0 = time.perf_counter()
            bot.search(state, roots)
            walls[workers].append(time.perf_counter() - t0)
            rollouts[workers] += bot.rollouts
            if workers == 2:
                fan = bot.loop.fanout
                forks.append(fan.fork_seconds)
                fork_cpu.append(fan.fork_cpu)
                waits.append(fan.wait_seconds)
                lost += sum(share is None for share in fan.shares)
    rate = {w: rollouts[w] / sum(walls[w]) for w in walls}
    print(f"{game}: {len(positions)} searched positions, {budget * 1000:.0f} ms wall a "
          f"decision, in turns: rollouts per wall second 1 worker {rate[1]:.0f}, "
          f"2 workers {rate[2]:.0f}, ratio {rate[2] / rate[1]:.2f}x; wall per decision "
          f"1 worker {spread(walls[1])}, 2 workers {spread(walls[2])}; per decision "
          f"fork {statistics.mean(forks) * 1000:.1f} ms wall, "
          f"{statistics.mean(fork_cpu) * 1000:.2f} ms CPU, wait for the worker "
          f"{statistics.mean(waits) * 1000:.1f} ms (max {max(forks) * 1000:.1f}, "
          f"{max(waits) * 1000:.1f}); workers lost {lost}; load average {load:.2f} -> "
          f"{os.getloadavg()[0]:.2f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, default="elfenland")
    parser.add_argument("--match", choices=tuple(SEATS), default="four")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--first", type=int, default=0, help="index of the first game")
    parser.add_argument("--budget", type=float, default=0.03,
                        help="CPU seconds per decision, for both bots")
    parser.add_argument("--log", default=None, help="append each game here (JSON lines)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting of the quick level (screening variants)")
    parser.add_argument("--search-scale", type=float, default=1.0,
                        help="the search level's budget is --budget times this")
    parser.add_argument("--search-pure", action="store_true",
                        help="the search bots' journey plans by the pure planner")
    parser.add_argument("--quick-pure", action="store_true",
                        help="the quick bot's journey plans by the pure planner")
    parser.add_argument("--oracle", choices=tuple(ORACLE_KINDS), default=None,
                        help="the quick level's deals know these cards of the rivals' "
                             "hands (a diagnostic; Elfenland: hands, transport, counters)")
    parser.add_argument("--oracle-seen", type=int, default=None, metavar="K",
                        help="--oracle only where every rival has made K building "
                             "decisions this round (K < 0: fewer than -K)")
    parser.add_argument("--oracle-fixed", action="store_true",
                        help="--oracle tells one random deal per decision, not the truth")
    parser.add_argument("--summarise", nargs="+", default=None, metavar="LOG")
    parser.add_argument("--compare", nargs=2, default=None, metavar=("A", "B"),
                        help="two logs, paired by deal: B's share minus A's")
    parser.add_argument("--only", choices=("timing", "speed", "agreement", "parallel",
                                           "cost", "roots", "compiled", "ranking"),
                        default=None)
    parser.add_argument("--positions", type=int, default=50,
                        help="--only speed, agreement, parallel")
    parser.add_argument("--deals", type=int, default=10, help="--only speed, agreement")
    args = parser.parse_args()
    SEARCH_SCALE[0] = args.search_scale
    PURE_PLANNER.update(level for level, on in (("search", args.search_pure),
                                                ("quick", args.quick_pure)) if on)
    for setting in args.set:
        name, _, value = setting.partition("=")
        SETTINGS[name] = float(value)
    if args.oracle and args.oracle_fixed:
        import random
        FIXED.append(random.Random(args.first))
    if args.oracle and args.game == "elfenland":
        if args.oracle not in ("hands", "transport", "counters", "kept") or (
                FIXED and args.oracle != "hands"):
            raise SystemExit("--oracle: Elfenland is told the whole position (hands), "
                             "the travel cards (transport) or the secret counters "
                             "(counters)")
        oracle_elfenland(args.oracle)
        TOLD.append((10.0 if FIXED else 0.0)
                    + float(tuple(ORACLE_KINDS).index(args.oracle) + 1))
    elif args.oracle:
        if args.oracle_seen is not None:
            ORACLE_SEEN.append(args.oracle_seen)
        oracle(ORACLE_KINDS[args.oracle])
        TOLD.append(float(tuple(ORACLE_KINDS).index(args.oracle) + 1)
                    + (10.0 if FIXED else 0.0))
    if args.compare:
        compare(runs_shares(args.compare[0]), runs_shares(args.compare[1]))
        return 0
    if args.summarise:
        summarise([row for name in args.summarise for row in read_log(name)])
        return 0
    if args.only == "agreement":
        agreement(args.game, args.positions, args.deals, args.budget)
        return 0
    if args.only == "parallel":
        parallel(args.game, args.positions, args.budget)
        return 0
    if args.only == "speed":
        speed(args.game, args.positions, args.deals, SEATS[args.match])
        return 0
    if args.only == "cost":
        if args.game != "elfenland":
            raise SystemExit("--only cost: Elfenland (its rollouts' compiled planner)")
        rollout_cost(args.positions, args.deals, 2 if args.match == "two" else 4)
        return 0
    if args.only == "compiled":
        compiled_rollouts(args.positions, args.deals, 2 if args.match == "two" else 4)
        return 0
    if args.only == "roots":
        if args.game != "elfenland":
            raise SystemExit("--only roots: Elfenland (its placements)")
        root_width(args.positions, args.deals, 2 if args.match == "two" else 4)
        return 0
    if args.only == "ranking":
        ranking(args.positions, args.deals, SEATS[args.match])
        return 0
    if args.only == "timing":
        timing(args.game, args.games)
        return 0
    rows = []
    out = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
    try:
        for i in range(args.first, args.first + args.games):
            r = play(args.game, args.match, i, args.budget)
            rows.append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
            print(f"  game {i}: quick share {r['share']:.2f}, running "
                  f"{sum(x['share'] for x in rows) / len(rows):.1%} over {len(rows)}",
                  file=sys.stderr, flush=True)
    finally:
        if out:
            out.close()
    summarise(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
