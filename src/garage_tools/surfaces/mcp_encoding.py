"""The one encoding of tool results and errors on MCP, shared by the SDK path and the fast path."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel

from garage_tools.errors import ServiceError
from garage_tools.models import inline_images
from garage_tools.registry import dump

#: JSON-RPC code for a refusal that is not about the message itself (implementation-defined range).
SERVER_REFUSED = -32000


def tool_result(result: BaseModel) -> dict[str, Any]:
    """A `CallToolResult`: structured content, the same JSON as text, and any images as image blocks."""
    data = dump(result)
    content: list[dict[str, Any]] = [{"type": "text", "text": orjson.dumps(data).decode()}]
    content += [{"type": "image", "data": i.data, "mimeType": i.mime_type} for i in inline_images(result)]
    return {"content": content, "structuredContent": data, "isError": False}


def error_result(error: ServiceError) -> dict[str, Any]:
    """A `CallToolResult` with `isError` and the error envelope REST would send, as text."""
    return {"content": [{"type": "text", "text": orjson.dumps(error.envelope()).decode()}], "isError": True}


def jsonrpc_error(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "error": error})
