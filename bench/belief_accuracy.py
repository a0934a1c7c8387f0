"""How close the quick level's deals come to a rival's true hand, by what they are told.

    python bench/belief_accuracy.py --game king-of-the-elves --games 40 --first 70001
    python bench/belief_accuracy.py --game elfenland --games 40 --first 70001

Positions: games of two ``search`` bots (20 ms of thread CPU a decision), at each
building decision (King of the Elves, after the rival made two building decisions
of the round) or placement decision (Elfenland, after the rival laid a counter of the
round) with a choice.  At each, ``--deals`` deals of what the player cannot see, and
of each deal the rival's hand against its true hand:

- King of the Elves: the share of the six terrains where the deal's transport cards
  reach as the true ones do (``kingelves_search.reachable``), and the transport cards'
  distance (sum over kinds of the count's difference).  By the quick level's ``belief``
  (0: the engine's deals; 1-3 ``bots/kingelves_belief.py``), and, on each, weighted by
  likelihoods of the rival's building decisions of the round since its last unseen
  card (``--likelihood``): a town played into its own kingdom its hand cannot reach
  (``reach``), a town of less worth played while a better one it reaches is held
  (``value``), a pass with room in its kingdom and a town it reaches in hand (``pass``);
  and the greedy bot's model of all of them (``greedy``): each of those decisions
  replayed from the position it was made in, with the deal's hand as it then was, and
  scored by the likelihood the greedy bot's ranking gives the action taken (a softmax
  of its scores, in gold, at temperature ``GREEDY_TEMPERATURE``).
- Elfenland: the share of the seven kinds whose presence in the deal's hand is as in
  the true hand, the distance, and the share of deals that pay for every counter the
  rival laid this round (``bots/elfenland_belief.py``), by the odds ``eps`` with which a
  deal that does not is kept (1: the engine's deals); and, on the engine's deals and
  on ``eps`` 0.1, weighted by the greedy bot's model of the rival's draws and
  placements of the round (``elfenland_reading.Reading.likelihood``, the quick level's
  ``belief=3``): each replayed with the deal's travel cards and secret counters, a
  factor ``eps_draw`` or ``eps_place`` where the greedy bot would choose otherwise.

What a weighting is worth shows as accuracy gained; its effective sample size (the
share of the deals it keeps in effect) as its cost.  A diagnostic for issue #25: what
the public record can tell of the hidden cards, beside what knowing them is worth in
play (``bench/search_strength.py --oracle``).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import elfenland
from elfenland.bots import make_bot
from elfenland.bots.elfenland_belief import claims, missing, paying_deal
from elfenland.bots.elfenland_reading import Hidden, Reading, round_choices
from elfenland.bots.kingelves_belief import agreeing_deal, belief_of
from elfenland.bots.kingelves_greedy import KingOfTheElvesGreedyBot
from elfenland.bots.kingelves_search import reachable
from elfenland.core.rng import Rng
from elfenland.games.kingelves.actions import Kind
from elfenland.games.kingelves.actions import from_id as koe_action
from elfenland.games.kingelves.cards import town_value

#: King of the Elves likelihood factors (the odds of a decision the hand makes unlikely).
LIKELIHOODS: dict[str, dict[str, float]] = {
    "reach": {"reach": 0.1, "value": 1.0, "pass": 1.0},
    "reach+value": {"reach": 0.1, "value": 0.5, "pass": 1.0},
    "reach+pass": {"reach": 0.1, "value": 1.0, "pass": 0.2},
    "all": {"reach": 0.1, "value": 0.5, "pass": 0.2},
}
#: The softmax temperature (gold) of the ``greedy`` likelihood (0.5 and 2 measured alike).
GREEDY_TEMPERATURE = 1.0
BUILDING = frozenset({Kind.PASS, Kind.NO_TOWN_CARD, Kind.DRAW, Kind.BUY, Kind.PLAY,
                      Kind.PLACE, Kind.REMOVE})
UNSEEN = frozenset({Kind.DRAW, Kind.BUY, Kind.NO_TOWN_CARD})


def koe_round(s: Any) -> list[tuple[int, int, Any, Any]]:
    """The log of the round under way (a round ends when every player has stopped)."""
    log = list(s.log)
    stops = start = 0
    for i, entry in enumerate(log):
        if koe_action(entry[1]).kind is Kind.STOP:
            stops += 1
            if stops % s.n == 0:
                start = i + 1
    return log[start:]


def koe_made(s: Any, p: int) -> int:
    return sum(1 for e in koe_round(s) if e[0] == p and koe_action(e[1]).kind in BUILDING)


def koe_likelihood(s: Any, hand: Sequence[int], r: int, f: dict[str, float]) -> float:
    """The rival ``r``'s building decisions of the round, read back from the end while
    its hand then is known from ``hand`` (up to its last unseen card)."""
    h = list(hand)
    own = len(s.kingdoms[r])
    cap = 3 if s.n == 2 else 2
    w = 1.0
    for entry in reversed(koe_round(s)):
        a = koe_action(entry[1])
        if entry[0] != r:
            own -= a.kind is Kind.PLAY and a.kingdom == r
            continue
        if a.kind in UNSEEN:
            break
        if a.kind is Kind.TAKE:
            h[a.card] -= 1
            if h[a.card] < 0:
                break
        elif a.kind is Kind.DISCARD:
            h[a.card] += 1
        elif a.kind is Kind.REMOVE:
            own += 1
        elif a.kind is Kind.PLACE:
            h[a.card] += 1
        elif a.kind is Kind.PLAY:
            h[a.card] += 1
            if a.kingdom == r:
                own -= 1
                if not reachable(h, a.card):
                    w *= f["reach"]
                elif any(h[t] and t != a.card and reachable(h, t)
                         and town_value(t) > town_value(a.card) for t in range(6)):
                    w *= f["value"]
        elif a.kind is Kind.PASS and own < cap \
                and any(h[t] and reachable(h, t) for t in range(6)):
            w *= f["pass"]
    return w


def greedy_likelihood(s: Any, hand: Sequence[int], r: int, past: dict[int, Any],
                      greedy: KingOfTheElvesGreedyBot) -> float:
    """The rival ``r``'s building decisions of the round (back to its last unseen
    card), each replayed from the position it was made in with ``hand`` as it then was
    (the cards it has since played, placed or discarded given back, a town taken given
    up), scored by the softmax of the greedy bot's ranking there."""
    h = list(hand)
    log = list(s.log)
    start = len(log) - len(koe_round(s))
    w = 1.0
    for k in range(len(log) - 1, start - 1, -1):
        who, aid = log[k][0], log[k][1]
        if who != r:
            continue
        a = koe_action(aid)
        if a.kind in UNSEEN:
            break
        c = int(a.card or 0)
        if a.kind is Kind.TAKE:
            h[c] -= 1
            if h[c] < 0:
                return 0.0
        elif a.kind in (Kind.DISCARD, Kind.PLACE, Kind.PLAY):
            h[c] += 1
        then = past.get(k)
        if then is None or a.kind not in BUILDING:
            continue
        t = then.clone()
        true = t.hands[r]
        t.hands = [list(h) if q == r else t.hands[q] for q in range(t.n)]
        t.deck = [max(0, d + x - y) for d, x, y in zip(t.deck, true, h, strict=True)]
        legal = t.legal_actions()
        if a not in legal:
            return 0.0
        scores = {b: v for v, b in greedy.rank(t, legal)}
        if a not in scores:
            continue
        top = max(scores.values())
        total = sum(math.exp((v - top) / GREEDY_TEMPERATURE) for v in scores.values())
        w *= math.exp((scores[a] - top) / GREEDY_TEMPERATURE) / total
    return w


def positions(game: str, first: int, games: int,
              wanted: Callable[[Any, int], bool]) -> list[tuple[Any, dict[int, Any]]]:
    """The positions, each with the building positions of its game before it (King of
    the Elves), by the length of the log when each was met."""
    out = []
    for deal in range(first, first + games):
        bots = []
        for q in range(2):
            bot: Any = make_bot("search", game, deal * 16 + q)
            bot.seconds, bot.iterations, bot.clock = 0.02, 10**9, time.thread_time
            bots.append(bot)
        s: Any = elfenland.new_game(game, players=2, seed=deal)
        past: dict[int, Any] = {}
        while not s.is_terminal():
            p = s.current_player()
            several = len(s.legal_actions()) > 1
            if several:
                past[len(s.log)] = s.clone()
            if several and wanted(s, p):
                out.append((s.clone(), dict(past)))
            s.apply_action(bots[p].choose(s))
    return out


def weighted(ws: Sequence[float], xs: Sequence[float]) -> float:
    return sum(w * x for w, x in zip(ws, xs, strict=True)) / sum(ws)


def ess(ws: Sequence[float]) -> float:
    return sum(ws) ** 2 / sum(w * w for w in ws) / len(ws)


def king_of_the_elves(pos: list[tuple[Any, dict[int, Any]]], deals: int,
                      rng: random.Random) -> None:
    greedy = KingOfTheElvesGreedyBot(7)
    for level in (0, 1, 2, 3):
        names = ("none", *LIKELIHOODS, "greedy")
        rows: dict[str, list[float]] = {m: [0.0, 0.0, 0.0] for m in names}
        for s, past in pos:
            me = s.current
            r = 1 - me
            truth = [reachable(s.hands[r], t) for t in range(6)]
            belief = belief_of(s, level >= 2) if level else None
            hands = []
            for _ in range(deals):
                det = s.resample_from_infostate(me, Rng(rng.randrange(2**63)))
                if belief is not None:
                    agreeing_deal(det, me, belief, rng, reach=level >= 3)
                hands.append(list(det.hands[r]))
            acc = [sum(reachable(h, t) == truth[t] for t in range(6)) / 6 for h in hands]
            dist = [float(sum(abs(h[c] - s.hands[r][c]) for c in range(6, 13)))
                    for h in hands]
            for name in rows:
                ws = ([1.0] * deals if name == "none"
                      else [greedy_likelihood(s, h, r, past, greedy) for h in hands]
                      if name == "greedy"
                      else [koe_likelihood(s, h, r, LIKELIHOODS[name]) for h in hands])
                if not any(ws):
                    ws = [1.0] * deals
                rows[name][0] += weighted(ws, acc)
                rows[name][1] += weighted(ws, dist)
                rows[name][2] += ess(ws)
        print(f"belief={level}, {len(pos)} positions, {deals} deals each")
        for name, (a, d, e) in rows.items():
            n = len(pos)
            print(f"  {name:12s} reach agrees {a / n:.4f}  transport distance {d / n:.3f}"
                  f"  effective deals {e / n:.2f}")


def elfenland_game(pos: list[tuple[Any, dict[int, Any]]], deals: int,
                   rng: random.Random) -> None:
    likelihoods = ((0.05, 0.3), (0.2, 0.5), (0.01, 0.1))
    readings = {e: Reading(0, random.Random(7), eps_draw=e[0], eps_place=e[1])
                for e in likelihoods}
    lrows = {(b, e): [0.0, 0.0, 0.0] for b in (1.0, 0.1) for e in likelihoods}
    truth_w = {e: 0.0 for e in likelihoods}
    started = time.process_time()
    epss = (1.0, 0.5, 0.3, 0.1, 0.03, 0.0)
    rows = {e: [0.0, 0.0, 0.0] for e in epss}
    truth_pays = 0
    for s, past in pos:
        me = s.current
        r = 1 - me
        need = claims(s, me)
        true = s.hands[r]
        truth_pays += missing(true, need.get(r, ())) == 0
        log = s.log
        choices = round_choices(log, me)
        for e, reading in readings.items():
            # The positions the rival chose in, from the game's record of them (the
            # level rebuilds them from its own); the deal's parts put in over them.
            reading.recall(me, past)
            truth_w[e] += reading.likelihood(log, Hidden(s.hands, s.counters_secret),
                                             choices)
        for e in epss:
            acc, dist, pays = [], [], []
            for _ in range(deals):
                det = s.resample_from_infostate(me, Rng(rng.randrange(2**63)))
                if e < 1.0:
                    paying_deal(det, me, need, rng, eps=e)
                h = det.hands[r]
                acc.append(sum((h[k] > 0) == (true[k] > 0) for k in range(7)) / 7)
                dist.append(float(sum(abs(h[k] - true[k]) for k in range(7))))
                pays.append(float(missing(h, need.get(r, ())) == 0))
            for i, xs in enumerate((acc, dist, pays)):
                rows[e][i] += sum(xs) / deals
            if e not in (1.0, 0.1):
                continue
            hands, hidden = [], []
            for _ in range(deals):
                det = s.resample_from_infostate(me, Rng(rng.randrange(2**63)))
                if e < 1.0:
                    paying_deal(det, me, need, rng, eps=e)
                hands.append(list(det.hands[r]))
                hidden.append(Hidden(det.hands, det.counters_secret))
            acc = [sum((h[k] > 0) == (true[k] > 0) for k in range(7)) / 7 for h in hands]
            dist = [float(sum(abs(h[k] - true[k]) for k in range(7))) for h in hands]
            for like in likelihoods:
                ws = [readings[like].likelihood(log, h, choices) for h in hidden]
                row = lrows[e, like]
                row[0] += weighted(ws, acc)
                row[1] += weighted(ws, dist)
                row[2] += ess(ws)
    n = len(pos)
    print(f"{n} positions, {deals} deals each; the true hand pays for every counter its "
          f"player laid this round in {truth_pays / n:.3f}")
    for e, (a, d, p) in rows.items():
        print(f"  eps {e:4}: kinds held agree {a / n:.4f}  distance {d / n:.3f}"
              f"  deals paying {p / n:.3f}")
    print("greedy likelihood (eps of a draw, of a placement the greedy bot would not make):")
    for like, w in truth_w.items():
        print(f"  {like}: the true hand's mean likelihood {w / n:.3f}")
    for (base, like), (agree, dist, kept) in lrows.items():
        print(f"  on eps {base:4}, {like}: kinds held agree {agree / n:.4f}"
              f"  distance {dist / n:.3f}  effective deals {kept / n:.2f}")
    print(f"CPU {time.process_time() - started:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=("elfenland", "king-of-the-elves"),
                        default="king-of-the-elves")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--first", type=int, default=70001)
    parser.add_argument("--deals", type=int, default=64)
    args = parser.parse_args()
    rng = random.Random(args.first)
    if args.game == "king-of-the-elves":
        from elfenland.games.kingelves.state import Pending, Phase

        pos = positions(args.game, args.first, args.games, lambda s, p:
                        s.phase is Phase.BUILDING and s.pending is Pending.NONE
                        and koe_made(s, 1 - p) >= 2)
        king_of_the_elves(pos, args.deals, rng)
    else:
        from elfenland.games.elfenland.state import Phase as EPhase

        pos = positions(args.game, args.first, args.games, lambda s, p:
                        s.phase is EPhase.PLACE and bool(claims(s, p)))
        elfenland_game(pos, args.deals, rng)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
