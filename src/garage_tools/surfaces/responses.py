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


def encode_error(error: ServiceError) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """The error as an HTTP response's body (the envelope) and headers (its media type, length and the error's
    own, such as `Retry-After`): the one encoding of an error over HTTP, for every way one is sent."""
    body = orjson.dumps(error.envelope())
    headers = [_JSON, (b"content-length", str(len(body)).encode())]
    headers += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in error.headers.items()]
    return body, headers


def error_response(error: ServiceError) -> Response:
    """The error as a Starlette response, for routes Starlette answers."""
    body, headers = encode_error(error)
    response = Response(body, status_code=error.status)
    response.raw_headers = headers
    return response


async def send_json(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    headers = [_JSON, (b"content-length", str(len(body)).encode())]
    if extra:
        headers += extra
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def send_error(error: ServiceError, send: Send, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """The error as raw ASGI messages (the hot paths), with `extra` headers the error does not set itself."""
    body, headers = encode_error(error)
    if extra:
        named = {name for name, _ in headers}
        headers += [header for header in extra if header[0] not in named]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
