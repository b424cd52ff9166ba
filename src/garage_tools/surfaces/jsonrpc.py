"""The JSON-RPC envelope rules MCP adds to JSON-RPC 2.0, checked once at the gate for both MCP paths.

A message the rules refuse is answered -32600 (Invalid Request) before it is counted against any limit
and before the SDK or the fast path sees it. Without this check the SDK reads a request whose id is
null, fractional, an object or a boolean as a notification on the handshake revisions (HTTP 202, no
answer) after the gate had already counted the call.
"""

from __future__ import annotations

from typing import Any

#: JSON-RPC's code for a message that is JSON but not a valid request.
INVALID_REQUEST = -32600


def envelope_problem(message: Any) -> str | None:
    """Why `message` (parsed JSON) is not a single valid JSON-RPC message for MCP, or None when it is.

    MCP narrows JSON-RPC: one message per POST (no batches), a request's id is a string or an integer
    (never null, a fraction, a boolean or a structure), and params are an object. Responses a client
    posts back (`result` or `error`, no `method`) are left to the SDK.
    """
    if not isinstance(message, dict):
        return "Body must be a single JSON-RPC request or notification object."
    if message.get("jsonrpc") != "2.0":
        return 'The message must carry "jsonrpc": "2.0".'
    if "method" not in message:
        if "result" in message or "error" in message:
            return None
        return "The message has no method: a request names one, with an id; a notification without."
    if not isinstance(message["method"], str):
        return "The method must be a string."
    if "params" in message and not isinstance(message["params"], dict):
        return "The params must be an object."
    if "id" in message and not valid_id(message["id"]):
        return "A request id must be a string or an integer (not null, a fraction, a boolean or a structure)."
    return None


def valid_id(request_id: Any) -> bool:
    """Whether `request_id` is an id MCP allows: a string or an integer."""
    return isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))
