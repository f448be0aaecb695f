"""A relay on 127.0.0.1 in front of the service, which a test can take down and bring back:
what a fighter's HUD meets when the service (or the way to it) is down for a while.

While down, it accepts each connection and closes it at once with no answer, as a host that
is down behind a proxy does; Second Life tells the script 499 then (tests/sl_region.py).
While failing, it answers every request itself with a status and a page, as a proxy in front
of a service that is down does (`502 Bad Gateway` and its HTML page)."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit


class Relay:
    """Forwards every connection to `target` (an `http://host:port` URL) while `up`."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.up = True
        #: (status, page) to answer every request with, instead of forwarding it
        self.failing: tuple[int, str] | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def down(self) -> None:
        """Down from now on: the connections open now (kept alive by the caller) close too."""
        with self._lock:
            self.up = False
        self._cut()

    def fail(self, status: int, page: str) -> None:
        """Answer every request from now on with `status` and `page` (open connections close)."""
        with self._lock:
            self.failing = (status, page)
        self._cut()

    def _cut(self) -> None:
        with self._lock:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def back(self) -> None:
        self.up = True
        self.failing = None

    def close(self) -> None:
        self.down()
        self._stop.set()
        self._thread.join(10)
        self._server.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            # what to do with it is decided under the lock that `down` and `fail` take: a
            # connection taken just before them is in `_open` already, so they cut it too
            with self._lock:
                up, failing = self.up, self.failing
                if up and failing is None:
                    self._open.add(client)
            if not up:
                client.close()
                continue
            if failing is not None:
                answer = threading.Thread(target=self._fail, args=(client, *failing))
                answer.daemon = True
                answer.start()
                continue
            threading.Thread(target=self._forward, args=(client,), daemon=True).start()

    def _fail(self, client: socket.socket, status: int, page: str) -> None:
        """Read one request (its head and its body) and answer it with `status` and `page`."""
        with client:
            client.settimeout(30)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = client.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            fields = [line.split(b":", 1) for line in head.split(b"\r\n")[1:]]
            length = next((int(v) for k, v in fields if k.strip().lower() == b"content-length"), 0)
            while len(body) < length:
                chunk = client.recv(65536)
                if not chunk:
                    return
                body += chunk
            payload = page.encode("utf-8")
            client.sendall(
                f"HTTP/1.1 {status} Failing\r\nContent-Type: text/html\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )

    def _forward(self, client: socket.socket) -> None:
        with client, socket.create_connection(self.target, timeout=30) as upstream:
            client.settimeout(30)
            with self._lock:
                self._open.update((client, upstream))
            pipes = [
                threading.Thread(target=_pipe, args=(client, upstream), daemon=True),
                threading.Thread(target=_pipe, args=(upstream, client), daemon=True),
            ]
            for pipe in pipes:
                pipe.start()
            for pipe in pipes:
                pipe.join(60)
            with self._lock:
                self._open.difference_update((client, upstream))


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass
