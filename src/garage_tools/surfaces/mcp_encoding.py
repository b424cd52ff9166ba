"""The one encoding of tool results and errors on MCP, shared by the SDK path and the fast path."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel

from garage_tools.errors import ServiceError
from garage_tools.models import inline_images
from garage_tools.registry import FrozenMemo, dump

#: JSON-RPC code for a refusal that is not about the message itself (implementation-defined range).
SERVER_REFUSED = -32000


def tool_result(result: BaseModel) -> dict[str, Any]:
    """A `CallToolResult`: structured content, the same JSON as text, and any images as image blocks.

    An image's bytes travel once, in its image block; the JSON keeps its media type and the rest. An
    image with a caption follows a text block holding it, so each picture comes right after its words.
    The parts are built once per shared, frozen result (`FrozenMemo`) and never changed after: each
    call gets a dict of its own around them, for a surface to add its fields to.
    """
    content, data = _result_parts(result)
    return {"content": content, "structuredContent": data, "isError": False}


def _parts(result: BaseModel) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    data = dump(result)
    images = [image for image in inline_images(result) if image.data]
    if images:
        data = _without_image_bytes(data, {image.data for image in images})
    content: list[dict[str, Any]] = [{"type": "text", "text": orjson.dumps(data).decode()}]
    for image in images:
        if image.caption:
            content.append({"type": "text", "text": image.caption})
        content.append({"type": "image", "data": image.data, "mimeType": image.mime_type})
    return content, data


_result_parts = FrozenMemo(_parts)


def _without_image_bytes(value: Any, blobs: set[str | None]) -> Any:
    """`value` with every `data` member that holds one of `blobs` left out, at any depth."""
    if isinstance(value, dict):
        return {
            name: _without_image_bytes(item, blobs)
            for name, item in value.items()
            if not (name == "data" and isinstance(item, str) and item in blobs)
        }
    if isinstance(value, list):
        return [_without_image_bytes(item, blobs) for item in value]
    return value


def error_result(error: ServiceError) -> dict[str, Any]:
    """A `CallToolResult` with `isError` and the error envelope REST would send, as text."""
    return {"content": [{"type": "text", "text": orjson.dumps(error.envelope()).decode()}], "isError": True}


def jsonrpc_error(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "error": error})
