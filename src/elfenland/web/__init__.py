"""The browser client: plain static files (HTML, CSS, ES modules, translations) that the
server mounts at ``/``.  Nothing here is built or fetched from elsewhere, so the page works
offline and a user never runs a build step."""

from __future__ import annotations

from pathlib import Path
from typing import Final

#: The folder the server serves at ``/`` (``index.html`` is the page).
STATIC_DIR: Final[Path] = Path(__file__).resolve().parent / "static"
