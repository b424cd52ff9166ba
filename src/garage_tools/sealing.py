"""Sealing a value under a secret: AES-256-GCM, authenticated, with a key derived from the secret.

Two uses, one rule: a new API key waits for the one page that shows it sealed under the session id (which
the store keeps only as a hash), and a webhook signing secret rests in the store sealed under the
deployment's secrets key (`store/secret_key.py`), so a copy of the database alone signs nothing.
"""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

NONCE_BYTES = 12  # GCM's standard nonce


def seal(secret: str, text: str) -> bytes:
    """`text` encrypted and authenticated under a key derived from `secret`.

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
