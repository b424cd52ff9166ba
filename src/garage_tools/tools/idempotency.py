"""Idempotency-Key for the tools that create something (submitInspection, requestService): one rule for both.

The key is scoped to the tool and the caller (their API key, or the public tier) and stored only as a hash;
the body's hash is stored beside it, so a retry (same key, same body) finds the first answer and a reused key
with another body is refused instead of answered with someone else's record.
"""

from __future__ import annotations

import hashlib
import json

from garage_tools.errors import InvalidHeader
from garage_tools.models import InputModel
from garage_tools.registry import ToolContext

MAX_IDEMPOTENCY_KEY = 255


def idempotency_hash(ctx: ToolContext, tool: str) -> str | None:
    """The stored form of the caller's Idempotency-Key for `tool`: a hash of the key, the tool and whose it is."""
    key = ctx.idempotency_key
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not all(" " <= c <= "~" for c in key):
        raise InvalidHeader(
            f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters; a UUID is a good key."
        )
    scope = ctx.caller.key_id or "public"
    return hashlib.sha256(f"{tool}\n{scope}\n{key}".encode()).hexdigest()


def request_hash(args: InputModel) -> str:
    """A fingerprint of the arguments, to tell a retry (same body) from a reused key (another body)."""
    canonical = json.dumps(args.model_dump(mode="json", by_alias=True), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def reused_key(what: str) -> InvalidHeader:
    """The refusal of a key already used for another `what` ("inspection", "service request")."""
    return InvalidHeader(
        f"This Idempotency-Key was already used for a different {what}. Send a new key with a new "
        "submission, and the same key only when retrying the same one."
    )
