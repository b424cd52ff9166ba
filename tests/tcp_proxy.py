"""A TCP forwarder on loopback that a test can cut and restore, to simulate a database going away.

Cutting it closes the listening port and every forwarded connection, which is what clients of a
stopped server see (refused connects, reset sockets), without touching the real server.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


class TcpProxy:
    """Forwards 127.0.0.1:`port` to `upstream`; `cut()` makes it unreachable, `restore()` brings it back."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.port = self._listen(0)

    def _listen(self, port: int) -> int:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return int(listener.getsockname()[1])

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # the listener was closed by cut()
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._sockets |= {client, server}
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                target.sendall(chunk)
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    @property
    def url_host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def cut(self) -> None:
        """Refuse new connections and drop the open ones, as a stopped server would."""
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
            self._listener.close()
            self._listener = None
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def restore(self) -> None:
        """Listen again on the same port."""
        if self._listener is None:
            self._listen(self.port)


@contextlib.contextmanager
def tcp_proxy(upstream: tuple[str, int]) -> Iterator[TcpProxy]:
    proxy = TcpProxy(upstream)
    try:
        yield proxy
    finally:
        proxy.cut()
