"""A newcomer's way to the first placed counter: clicks, scrolls and seconds from opening
the site to the first transport counter on a road, at a desk (1280×800), in Debian's
Chromium, against the server as shipped (its default bot delay).

The newcomer takes the lobby's defaults (4 players, 3 bots), clicks "Create", then does
what each prompt asks with the first thing offered: draws the secret counter, takes
face-up counters, picks a counter and a road, confirms when asked.  Nothing is typed.

    python bench/first_counter.py [--runs 3] [--src DIR] [--pace server] [--learn]

``--src`` serves another checkout's code (its ``src`` directory, e.g. a worktree of the
code before a change) so that "before" and "after" are measured side by side, one run
after the other on the same machine.  ``--pace server`` shows the bots' moves as fast
as the server plays them (the page's pace setting), to tell the page's own time from the
readable pace a first table starts with; ``--learn`` takes "Learn to play" instead of
"Create" (one easy bot, the guide pointing at what to click).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from playwright.sync_api import Page, sync_playwright

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
DESK = {"width": 1280, "height": 800}
PLACED = """() => { const p = window.__elfenland && window.__elfenland.page;
  return !!p && (p.log || []).some((e) => e.player === p.seat && e.action.startsWith('place')); }"""
MY_TURN = "() => document.querySelector('#turn.mine') !== null"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def below_fold(page: Page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is None or box["y"] + box["height"] > DESK["height"]


def click(page: Page, selector: str, counts: dict[str, int]) -> None:
    target = page.locator(selector).first
    if below_fold(page, selector):
        counts["scrolls"] += 1
    target.click()
    counts["clicks"] += 1
    ok = page.locator(".confirm #confirm-ok")
    if ok.count() and ok.is_visible():
        ok.click()
        counts["clicks"] += 1


def newcomer(page: Page, base: str, learn: bool = False) -> dict[str, float]:
    counts = {"clicks": 0, "scrolls": 0}
    t0 = time.perf_counter()
    page.goto(f"{base}/")
    page.wait_for_selector("body[data-ready='1']")
    click(page, "#learn-btn" if learn else "#create-btn", counts)
    page.wait_for_selector(".game .panel", timeout=30000)
    deadline = time.monotonic() + 240
    while not page.evaluate(PLACED):
        if time.monotonic() > deadline:
            raise TimeoutError("no counter placed in 4 minutes")
        if not page.evaluate(MY_TURN):
            page.wait_for_timeout(50)
            continue
        before = page.evaluate("document.body.dataset.seq")
        if page.locator("[data-action^='place ']:not([disabled])").count():
            click(page, "[data-action^='place ']:not([disabled])", counts)
        elif page.locator("[data-select]:not(.obstacle)").count() and \
                page.evaluate("window.__elfenland.page.view.phase") == "place":
            click(page, "[data-select]", counts)
            continue
        elif page.locator("[data-action^='draw ']:not([disabled])").count():
            click(page, "[data-action^='draw ']:not([disabled])", counts)
        else:
            click(page, "[data-action]:not([disabled])", counts)
        page.wait_for_function("s => document.body.dataset.seq !== s || "
                               f"({PLACED})()", arg=before, timeout=30000)
    return {**counts, "seconds": time.perf_counter() - t0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--src", help="serve the code of this src directory instead")
    parser.add_argument("--pace", help="the page's pace setting (e.g. server)")
    parser.add_argument("--learn", action="store_true", help='take "Learn to play"')
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ)
    if args.src:
        env["PYTHONPATH"] = os.path.abspath(args.src)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port),
             "--db", os.path.join(tmp, "bench.db"), "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(f"{base}/api/maps/elfenland", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.1)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                            args=CHROMIUM_ARGS)
                for _ in range(args.runs):
                    ctx = browser.new_context(viewport=DESK, locale="en-GB")
                    if args.pace:
                        ctx.add_init_script(
                            f"localStorage.setItem('elfenland.pace', {args.pace!r})")
                    results.append(newcomer(ctx.new_page(), base, args.learn))
                    ctx.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    how = ", ".join(x for x in (f"code from {args.src}" if args.src else "",
                                f"pace {args.pace}" if args.pace else "",
                                "Learn to play" if args.learn else "") if x)
    print(f"opening the site -> first counter placed, {len(results)} newcomers at 1280x800"
          + (f" ({how})" if how else ""))
    for key in ("clicks", "scrolls", "seconds"):
        values = [r[key] for r in results]
        print(f"  {key}: median {statistics.median(values):.1f} "
              f"(min {min(values):.1f}, max {max(values):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
