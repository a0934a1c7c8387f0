"""``elfenland serve`` and ``elfenland cluster`` as an operator types them: a value out
of range, from the command line or an ``ELFENLAND_*`` variable, is refused with the
option's name before anything starts; an unreachable database is one line, not a
traceback."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from elfenland.cli import main


@pytest.mark.parametrize(("argv", "said"), [
    (["serve", "--port", "99999"], "argument --port: a port is 0 to 65535, not 99999"),
    (["serve", "--port", "-1"], "argument --port: a port is 0 to 65535"),
    (["serve", "--bot-delay", "-5"], "argument --bot-delay: must be 0 or more"),
    (["serve", "--bot-time-limit", "0"], "argument --bot-time-limit: must be more than 0"),
    (["serve", "--rate", "nan"], "argument --rate: must be a finite number"),
    (["serve", "--drain-seconds", "inf"], "argument --drain-seconds: must be a finite"),
    (["serve", "--games-per-host", "0"], "argument --games-per-host: must be at least 1"),
    (["serve", "--max-connections", "-2"], "argument --max-connections: must be at least 1"),
    (["serve", "--header-timeout", "soon"], "argument --header-timeout: not a number"),
    (["cluster", "--db", "postgresql://x/y", "--processes", "0"],
     "argument --processes: must be at least 1"),
    (["cluster", "--db", "postgresql://x/y", "--port", "70000"], "argument --port: a port"),
])
def test_values_out_of_range_are_refused_before_anything_starts(
        argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err


def test_an_environment_variable_out_of_range_is_refused_with_its_reason(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ELFENLAND_BOT_DELAY", "-1")
    with pytest.raises(SystemExit) as exit_:
        main(["serve"])
    assert exit_.value.code == 2
    assert "ELFENLAND_BOT_DELAY='-1' is not a valid bot_delay: must be 0 or more" \
        in capsys.readouterr().err


def test_an_unreachable_database_is_one_line_and_exit_status_2() -> None:
    pytest.importorskip("psycopg_pool")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    done = subprocess.run(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", "0",
         "--db", f"postgresql://nobody@127.0.0.1:{closed}/nothing"],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "elfenland serve: the PostgreSQL store is unreachable" in done.stderr
    assert "Traceback" not in done.stderr
