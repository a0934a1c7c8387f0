"""Log output for operators: plain lines by default, or one JSON object per line
(``--log-format json``) for log collectors, and every ``serve`` option also read from an
``ELFENLAND_…`` environment variable (containers are configured that way)."""

from __future__ import annotations

import argparse
import json
import logging
import logging.config
import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

#: Prefix of the environment variables that set ``serve``'s options.
ENV_PREFIX = "ELFENLAND_"
TRUE = ("1", "true", "yes", "on")


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, and the exception."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class Repeats(logging.Filter):
    """Lets each message through once an interval, and says how many like it it held.

    psycopg's pool logs every failed reconnect, about six lines a second for as long as
    PostgreSQL is away: some 20,000 lines an hour of the same three messages, burying
    the server's own "the store is unavailable" and "back" lines.  A message is its
    logger, level and text before formatting (the pool's name and error vary in the
    arguments), so a new kind of failure still shows at once."""

    def __init__(self, interval: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        #: Message -> [when last let through, how many held since].
        self._seen: dict[tuple[str, int, str], list[float]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.levelno, str(record.msg))
        now = self._clock()
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None and now - seen[0] < self.interval:
                seen[1] += 1
                return False
            held = int(seen[1]) if seen is not None else 0
            self._seen[key] = [now, 0]
        if held:
            record.msg = (f"{record.msg} ({held} more like it in the last "
                          f"{self.interval:g} s not shown)")
        return True


def quiet_repeats(logger_name: str, interval: float = 60.0) -> None:
    """Put a ``Repeats`` filter on a library's logger (once, however often asked)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, Repeats) for f in logger.filters):
        logger.addFilter(Repeats(interval))


def configure(log_format: str, level: str) -> None:
    """Route the server's and uvicorn's loggers to stderr in the chosen format."""
    formatter: dict[str, Any] = (
        {"()": JsonFormatter} if log_format == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"})
    handler = {"class": "logging.StreamHandler", "formatter": "main",
               "stream": "ext://sys.stderr"}
    loggers = {name: {"handlers": ["main"], "level": level.upper(), "propagate": False}
               for name in ("elfenland", "uvicorn", "uvicorn.error", "uvicorn.access")}
    logging.config.dictConfig({"version": 1, "disable_existing_loggers": False,
                               "formatters": {"main": formatter},
                               "handlers": {"main": handler}, "loggers": loggers})


def env_defaults(parser: argparse.ArgumentParser, prefix: str = ENV_PREFIX) -> None:
    """Let ``ELFENLAND_<OPTION>`` (``--bot-delay`` -> ``ELFENLAND_BOT_DELAY``) set each
    option's default; the command line still wins."""
    for action in parser._actions:
        if not action.option_strings or action.dest in ("help", "version"):
            continue
        raw = os.environ.get(prefix + action.dest.upper())
        if raw is None:
            continue
        value: Any
        if isinstance(action, argparse._StoreTrueAction):
            value = raw.strip().lower() in TRUE
        elif callable(action.type):
            try:
                value = action.type(raw)
            except (TypeError, ValueError) as exc:
                parser.error(f"{prefix}{action.dest.upper()}={raw!r} is not a valid "
                             f"{action.dest}: {exc}")
        else:
            value = raw
        if action.choices is not None and value not in action.choices:
            parser.error(f"{prefix}{action.dest.upper()} must be one of {action.choices}")
        action.default = value
