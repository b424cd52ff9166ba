"""Random secrets the pages hand out, their stored hashes, and comparing them without leaking timing.

Used for sign-in link tokens, session ids and form tokens (CSRF). Sealing a value under a secret is
`garage_tools.sealing`; API keys have their own format and checks (`keys.py`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_secret() -> str:
    """256 random bits, URL-safe: link tokens, session ids and pre-session form tokens."""
    return secrets.token_urlsafe(32)


def secret_hash(secret: str) -> str:
    """What the store keeps of a secret. A fast hash is enough: 256 random bits leave nothing to guess."""
    return hashlib.sha256(secret.encode()).hexdigest()


def tokens_match(expected: str | None, given: str | None) -> bool:
    """Constant-time equality of two non-empty tokens."""
    return bool(expected) and bool(given) and hmac.compare_digest(str(expected), str(given))
