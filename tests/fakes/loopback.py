"""One harness for the third-party stand-ins: an ASGI app served by uvicorn in a thread on a free loopback port.

A fake subclasses `LoopbackFake`, says what it serves (`asgi_app`) and, if it must, how (`uvicorn_options`,
e.g. TLS), and is then started with `start()` or `with`; `port` is known once `start()` returns.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any, Self

import uvicorn
from starlette.types import ASGIApp

from tests.polling import eventually

START_DEADLINE_SECONDS = 10.0


class LoopbackFake:
    """Base of the fakes in this folder; `name` names the thread and the start-up error."""

    name = "fake server"

    def __init__(self) -> None:
        self.port = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def asgi_app(self) -> ASGIApp:
        raise NotImplementedError

    def uvicorn_options(self) -> dict[str, Any]:
        return {}

    def start(self) -> None:
        options: dict[str, Any] = {"timeout_graceful_shutdown": 2, **self.uvicorn_options()}
        config = uvicorn.Config(
            self.asgi_app(), host="127.0.0.1", port=0, lifespan="off", log_level="warning", access_log=False, **options
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name=self.name, daemon=True)
        thread.start()

        def state() -> str | None:  # a thread that died is reported at once
            return "started" if server.started else None if thread.is_alive() else "its thread ended"

        try:
            started = eventually(state, seconds=START_DEADLINE_SECONDS, every=0.01, what=f"the {self.name} to start")
        except AssertionError:
            started = "timed out"
        if started != "started":
            raise RuntimeError(f"the {self.name} did not start ({started})")
        self._server, self._thread = server, thread
        self.port = server.servers[0].sockets[0].getsockname()[1]

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
            self._server = self._thread = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
