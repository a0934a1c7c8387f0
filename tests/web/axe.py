"""axe-core (the accessibility rules engine, MPL-2.0) for the browser tests. It is a test
tool, not part of the product, so it is not in the repository: the first run fetches the
pinned version from the npm registry (`npm pack`) into `.cache/axe-core/` (or
`$ELFENLAND_AXE_DIR`), `.ci/run` does the same up front, and a run that cannot get it
fails."""

from __future__ import annotations

import os
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE_VERSION = "4.10.2"
ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("ELFENLAND_AXE_DIR", ROOT / ".cache" / "axe-core"))


def axe_script() -> Path:
    """The path of axe.min.js, fetched once if not there yet."""
    js = CACHE / AXE_VERSION / "package" / "axe.min.js"
    if js.exists():
        return js
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run(["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", tmp],
                           check=True, capture_output=True, timeout=180)
        except (OSError, subprocess.SubprocessError) as exc:
            raise RuntimeError(f"axe-core {AXE_VERSION} is needed for the accessibility "
                               f"tests and could not be fetched with npm: {exc}") from exc
        (tgz,) = Path(tmp).glob("axe-core-*.tgz")
        with tarfile.open(tgz) as tar:
            tar.extractall(CACHE / AXE_VERSION, filter="data")
    return js


def serious_violations(page: Page) -> list[dict[str, Any]]:
    """axe's serious and critical violations on the page as it is now (WCAG 2 A/AA rules)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol, not added as a <script>: the page's
        # Content-Security-Policy (script-src 'self') refuses inline scripts.
        page.evaluate(axe_script().read_text(encoding="utf-8") + "\n;undefined")
    found = page.evaluate("""async () => {
      const r = await axe.run(document, { runOnly: { type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
      return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ')) }));
    }""")
    return [v for v in found if v["impact"] in ("serious", "critical")]
