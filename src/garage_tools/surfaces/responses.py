"""JSON responses and the error envelope on HTTP: as raw ASGI messages (hot paths) or Starlette responses."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Send

from garage_tools.errors import ServiceError

JSON = "application/json"
_JSON = (b"content-type", b"application/json")


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(data), status_code=status, headers=headers, media_type=JSON)


def error_response(error: ServiceError) -> Response:
    return json_response(error.envelope(), status=error.status, headers=error.headers or None)


async def send_json(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    headers = [_JSON, (b"content-length", str(len(body)).encode())]
    if extra:
        headers += extra
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_error(error: ServiceError, send: Send, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """The error envelope as an HTTP response: the one encoding of an error over HTTP."""
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in error.headers.items()]
    if extra:
        named = {name for name, _ in headers}
        headers += [header for header in extra if header[0] not in named]
    await send_json(send, error.status, orjson.dumps(error.envelope()), headers)
