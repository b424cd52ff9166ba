"""Random secrets the pages hand out, their stored hashes, and comparing them without leaking timing.

Used for sign-in link tokens, session ids and form tokens (CSRF), and to seal a value under a secret only
the browser holds. API keys have their own format and checks (`keys.py`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

NONCE_BYTES = 12  # GCM's standard nonce


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

    AES-256-GCM with a fresh 96-bit nonce per seal; the key is HKDF-SHA256 of `secret`.
    """
    nonce = os.urandom(NONCE_BYTES)
    return nonce + AESGCM(_seal_key(secret)).encrypt(nonce, text.encode(), None)


def unseal(secret: str, sealed: bytes) -> str | None:
    """The text `seal` sealed under `secret`, or None when `secret` is not the one or the bytes were changed."""
    nonce, body = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
    try:
        return AESGCM(_seal_key(secret)).decrypt(nonce, body, None).decode()
    except (InvalidTag, ValueError):
        return None


def _seal_key(secret: str) -> bytes:
    return HKDF(algorithm=SHA256(), length=32, salt=None, info=b"garage-tools seal").derive(secret.encode())
