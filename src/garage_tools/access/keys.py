"""API key format, issuance and verification.

A key reads the prefix (`key_format.PREFIX`) + a 10-character public id + 43 characters of secret (32 random
bytes, base62) + a 6-character CRC32 checksum. The prefix and checksum let secret scanners
recognise a leaked key offline; the public id finds the stored record; only a SHA-256 of
the whole key is stored, compared in constant time. The plaintext exists once, at creation.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import math
import secrets
import string
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from garage_tools.errors import ServiceUnavailable
from garage_tools.key_format import PREFIX
from garage_tools.store.api_keys import LAST_USED_RESOLUTION, ApiKeyRepository, KeyRecord

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
    return public_id(token)


def public_id(key: str) -> str:
    """The public id a key of the right shape carries (`parse_key` checks the shape)."""
    return key[len(PREFIX) : len(PREFIX) + ID_LENGTH]


@dataclass(frozen=True, slots=True)
class IssuedKey:
    record: KeyRecord
    plaintext: str


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


R = TypeVar("R", bound=_Identified)


class KeyCache(Generic[R]):
    """Recently read key records (and recent misses) by key hash, for `ttl` seconds, at most `size` of them.

    The same cache holds OAuth access tokens' grants (`access/oauth.py`), so both credentials of the pro tier
    are looked up, and revoked, on the same terms.

    Reading the store on every keyed call made a pro call about 7x dearer than an anonymous one.
    A revocation made in another process takes effect here within `ttl` seconds; one made
    through this process's `KeyService` takes effect at once.
    """

    def __init__(self, ttl: float, size: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.size = size
        self.clock = clock
        #: Counts the records forgotten (a revocation, a new plan, a new key): whatever was told from this cache
        #: before, and kept elsewhere (`credentials.KnownHeaders`), is stale once it moves.
        self.generation = 0
        self._entries: OrderedDict[str, tuple[float, R | None]] = OrderedDict()

    def get(self, key_hash: str) -> tuple[bool, R | None]:
        """(found, record): found is False when the hash is not cached or its entry has expired."""
        entry = self._entries.get(key_hash)
        if entry is None or entry[0] <= self.clock():
            return False, None
        return True, entry[1]

    def live(self, key_hash: str) -> tuple[float, R | None] | None:
        """The entry of `key_hash` (when it expires, on `clock`; the record) while it lives; None otherwise."""
        entry = self._entries.get(key_hash)
        return entry if entry is not None and entry[0] > self.clock() else None

    def put(self, key_hash: str, record: R | None) -> None:
        if self.ttl <= 0:
            return
        self._entries[key_hash] = (self.clock() + self.ttl, record)
        self._entries.move_to_end(key_hash)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def forget(self, key_id: str) -> None:
        """Drop the cached records with id `key_id` (a revocation is rare: a scan is fine)."""
        self.generation += 1
        for key_hash in [h for h, (_, record) in self._entries.items() if record is not None and record.id == key_id]:
            del self._entries[key_hash]


_TOUCH_EVERY_SECONDS = LAST_USED_RESOLUTION.total_seconds()


class KeyService:
    """Issue, list, revoke and verify keys on top of the repository."""

    def __init__(self, repository: ApiKeyRepository, cache: KeyCache[KeyRecord] | None = None) -> None:
        self.repository = repository
        self.cache = cache or KeyCache(ttl=0)
        self._touched: dict[str, float] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._last_hashed: tuple[str, str] | None = None

    async def issue(self, owner_email: str, name: str = "default") -> IssuedKey:
        key_id, plaintext = new_key()
        record = await self.repository.add(
            key_id=key_id, owner_email=owner_email, name=name, secret_hash=hash_key(plaintext)
        )
        self.cache.forget(key_id)
        return IssuedKey(record=record, plaintext=plaintext)

    async def revoke(self, key_id: str, owner_email: str | None = None) -> KeyRecord | None:
        """Revoke a key (only `owner_email`'s when given); it stops working in this process at once."""
        record = await self.repository.revoke(key_id, owner_email=owner_email)
        self.cache.forget(key_id)
        return record

    async def set_plan(self, key_id: str, plan: str | None) -> KeyRecord | None:
        """Put a key on `plan` (None: the default); this process's cache forgets it at once, every other
        process's within its `ttl` (GARAGE_TOOLS_KEY_CACHE_SECONDS), as a revocation does."""
        record = await self.repository.set_plan(key_id, plan)
        self.cache.forget(key_id)
        return record

    def cached(self, token: str) -> tuple[bool, KeyRecord | None]:
        """What this process can tell of `token` without the store: (answered, the active key's record, or None).
        An active key answered here is in use: its use is recorded, as `verify` records it.

        Answered is False only for a well-formed key whose hash the cache does not hold (now). A key the cache
        holds is the token whose hash it has, so it is not parsed again; its checksum was checked on its first
        call. Every keyed call asks this first (`credentials.known_credentials`): a cached key costs one hash and
        one look-up, and no coroutine.
        """
        if len(token) != KEY_LENGTH:
            return True, None  # refused without a look anywhere
        found, record = self.cache.get(self._hash(token))
        if found and record is not None:
            return True, self._in_use(record)
        if found or parse_key(token) is None:
            return True, None  # a key the store did not know when last asked, or no key at all
        return False, None

    async def verify(self, token: str) -> KeyRecord | None:
        """The active key record `token` belongs to, or None for anything else.

        The key is looked up by the hash of the whole key, never by its public id: an unknown id
        and a known id with a wrong secret are the same miss, so timing cannot tell an attacker
        which ids exist. Store faults propagate as `ServiceUnavailable`.
        """
        answered, record = self.cached(token)
        if answered:
            return record
        key_hash = self._hash(token)
        record = await self.repository.find_by_hash(key_hash)
        self.cache.put(key_hash, record)
        if record is None or record.id != public_id(token):
            return None
        return self._in_use(record)

    def _in_use(self, record: KeyRecord) -> KeyRecord | None:
        """`record` if its key is active (its use recorded), else None."""
        if not record.active:
            return None
        self.record_use(record)
        return record

    def trusted(self, token: str) -> tuple[float, KeyRecord] | None:
        """The record of the active key `token`, with when (on the cache's clock) the cache stops trusting it;
        None when the cache holds no active key for `token`."""
        if len(token) != KEY_LENGTH:
            return None
        entry = self.cache.live(self._hash(token))
        if entry is None:
            return None
        until, record = entry
        return (until, record) if record is not None and record.active else None

    def _hash(self, token: str) -> str:
        """`hash_key(token)`, once for a call's cache look-up (`cached`) and a verification that must ask the store:
        the last token hashed is remembered with its hash, as long as the request that carried it holds it, until
        the next keyed call."""
        last = self._last_hashed
        if last is not None and last[0] == token:
            return last[1]
        key_hash = hash_key(token)
        self._last_hashed = (token, key_hash)
        return key_hash

    def record_use(self, record: KeyRecord) -> None:
        """Record a use of the active key `record` in the background, at most once per LAST_USED_RESOLUTION per
        process (every call told its key asks this)."""
        now = time.monotonic()
        if now - self._touched.get(record.id, -math.inf) < _TOUCH_EVERY_SECONDS:
            return
        self._touched[record.id] = now
        task = asyncio.get_running_loop().create_task(self._touch(record))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _touch(self, record: KeyRecord) -> None:
        with contextlib.suppress(ServiceUnavailable):  # the store logs its own outage once
            await self.repository.touch(record)

    async def drain(self) -> None:
        """Wait for pending background writes (at shutdown, and in tests)."""
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
