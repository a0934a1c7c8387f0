"""Hostile and honest HTTP listeners on loopback for the webhook tests: each records the
requests it got and answers in its own way (at once, with a redirect, or a byte at a
time)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType


class Listener:
    """A TCP listener on 127.0.0.1 that reads one request per connection and answers
    with ``answer`` (then ``drip`` bytes, one each ``every`` seconds)."""

    def __init__(self, answer: bytes = b"HTTP/1.1 204 No Content\r\n\r\n", drip: int = 0,
                 every: float = 0.5) -> None:
        self.answer = answer
        self.drip = drip
        self.every = every
        self.requests: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def _serve(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(body) < length:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                body += chunk
            self.requests.append(head + b"\r\n\r\n" + body)
            conn.sendall(self.answer)
            for _ in range(self.drip):
                if self._stop.is_set():
                    break
                time.sleep(self.every)
                conn.sendall(b"x")
        except OSError:
            pass
        finally:
            conn.close()

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()
