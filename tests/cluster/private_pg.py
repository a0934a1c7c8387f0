"""A PostgreSQL instance of a test's own, for tests (and benches) that restart it: the
shared cluster on port 5432 serves other people's tests and is never restarted.

``PrivatePostgres().start()`` runs ``initdb`` (as the ``postgres`` user when run as
root, since PostgreSQL refuses to run as root) and ``pg_ctl start`` on a free loopback
port with trust authentication; ``restart()``, ``stop()``, ``terminate_backends()``."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

BIN = Path("/usr/lib/postgresql/15/bin")


def available() -> bool:
    return (BIN / "initdb").exists() and (os.geteuid() != 0 or shutil.which("runuser")
                                         is not None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivatePostgres:
    """In a fresh directory under the system's temporary directory (pytest's own are
    closed to the ``postgres`` user)."""

    def __init__(self) -> None:
        self._home = Path(tempfile.mkdtemp(prefix="elfenland-pg-"))
        self.dir = self._home / "pgdata"
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: object, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(a) for a in args]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> PrivatePostgres:
        self.dir.mkdir(parents=True)
        parent = self.dir.parent
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            os.chmod(parent, 0o755)
        self._run(BIN / "initdb", "-D", self.dir, "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")
        with open(self.dir / "postgresql.conf", "a") as conf:
            conf.write("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                       "listen_addresses = '127.0.0.1'\nmax_connections = 200\n"
                       "shared_buffers = 32MB\n")
        self._ctl("start")
        return self

    def _ctl(self, what: str) -> None:
        args: list[object] = [BIN / "pg_ctl", "-D", self.dir, "-w", "-t", "60",
                              "-l", self.dir / "log", "-o", f"-p {self.port} -k {self.dir}"]
        if what in ("stop", "restart"):
            args += ["-m", "fast"]
        self._run(*args, what)

    def stop(self) -> None:
        self._ctl("stop")

    def begin(self) -> None:
        """Start a stopped instance (``pg_ctl -w`` returns once it accepts connections)."""
        self._ctl("start")

    def restart(self) -> None:
        self._ctl("restart")

    def terminate_backends(self, except_pid: int | None = None) -> int:
        """End every client session but our own, as an operator's
        ``pg_terminate_backend`` does; how many were ended."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
            ).fetchone()
        return int(row[0]) if row else 0

    def wait_ready(self, timeout: float = 30.0) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self._run(BIN / "pg_ctl", "-D", self.dir, "-m", "immediate", "stop", check=False)
        shutil.rmtree(self._home, ignore_errors=True)
