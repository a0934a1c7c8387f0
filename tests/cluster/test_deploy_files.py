"""The Dockerfile and deploy/compose.yaml against the package they ship.

No Docker daemon runs in CI, so nothing builds these files there; and the mistakes they
invite fail quietly at deploy time: an ``ELFENLAND_*`` variable whose option was renamed
is ignored (``env_defaults`` looks up known options only), a port or a server name that
no longer matches deploy/haproxy.cfg leaves HAProxy with no server.  So each setting the
files make is checked against the code that reads it."""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

import pytest

from elfenland.server import main as serve_main
from elfenland.server.cluster import compose_haproxy_config

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE = (ROOT / "deploy" / "compose.yaml").read_text()
HAPROXY_CFG = (ROOT / "deploy" / "haproxy.cfg").read_text()


def _dockerfile_env() -> dict[str, str]:
    """The ``ENV`` settings (one instruction, continued lines)."""
    block = re.search(r"^ENV (.*?)(?=^\S)", DOCKERFILE, re.S | re.M)
    assert block is not None
    return dict(re.findall(r"(ELFENLAND_\w+)=(\S+)", block.group(1)))


def _compose_env() -> dict[str, dict[str, str]]:
    """Each ``ELFENLAND_*`` setting of the compose file: the shared block, and each
    server's own, by the name of the block or service they are under."""
    out: dict[str, dict[str, str]] = {}
    where = ""
    for line in COMPOSE.splitlines():
        top = re.match(r"^(x-[\w-]+|  [a-z][a-z0-9]*):", line)
        if top:
            where = top.group(1).strip()
        setting = re.match(r"^\s+(ELFENLAND_\w+):\s*\"?([^\"#]*?)\"?\s*$", line)
        if setting:
            out.setdefault(where, {})[setting.group(1)] = setting.group(2)
    return out


def _serve_options(env: dict[str, str], monkeypatch: pytest.MonkeyPatch
                   ) -> argparse.Namespace:
    """``elfenland serve`` with no arguments, as the container runs it, under ``env``."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    parser = argparse.ArgumentParser()
    serve_main.add_arguments(parser)  # exits on a value the option refuses
    dests = {a.dest for a in parser._actions}
    unknown = [k for k in env if k.removeprefix("ELFENLAND_").lower() not in dests]
    assert unknown == [], f"settings no `elfenland serve` option reads: {unknown}"
    return parser.parse_args([])


def test_dockerfile_runs_elfenland_serve_on_its_port(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    cmd = re.search(r"^CMD (\[.*\])", DOCKERFILE, re.M)
    assert cmd is not None and cmd.group(1) == '["elfenland", "serve"]'
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["elfenland"] == "elfenland.cli:main"
    extras = re.search(r'pip install [^\n]*"\.\[(\w+)\]"', DOCKERFILE)
    assert extras is not None and extras.group(1) in project["optional-dependencies"]
    for copied in re.findall(r"^COPY (.+?) \S+$", DOCKERFILE, re.M):
        for name in copied.split():
            assert (ROOT / name).exists(), name

    args = _serve_options(_dockerfile_env(), monkeypatch)
    assert args.host == "0.0.0.0"
    assert re.search(r"^EXPOSE (\d+)$", DOCKERFILE, re.M).group(1) == str(args.port)  # type: ignore[union-attr]
    check = re.search(r"HEALTHCHECK .*?http://127\.0\.0\.1:(\d+)(/\w+)", DOCKERFILE, re.S)
    assert check is not None and check.groups() == (str(args.port), "/healthz")


def test_compose_servers_settings_and_haproxy_agree(monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    env = _compose_env()
    shared = env.pop("x-server-env")
    servers = sorted(env)
    assert servers == ["server1", "server2", "server3"]
    port = _serve_options(_dockerfile_env(), monkeypatch).port
    for name in servers:
        args = _serve_options({**_dockerfile_env(), **shared, **env[name]}, monkeypatch)
        assert args.cluster and args.name == name
        assert args.db.startswith("postgresql://")
        # The drain ends before compose gives up waiting and kills the container.
        grace = re.search(r"stop_grace_period: (\d+)s", COMPOSE)
        assert grace is not None and args.drain_seconds < int(grace.group(1))

    # HAProxy sends games to exactly these servers, on the port they listen on, and
    # listens on the port compose publishes.
    assert compose_haproxy_config() == HAPROXY_CFG
    assert re.findall(r"^    server (\w+) (\w+):(\d+) check", HAPROXY_CFG, re.M) == [
        (n, n, str(port)) for n in servers]
    bind = re.search(r"^    bind :(\d+)$", HAPROXY_CFG, re.M)
    assert bind is not None and f'- "{bind.group(1)}:{bind.group(1)}"' in COMPOSE
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg" in COMPOSE

    # The database URL names the compose database service and its credentials.
    url = re.match(r"postgresql://(\w+):(\w+)@(\w+):5432/(\w+)$", shared["ELFENLAND_DB"])
    assert url is not None
    user, password, host, db = url.groups()
    assert host == "db" and re.search(r"^  db:$", COMPOSE, re.M)
    for key, value in (("POSTGRES_USER", user), ("POSTGRES_PASSWORD", password),
                       ("POSTGRES_DB", db)):
        assert f"{key}: {value}" in COMPOSE
