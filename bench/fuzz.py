"""Fuzz the engines' boundary (issue #22) for a while and report what it did.

    python bench/fuzz.py --minutes 10           # atheris over positions and saved games
    python bench/fuzz.py --minutes 1 --gcov     # + line coverage of both _speedups.c
    python bench/fuzz.py --minutes 5 --machine  # + the Hypothesis state machine, longer

The coverage-guided fuzzer (atheris, libFuzzer for Python and its C extensions) mutates
a seed corpus of positions and saved games from real games (``tests/fuzz/documents.py``)
and loads each input on both engines of its game, which must agree and raise only typed
errors.  A finding is left in ``--artifacts`` (``crash-*``); copy it to
``tests/fuzz/findings/`` as a ``.json`` file so that it stays a regression test.

``--gcov`` builds both compiled engines with ``--coverage`` into a temporary copy of the
sources and reports the lines of each ``_speedups.c`` the run executed (gcov).  Prints
executions, executions per second, crashes and coverage.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("elfenland", "kingelves")


def build_with_coverage(dest: Path) -> Path:
    """A copy of ``src`` whose two engines are built with ``--coverage`` (-O0)."""
    src = dest / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    include = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for game in ENGINES:
        folder = src / "elfenland" / "games" / game
        obj = folder / "_speedups.o"
        subprocess.run(["gcc", "-c", "-fPIC", "-O0", "--coverage", f"-I{include}",
                        str(folder / "_speedups.c"), "-o", str(obj)], check=True)
        subprocess.run(["gcc", "-shared", "--coverage", str(obj), "-o",
                        str(folder / f"_speedups{suffix}")], check=True)
    planner = src / "elfenland" / "bots"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", f"-I{include}",
                    str(planner / "_planner.c"), "-o", str(planner / f"_planner{suffix}")],
                   check=True)
    return src


def coverage(src: Path) -> dict[str, str]:
    """gcov's "Lines executed" of each engine's _speedups.c."""
    out = {}
    for game in ENGINES:
        folder = src / "elfenland" / "games" / game
        run = subprocess.run(["gcov", "-n", "-o", str(folder), str(folder / "_speedups.c")],
                             capture_output=True, text=True, cwd=folder)
        found = re.search(r"File '.*_speedups\.c'\nLines executed:([\d.]+% of \d+)", run.stdout)
        out[game] = found.group(1) if found else "(no data)"
    return out


def run_atheris(seconds: float, corpus: Path, artifacts: Path, env: dict[str, str]
                ) -> tuple[int, int, float]:
    """(executions, crashes, seconds) of one libFuzzer run in a child process."""
    artifacts.mkdir(parents=True, exist_ok=True)
    work = corpus.parent / "grown"
    work.mkdir(exist_ok=True)
    cmd = [sys.executable, "-m", "tests.fuzz.atheris_main", str(work), str(corpus),
           f"-max_total_time={max(1, int(seconds))}", f"-artifact_prefix={artifacts}/",
           "-rss_limit_mb=4096", "-timeout=60", "-print_final_stats=1"]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.monotonic() - start
    runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", proc.stderr)
    done = re.findall(r"Done (\d+) runs", proc.stderr)
    executions = int((runs or done or ["0"])[-1])
    crashes = len(list(artifacts.glob("crash-*"))) + len(list(artifacts.glob("timeout-*")))
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        crashes = max(crashes, 1)
    return executions, crashes, took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--gcov", action="store_true",
                        help="build with --coverage and report _speedups.c line coverage")
    parser.add_argument("--machine", action="store_true",
                        help="also run the Hypothesis state machine (a share of the time)")
    parser.add_argument("--artifacts", type=Path, default=ROOT / ".cache" / "fuzz")
    parser.add_argument("--games", type=int, default=20, help="real games in the seed corpus")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.fuzz.documents import seed_corpus

    env = dict(os.environ)
    env.pop("ELFENLAND_ENGINE", None)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        src = build_with_coverage(tmp_path) if args.gcov else ROOT / "src"
        env["PYTHONPATH"] = os.pathsep.join([str(src), str(ROOT)])
        corpus = tmp_path / "corpus"
        seeds = seed_corpus(corpus, games=args.games)
        seconds = args.minutes * 60
        machine = seconds / 3 if args.machine else 0.0
        executions, crashes, took = run_atheris(seconds - machine, corpus, args.artifacts, env)
        print(f"atheris: {seeds} seed documents, {executions:,} executions in {took:.0f} s "
              f"({executions / max(took, 1e-9):,.0f}/s), {crashes} crash(es)"
              + (f" in {args.artifacts}" if crashes else ""))
        if machine:
            examples = max(25, int(machine * 8))
            env["ELFENLAND_FUZZ_EXAMPLES"] = str(examples)
            start = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                   "tests/fuzz/test_boundary_machine.py"], cwd=ROOT, env=env)
            print(f"state machine: {examples} runs of 40 steps per game in "
                  f"{time.monotonic() - start:.0f} s, "
                  f"{'no failure' if proc.returncode == 0 else 'FAILED'}")
            crashes += proc.returncode != 0
        if args.gcov:
            for game, lines in coverage(src).items():
                print(f"gcov: games/{game}/_speedups.c lines executed {lines}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
