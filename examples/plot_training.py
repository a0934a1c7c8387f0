"""Draw a training log of ``train_selfplay.py --log`` as an SVG (no plotting library).

    python examples/plot_training.py /tmp/runs/elf4.jsonl docs/img/learned-elfenland.svg

Two panels, the same curves: the policy's win rate against three random players and
against three greedy bots (each evaluation's real game results, ties shared), over
wall-clock minutes of training and over the process's CPU minutes of training (the
evaluations themselves excluded from both).  The dashed line is a random seat's share.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

WIDTH, HEIGHT = 860, 360
PANEL_W, PANEL_H = 340, 250
SERIES = (("vs_random", "against 3 random", "#1f77b4"),
          ("vs_greedy", "against 3 greedy", "#d62728"))


def nice_step(span: float) -> float:
    raw = span / 6
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def panel(entries: list[dict[str, Any]], key: str, label: str, left: float,
          chance: float) -> list[str]:
    top = 40.0
    xs = [e[key] / 60 for e in entries]
    xmax = max(xs) if xs else 1.0
    step = nice_step(xmax)
    xmax = math.ceil(xmax / step) * step

    def px(x: float) -> float:
        return left + PANEL_W * x / xmax

    def py(y: float) -> float:
        return top + PANEL_H * (1 - y)

    out = [f'<rect x="{left}" y="{top}" width="{PANEL_W}" height="{PANEL_H}" '
           'fill="none" stroke="#444"/>']
    for i in range(6):
        y = i / 5
        out.append(f'<line x1="{left}" x2="{left + PANEL_W}" y1="{py(y):.1f}" '
                   f'y2="{py(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">'
                   f'{round(100 * y)}%</text>')
    x = 0.0
    while x <= xmax + 1e-9:
        out.append(f'<text x="{px(x):.1f}" y="{top + PANEL_H + 16}" '
                   f'text-anchor="middle">{x:g}</text>')
        x += step
    out.append(f'<text x="{left + PANEL_W / 2}" y="{top + PANEL_H + 34}" '
               f'text-anchor="middle">{label}</text>')
    out.append(f'<line x1="{left}" x2="{left + PANEL_W}" y1="{py(chance):.1f}" '
               f'y2="{py(chance):.1f}" stroke="#888" stroke-dasharray="4 3"/>')
    for name, _, colour in SERIES:
        points = [(px(x), py(e[name])) for x, e in zip(xs, entries, strict=True)
                  if isinstance(e.get(name), (int, float)) and not math.isnan(e[name])]
        if points:
            path = " ".join(f"{a:.1f},{b:.1f}" for a, b in points)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                       'stroke-width="2"/>')
    return out


def svg(entries: list[dict[str, Any]], title: str) -> str:
    players = int(entries[0]["players"]) if entries else 4
    chance = 1 / players
    body = [f'<text x="{WIDTH / 2}" y="22" text-anchor="middle" font-size="15">{title}</text>']
    body += panel(entries, "wall_s", "wall-clock minutes of training", 60, chance)
    body += panel(entries, "cpu_s", "CPU minutes of training", 480, chance)
    for k, (_, label, colour) in enumerate(SERIES):
        y = 345
        x = 60 + 200 * k
        body.append(f'<line x1="{x}" x2="{x + 24}" y1="{y - 4}" y2="{y - 4}" '
                    f'stroke="{colour}" stroke-width="2"/>')
        body.append(f'<text x="{x + 30}" y="{y}">{label}</text>')
    body.append('<line x1="460" x2="484" y1="341" y2="341" stroke="#888" '
                'stroke-dasharray="4 3"/>')
    body.append(f'<text x="490" y="345">a random seat ({round(100 * chance)}%)</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">\n'
            '<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log", help="JSON lines written by train_selfplay.py --log")
    parser.add_argument("out", help="the SVG file to write")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    entries = [json.loads(line) for line in Path(args.log).read_text().splitlines() if line]
    how = "Self-play PPO"
    if entries and entries[0].get("imitation_games"):  # cloned first (--imitate, --dagger)
        how = "Greedy cloned" + (" with DAgger" if entries[0].get("dagger_rounds") else "") \
            + ", then self-play PPO"
    title = args.title or (f"{how}, {entries[0]['game']}, {entries[0]['players']} "
                           "players: win rate of the policy" if entries else "")
    Path(args.out).write_text(svg(entries, title))


if __name__ == "__main__":
    main()
