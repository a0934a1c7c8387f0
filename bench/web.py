"""How fast the browser page loads and draws the Elfenland board on loopback, and proof
that no request leaves the server.

Starts ``elfenland serve`` on a free loopback port (temporary SQLite, bots without delay),
creates a game against three bots, then opens its page in Debian's Chromium several
times and prints, per load, the time from navigation to the board drawn with the seat's
view (towns, roads and the controls of the first phase on screen).

    python bench/web.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from urllib.parse import urlparse

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
DRAWN = ("() => document.querySelectorAll('.board .town').length === 21"
         " && document.querySelector('#turn.mine') !== null")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(url: str, body: dict[str, object]) -> dict[str, object]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read())  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port),
             "--db", os.path.join(tmp, "bench.db"), "--bot-delay", "0",
             "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(f"{base}/api/maps/elfenland", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.1)
            created = post(f"{base}/api/games", {
                "game": "elfenland", "players": 4, "name": "Bench",
                "seats": [{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 3})
            game = created["game"]
            assert isinstance(game, dict)
            gid, token = game["id"], created["token"]
            post(f"{base}/api/games/{gid}/start", {"token": token})
            seats = json.dumps({gid: {"seat": 0, "token": token, "name": "Bench"}})
            outside: list[str] = []
            times: list[float] = []
            inpage: list[float] = []
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                            args=CHROMIUM_ARGS)
                for run in range(args.runs):
                    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
                    ctx.add_init_script(f"localStorage.setItem('elfenland.seats', {seats!r})")
                    page = ctx.new_page()
                    page.on("request", lambda r: outside.append(r.url)
                            if urlparse(r.url).hostname not in ("127.0.0.1", None)
                            and not r.url.startswith("data:") else None)
                    t0 = time.perf_counter()
                    page.goto(f"{base}/#/game/{gid}")
                    page.wait_for_function(DRAWN, polling="raf", timeout=10000)
                    times.append(time.perf_counter() - t0)
                    # The same moment as the page saw it, from its navigation start.
                    inpage.append(float(page.evaluate("performance.now()")))
                    if run == 0:
                        nav = page.evaluate("JSON.stringify(performance.getEntriesByType("
                                            "'navigation')[0].toJSON())")
                        dcl = json.loads(nav)["domContentLoadedEventEnd"]
                    ctx.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    ms = [t * 1000 for t in times]
    print(f"page load + board drawn, {len(ms)} cold loads (new browser context each):")
    print(f"  in the page (navigation start -> board and first turn on screen): "
          f"median {statistics.median(inpage):.0f} ms, max {max(inpage):.0f} ms")
    print(f"  wall clock seen by the test driver: first {ms[0]:.0f} ms, "
          f"median {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms  "
          f"(DOMContentLoaded of the first: {dcl:.0f} ms)")
    print(f"  requests to anything but the server: {len(outside)}"
          + (f" {sorted(set(outside))}" if outside else ""))
    ok = statistics.median(ms) < 1000 and not outside
    print("OK: median under 1 s and nothing fetched from outside" if ok else "NOT OK")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
