"""REST: `POST /api/v1/<tool>` with a JSON object in and the tool's value (or an error envelope) out."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from garage_tools.access.callers import identify
from garage_tools.access.client_ip import client_ip
from garage_tools.errors import (
    FieldProblem,
    InvalidArguments,
    InvalidBody,
    InvalidJson,
    MethodNotAllowed,
    PayloadTooLarge,
    ServiceError,
    UnsupportedMediaType,
)
from garage_tools.registry import Tool, ToolContext, dump_json, invoke
from garage_tools.services import Services
from garage_tools.surfaces.responses import JSON
from garage_tools.surfaces.urls import base_url

#: Body field a browser caller adds to any request (see the browser challenge in docs/guide.md).
CHALLENGE_FIELD = "challengeToken"
CHALLENGE_MAX_LENGTH = 2048  # the challenge service's own limit on a token


def check_challenge_token(token: object) -> None:
    if token is None:
        return
    if not isinstance(token, str) or len(token) > CHALLENGE_MAX_LENGTH:
        message = f"must be a string of at most {CHALLENGE_MAX_LENGTH} characters"
        raise InvalidArguments(
            f"Invalid arguments: {CHALLENGE_FIELD}: {message}",
            details=[FieldProblem(field=CHALLENGE_FIELD, message=message)],
        )


def is_json_media_type(content_type: str | None) -> bool:
    """Absent, `application/json` or any `application/*+json`, with any parameters."""
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == JSON or (media.startswith("application/") and media.endswith("+json"))


async def read_body(receive: Receive, declared_length: bytes | None, limit: int) -> bytes:
    """The request body, refusing more than `limit` bytes without reading them all."""
    if declared_length is not None and declared_length.isdigit() and int(declared_length) > limit:
        raise PayloadTooLarge(f"The request body is {int(declared_length)} bytes; this tool accepts at most {limit}.")
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"The request body is over {limit} bytes, the most this tool accepts.")
        chunks.append(chunk)
        more = message.get("more_body", False)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def parse_object(body: bytes) -> dict[str, Any]:
    if not body.strip():
        raise InvalidBody("The request body is required: send a JSON object (use {} when no field is needed).")
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise InvalidJson(f"The request body is not valid JSON: {exc.msg} at position {exc.pos}.") from None
    if not isinstance(data, dict):
        raise InvalidBody(f"The request body must be a JSON object, not {_json_kind(data)}.")
    return data


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


class RestSurface:
    """The `POST /api/v1/{tool}` endpoint, as a plain ASGI app: this is the hot path."""

    def __init__(self, services: Services) -> None:
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            body = await self._call(scope, receive)
        except ServiceError as error:
            await send_json(send, error.status, orjson.dumps(error.envelope()), error.headers)
        except ClientDisconnect:
            return
        else:
            await send_json(send, 200, body)

    async def _call(self, scope: Scope, receive: Receive) -> bytes:
        registry = self.services.registry
        tool: Tool[Any, Any] = registry.get(scope["path_params"]["tool"])
        if scope["method"] != "POST":
            raise MethodNotAllowed(
                f"{tool.name} is called with POST and a JSON object body.", headers={"Allow": "POST"}
            )
        content_type = content_length = authorization = None
        for name, value in scope["headers"]:
            if name == b"content-type":
                content_type = value
            elif name == b"content-length":
                content_length = value
            elif name == b"authorization":
                authorization = value
        if content_type is not None and not is_json_media_type(content_type.decode("latin-1")):
            raise UnsupportedMediaType("Send the request body as JSON with 'Content-Type: application/json'.")
        arguments = parse_object(await read_body(receive, content_length, tool.max_body_bytes))
        check_challenge_token(arguments.pop(CHALLENGE_FIELD, None))
        caller = await identify(
            authorization.decode("latin-1") if authorization is not None else None,
            surface="rest",
            ip=client_ip(scope),
            keys=self.services.keys,
        )
        context = ToolContext(self.services, caller, base_url(self.services.settings, scope))
        return dump_json(await invoke(registry, tool.name, arguments, context))


async def send_json(send: Send, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if headers:
        raw += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
