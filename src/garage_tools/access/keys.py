"""API key format, issuance and verification.

A key reads `svc_live_` + a 10-character public id + 43 characters of secret (32 random
bytes, base62) + a 6-character CRC32 checksum. The prefix and checksum let secret scanners
recognise a leaked key offline; the public id finds the stored record; only a SHA-256 of
the whole key is stored, compared in constant time. The plaintext exists once, at creation.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
import zlib
from dataclasses import dataclass

from garage_tools.store.api_keys import ApiKeyRepository, KeyRecord

PREFIX = "svc_live_"
ALPHABET = string.digits + string.ascii_letters  # base62
ID_LENGTH = 10
SECRET_LENGTH = 43  # 62**43 > 2**256: room for 32 random bytes
CHECKSUM_LENGTH = 6
KEY_LENGTH = len(PREFIX) + ID_LENGTH + SECRET_LENGTH + CHECKSUM_LENGTH
_ALPHABET_SET = frozenset(ALPHABET)


def base62(number: int, width: int) -> str:
    """`number` in base62, left-padded with zeros to `width` characters."""
    digits = []
    while number:
        number, rest = divmod(number, 62)
        digits.append(ALPHABET[rest])
    encoded = "".join(reversed(digits)) or "0"
    if len(encoded) > width:
        raise ValueError(f"{number} does not fit in {width} base62 digits")
    return encoded.rjust(width, "0")


def checksum(text: str) -> str:
    return base62(zlib.crc32(text.encode()), CHECKSUM_LENGTH)


def hash_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def new_key() -> tuple[str, str]:
    """A fresh (public id, plaintext key)."""
    key_id = "".join(secrets.choice(ALPHABET) for _ in range(ID_LENGTH))
    secret = base62(int.from_bytes(secrets.token_bytes(32), "big"), SECRET_LENGTH)
    body = PREFIX + key_id + secret
    return key_id, body + checksum(body)


def parse_key(token: str) -> str | None:
    """The public id of a well-formed key (right prefix, length, alphabet and checksum), else None."""
    if len(token) != KEY_LENGTH or not token.startswith(PREFIX):
        return None
    rest = token[len(PREFIX) :]
    if not _ALPHABET_SET.issuperset(rest):
        return None
    body, check = token[:-CHECKSUM_LENGTH], token[-CHECKSUM_LENGTH:]
    if not hmac.compare_digest(checksum(body), check):
        return None
    return rest[:ID_LENGTH]


@dataclass(frozen=True, slots=True)
class IssuedKey:
    record: KeyRecord
    plaintext: str


class KeyService:
    """Issue, list, revoke and verify keys on top of the repository."""

    def __init__(self, repository: ApiKeyRepository) -> None:
        self.repository = repository

    async def issue(self, owner_email: str, name: str = "default") -> IssuedKey:
        key_id, plaintext = new_key()
        record = await self.repository.add(
            key_id=key_id, owner_email=owner_email, name=name, secret_hash=hash_key(plaintext)
        )
        return IssuedKey(record=record, plaintext=plaintext)

    async def verify(self, token: str) -> KeyRecord | None:
        """The active key record `token` belongs to, or None for anything else."""
        key_id = parse_key(token)
        if key_id is None:
            return None
        record = await self.repository.get(key_id)
        if record is None or not hmac.compare_digest(record.secret_hash, hash_key(token)) or not record.active:
            return None
        await self.repository.touch(record)
        return record
