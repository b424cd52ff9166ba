"""REST: `POST /api/v1/<tool>` with a JSON object in and the tool's value (or an error envelope) out."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

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
from garage_tools.surfaces.responses import JSON, error_response
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


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing more than `limit` bytes without reading them all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"The request body is {declared} bytes; this tool accepts at most {limit}.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"The request body is over {limit} bytes, the most this tool accepts.")
        chunks.append(chunk)
    return b"".join(chunks)


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
    def __init__(self, services: Services) -> None:
        self.services = services

    async def call(self, request: Request) -> Response:
        try:
            return await self._call(request)
        except ServiceError as error:
            return error_response(error)

    async def _call(self, request: Request) -> Response:
        registry = self.services.registry
        tool: Tool[Any, Any] = registry.get(request.path_params["tool"])
        if request.method != "POST":
            raise MethodNotAllowed(
                f"{tool.name} is called with POST and a JSON object body.", headers={"Allow": "POST"}
            )
        if not is_json_media_type(request.headers.get("content-type")):
            raise UnsupportedMediaType("Send the request body as JSON with 'Content-Type: application/json'.")
        arguments = parse_object(await read_body(request, tool.max_body_bytes))
        check_challenge_token(arguments.pop(CHALLENGE_FIELD, None))
        caller = await identify(
            request.headers.get("authorization"),
            surface="rest",
            ip=client_ip(request.scope),
            keys=self.services.keys,
        )
        base = base_url(self.services.settings, request.scope)
        result = await invoke(registry, tool.name, arguments, ToolContext(self.services, caller, base))
        return Response(dump_json(result), media_type=JSON)
