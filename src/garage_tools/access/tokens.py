"""Random secrets the pages hand out, their stored hashes, and comparing them without leaking timing.

Used for sign-in link tokens, session ids and form tokens (CSRF). API keys have their own format and
checks (`keys.py`).
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


def seal(secret: str, text: str) -> bytes:
    """`text` encrypted and authenticated under a key derived from `secret` (which the server does not keep:
    a session id, whose hash is all the store has). For a value that must wait server-side for one page
    view, such as a new API key, without the waiting copy being of use to anyone who reads the store.

    HMAC-SHA256 in counter mode as the keystream, a fresh random nonce per seal, and an HMAC-SHA256 tag
    over nonce and ciphertext (encrypt-then-MAC): standard library only.
    """
    nonce = secrets.token_bytes(16)
    data = text.encode()
    body = bytes(a ^ b for a, b in zip(data, _keystream(secret, nonce, len(data)), strict=True))
    return nonce + body + _tag(secret, nonce + body)


def unseal(secret: str, sealed: bytes) -> str | None:
    """The text `seal` sealed under `secret`, or None when `secret` is not the one or the bytes were changed."""
    if len(sealed) < 48:
        return None
    nonce, body, tag = sealed[:16], sealed[16:-32], sealed[-32:]
    if not hmac.compare_digest(tag, _tag(secret, nonce + body)):
        return None
    return bytes(a ^ b for a, b in zip(body, _keystream(secret, nonce, len(body)), strict=True)).decode()


def _keystream(secret: str, nonce: bytes, size: int) -> bytes:
    key = hmac.digest(secret.encode(), b"seal-encrypt", "sha256")
    blocks = (hmac.digest(key, nonce + n.to_bytes(4, "big"), "sha256") for n in range(size // 32 + 1))
    return b"".join(blocks)[:size]


def _tag(secret: str, data: bytes) -> bytes:
    return hmac.digest(hmac.digest(secret.encode(), b"seal-authenticate", "sha256"), data, "sha256")
