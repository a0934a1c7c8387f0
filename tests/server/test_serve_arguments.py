"""``elfenland serve`` and ``elfenland cluster`` as an operator types them: a value out
of range, from the command line or an ``ELFENLAND_*`` variable, is refused with the
option's name before anything starts; an unreachable database is one line, not a
traceback."""

from __future__ import annotations

import json
import pathlib
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from elfenland.cli import main


@pytest.mark.parametrize(("argv", "said"), [
    (["serve", "--port", "99999"], "argument --port: a port is 0 to 65535, not 99999"),
    (["serve", "--public-url", "ftp://example.org"], "argument --public-url: an http(s)"),
    (["serve", "--public-url", "https://a:b@example.org"], "argument --public-url: an http"),
    (["serve", "--public-url", "https://example.org/?x=1"], "argument --public-url: an http"),
    (["serve", "--public-url", "https://example.org:99999"], "argument --public-url: not a"),
    (["serve", "--port", "-1"], "argument --port: a port is 0 to 65535"),
    (["serve", "--bot-delay", "-5"], "argument --bot-delay: must be 0 or more"),
    (["serve", "--bot-time-limit", "0"], "argument --bot-time-limit: must be more than 0"),
    (["serve", "--rate", "nan"], "argument --rate: must be a finite number"),
    (["serve", "--drain-seconds", "inf"], "argument --drain-seconds: must be a finite"),
    (["serve", "--games-per-host", "0"], "argument --games-per-host: must be at least 1"),
    (["serve", "--max-connections", "-2"], "argument --max-connections: must be at least 1"),
    (["serve", "--header-timeout", "soon"], "argument --header-timeout: not a number"),
    (["serve", "--new-players-per-hour", "0"],
     "argument --new-players-per-hour: must be more than 0"),
    (["serve", "--work-per-address", "-3"], "argument --work-per-address: must be more"),
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


def test_a_port_in_use_is_one_line_and_exit_status_2_before_anything_is_announced(
        tmp_path: pathlib.Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "elfenland.cli", "serve", "--port", str(port),
             "--db", str(tmp_path / "games.db")],
            capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"elfenland serve: cannot listen on 127.0.0.1:{port}: Address already in use" \
        in done.stderr
    assert "open http" not in done.stdout
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "games.db").exists()  # nothing opened for a server that never ran


def test_port_0_announces_the_port_the_system_chose(tmp_path: pathlib.Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", "0",
         "--db", str(tmp_path / "games.db")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"open http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        chosen = int(found.group(1))
        assert chosen != 0
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{chosen}/api/games",
                                            timeout=5) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, "the announced port never answered"
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_public_url_is_kept_without_its_last_slash() -> None:
    from elfenland.server.arguments import public_url

    assert public_url("https://elfenland.example.org/play/") == \
        "https://elfenland.example.org/play"
    assert public_url("") == ""


def test_an_operator_sets_the_creation_quota(tmp_path: pathlib.Path) -> None:
    """``--new-players-per-hour 2``: an address makes two players at once, the third is
    ``rate-limited`` (429 with Retry-After); the default would have let 30 through."""
    server = subprocess.Popen(
        [sys.executable, "-m", "elfenland.cli", "serve", "--port", "0",
         "--db", str(tmp_path / "games.db"), "--new-players-per-hour", "2",
         "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        found = re.search(r"open http://127\.0\.0\.1:(\d+)/", server.stdout.readline())
        assert found
        base = f"http://127.0.0.1:{found.group(1)}"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never answered"
                time.sleep(0.2)

        def new_player(name: str) -> int:
            request = urllib.request.Request(
                f"{base}/api/players", data=json.dumps({"name": name}).encode(),
                headers={"Content-Type": "application/json"}, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=5) as answer:
                    return int(answer.status)
            except urllib.error.HTTPError as refused:
                assert refused.headers.get("Retry-After")
                assert json.loads(refused.read())["code"] == "rate-limited"
                return int(refused.code)

        assert [new_player(n) for n in ("Ann", "Bea", "Cy")] == [201, 201, 429]
    finally:
        server.terminate()
        server.wait(timeout=30)
