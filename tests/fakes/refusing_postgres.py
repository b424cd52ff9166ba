"""A PostgreSQL server on a loopback port that turns every connection away, as a real one does at start-up.

It speaks just enough of the protocol for a real client (asyncpg, through SQLAlchemy) to get that far:
it declines SSL and GSS encryption, reads the startup message and answers with a FATAL ErrorResponse
carrying the SQLSTATE and message chosen, then hangs up. That is how a server says "the database system
is starting up" (57P03), "sorry, too many clients already" (53300) and the like, which the local server
cannot be made to say on demand without disturbing everyone else using it.
"""

from __future__ import annotations

import socket
import struct
import threading
from types import TracebackType

_ENCRYPTION_REQUESTS = {80877103, 80877104}  # SSLRequest, GSSENCRequest


def error_response(sqlstate: str, message: str, severity: str = "FATAL") -> bytes:
    """An ErrorResponse ('E') message with the fields a server always sends."""
    fields = b"".join(
        code + value.encode() + b"\0"
        for code, value in ((b"S", severity), (b"V", severity), (b"C", sqlstate), (b"M", message))
    )
    body = fields + b"\0"
    return b"E" + struct.pack("!i", len(body) + 4) + body


class RefusingPostgres:
    """`with RefusingPostgres("57P03", "the database system is starting up") as server:`, then use `server.port`."""

    def __init__(self, sqlstate: str, message: str) -> None:
        self.answer = error_response(sqlstate, message)
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])

    def __enter__(self) -> RefusingPostgres:
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._listener.close()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed by __exit__
            self.connections += 1
            threading.Thread(target=self._refuse, args=(client,), daemon=True).start()

    def _refuse(self, client: socket.socket) -> None:
        with client:
            client.settimeout(5)
            try:
                while True:
                    length, code = struct.unpack("!ii", _read(client, 8))
                    if code in _ENCRYPTION_REQUESTS:
                        client.sendall(b"N")
                        continue
                    _read(client, length - 8)  # the startup message's parameters
                    client.sendall(self.answer)
                    return
            except (OSError, struct.error):
                return


def _read(client: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = client.recv(count - len(data))
        if not chunk:
            raise OSError("client went away")
        data += chunk
    return data
