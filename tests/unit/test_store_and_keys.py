"""API keys end to end through the store, on SQLite and on the local PostgreSQL server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from garage_tools.access.caller import Tier
from garage_tools.access.credentials import (
    ANONYMOUS,
    KnownHeaders,
    authenticate,
    authenticate_token,
    known_credentials,
)
from garage_tools.access.keys import KEY_LENGTH, KeyCache, KeyService, checksum, hash_key, new_key, parse_key
from garage_tools.errors import InvalidKey
from garage_tools.key_format import PREFIX
from garage_tools.store.api_keys import ApiKeyRepository
from garage_tools.store.database import Database, alembic_config
from tests.conftest import POSTGRES_ADMIN_URL


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        db = Database(f"sqlite+aiosqlite:///{tmp_path / 'keys.db'}")
        await db.migrate()
        yield db
        await db.dispose()
        return
    name = f"garage_tools_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(POSTGRES_ADMIN_URL)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        db = Database(
            POSTGRES_ADMIN_URL.replace("postgresql://", "postgresql+asyncpg://").rsplit("/", 1)[0] + "/" + name
        )
        await db.migrate()
        yield db
        await db.dispose()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@pytest.fixture
def keys(database: Database) -> KeyService:
    return KeyService(ApiKeyRepository(database))


def test_key_format_is_recognisable_and_self_checking() -> None:
    key_id, plaintext = new_key()
    assert plaintext.startswith(PREFIX) and len(plaintext) == KEY_LENGTH
    assert plaintext.removeprefix(PREFIX).isalnum()
    assert parse_key(plaintext) == key_id
    # Any single-character change breaks the checksum, so scanners can reject it offline.
    tampered = plaintext[:20] + ("A" if plaintext[20] != "A" else "B") + plaintext[21:]
    assert parse_key(tampered) is None
    assert parse_key(plaintext[:-1]) is None
    assert parse_key("sk_live_" + plaintext[len(PREFIX) :]) is None


def test_keys_carry_at_least_256_bits_of_randomness() -> None:
    keys = {new_key()[1] for _ in range(200)}
    assert len(keys) == 200
    body = next(iter(keys))[len(PREFIX) + 10 : -6]
    assert len(body) == 43  # 62**43 > 2**256


def test_checksum_is_fixed_width() -> None:
    assert len(checksum("")) == len(checksum("x" * 500)) == 6


async def test_migration_creates_the_schema_and_is_repeatable(database: Database) -> None:
    await database.migrate()  # second run is a no-op
    async with database.engine.connect() as conn:
        tables = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
        version = (await conn.execute(text("select version_num from alembic_version"))).scalar_one()
    assert "api_keys" in tables
    assert version == ScriptDirectory.from_config(alembic_config()).get_current_head()


async def test_issued_key_verifies_and_only_a_hash_is_stored(keys: KeyService, database: Database) -> None:
    issued = await keys.issue("dev@example.com", "laptop")
    record = await keys.verify(issued.plaintext)
    assert record is not None and record.id == issued.record.id and record.owner_email == "dev@example.com"
    async with database.engine.connect() as conn:
        rows = (await conn.execute(text("select * from api_keys"))).mappings().all()
    assert len(rows) == 1
    assert issued.plaintext not in str(dict(rows[0]))
    assert rows[0]["secret_hash"] != issued.plaintext


async def test_revoked_key_fails_at_once(keys: KeyService) -> None:
    issued = await keys.issue("dev@example.com")
    assert await keys.verify(issued.plaintext) is not None
    revoked = await keys.repository.revoke(issued.record.id)
    assert revoked is not None and revoked.revoked_at is not None
    assert await keys.verify(issued.plaintext) is None
    again = await keys.repository.revoke(issued.record.id)
    assert again is not None and again.revoked_at == revoked.revoked_at  # idempotent


async def test_well_formed_but_unknown_key_fails(keys: KeyService) -> None:
    _, stranger = new_key()
    assert await keys.verify(stranger) is None


async def test_last_used_is_recorded(keys: KeyService) -> None:
    issued = await keys.issue("dev@example.com")
    assert issued.record.last_used_at is None
    await keys.verify(issued.plaintext)
    await keys.drain()  # the write happens off the request path
    listed = await keys.repository.list("dev@example.com")
    assert listed[0].last_used_at is not None


async def test_several_keys_per_owner_for_rotation(keys: KeyService) -> None:
    first = await keys.issue("dev@example.com", "old")
    second = await keys.issue("dev@example.com", "new")
    await keys.repository.revoke(first.record.id)
    assert await keys.verify(second.plaintext) is not None
    assert [r.name for r in await keys.repository.list("dev@example.com")] == ["old", "new"]


@pytest.mark.parametrize(
    ("header", "tier", "error"),
    [
        (None, Tier.PUBLIC, None),
        ("", Tier.PUBLIC, None),
        ("Bearer svc_live_nonsense", Tier.PUBLIC, "invalid_key"),
        ("Basic dXNlcjpwYXNz", Tier.PUBLIC, "invalid_key"),
        ("Bearer", Tier.PUBLIC, "invalid_key"),
    ],
)
async def test_a_bad_credential_is_never_a_downgrade(
    keys: KeyService, header: str | None, tier: Tier, error: str | None
) -> None:
    credentials = await authenticate([header] if header is not None else [], keys)
    assert credentials.tier is tier
    assert (credentials.error.code if credentials.error else None) == error


async def test_a_valid_key_is_pro(keys: KeyService) -> None:
    issued = await keys.issue("dev@example.com")
    credentials = await authenticate([f"bearer {issued.plaintext}"], keys)
    assert credentials.tier is Tier.PRO and credentials.key_id == issued.record.id and credentials.error is None


async def test_two_authorization_headers_are_refused_even_when_both_are_valid(keys: KeyService) -> None:
    issued = await keys.issue("dev@example.com")
    credentials = await authenticate([f"Bearer {issued.plaintext}"] * 2, keys)
    assert credentials.tier is Tier.PUBLIC and credentials.error is not None
    assert credentials.error.code == "invalid_header" and credentials.error.status == 400


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_the_key_cache_spares_the_store_and_expires(keys: KeyService) -> None:
    issued = await keys.issue("dev@example.com")
    clock = Clock()
    cached = KeyService(keys.repository, KeyCache(ttl=5, clock=clock))
    assert await cached.verify(issued.plaintext) is not None
    await keys.repository.revoke(issued.record.id)  # as another process would: this cache is not told
    assert await cached.verify(issued.plaintext) is not None  # served from the cache
    clock.now += 5.1
    assert await cached.verify(issued.plaintext) is None  # the cache expired: the revocation is seen
    await cached.drain()


async def test_a_key_the_cache_knows_is_not_parsed_again(keys: KeyService, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path: the cache holds the key's record under the whole key's hash, so a token with that hash is
    that key, well-formed; its checksum is checked on the first call only. A near miss is still parsed and refused."""
    import garage_tools.access.keys as module

    issued = await keys.issue("dev@example.com")
    cached = KeyService(keys.repository, KeyCache(ttl=60))
    parsed: list[str] = []
    monkeypatch.setattr(module, "parse_key", lambda token: parsed.append(token) or parse_key(token))
    assert await cached.verify(issued.plaintext) is not None and len(parsed) == 1
    answered, record = cached.cached(issued.plaintext)
    assert answered and record is not None and record.id == issued.record.id
    assert await cached.verify(issued.plaintext) is not None and len(parsed) == 1  # from the cache, unparsed
    forged = issued.plaintext[:-1] + ("A" if issued.plaintext[-1] != "A" else "B")
    assert await cached.verify(forged) is None and len(parsed) == 2
    assert cached.cached("x" * 300) == (True, None)  # another length is refused without a look anywhere
    await cached.drain()


async def test_a_keyed_call_hashes_its_key_once(keys: KeyService, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate asks the cache first, then (on a miss) verifies the key with the store: the key's SHA-256 is worked
    out for the first and reused by the second. Another key is hashed afresh, and a changed key never meets the
    first key's hash."""
    import garage_tools.access.keys as module

    issued, other = await keys.issue("dev@example.com"), await keys.issue("dev@example.com")
    cached = KeyService(keys.repository, KeyCache(ttl=60))
    hashed: list[str] = []
    monkeypatch.setattr(module, "hash_key", lambda token: hashed.append(token) or hash_key(token))
    assert cached.cached(issued.plaintext) == (False, None)  # well-formed, not cached: only the store can tell
    assert await cached.verify(issued.plaintext) is not None and hashed == [issued.plaintext]
    assert cached.cached(issued.plaintext)[0] and await cached.verify(issued.plaintext) is not None
    assert hashed == [issued.plaintext]
    assert await cached.verify(other.plaintext) is not None and hashed == [issued.plaintext, other.plaintext]
    forged = issued.plaintext[:-1] + ("A" if issued.plaintext[-1] != "A" else "B")
    assert await cached.verify(forged) is None and len(hashed) == 3
    await cached.drain()


class _StoreAway:
    """A key repository that fails the test if asked anything."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the store was asked ({name})")


async def test_a_cached_key_is_told_without_the_store_or_a_coroutine(keys: KeyService) -> None:
    """The gate's fast path: once its key is cached, a keyed call's credentials come from `known_credentials`, a
    plain function (no store, so no budget of bad keys to weigh); a key not cached yet is left to the store, and a
    token of no valid shape is refused at once."""
    issued = await keys.issue("dev@example.com")
    cached = KeyService(keys.repository, KeyCache(ttl=60))
    assert known_credentials(issued.plaintext, cached) is None  # well-formed but not cached: the store must tell
    assert (await authenticate_token(issued.plaintext, cached)).tier is Tier.PRO
    cached.repository = _StoreAway()  # type: ignore[assignment]  # from here on, any store look-up fails the test
    known = known_credentials(issued.plaintext, cached)
    assert known is not None and known.tier is Tier.PRO and known.key_id == issued.record.id and known.error is None
    assert known_credentials(None, cached) is ANONYMOUS
    for token, words in [("", "must be 'Bearer <key>'"), ("svc_live_short", "not valid"), (new_key()[1], None)]:
        refused = known_credentials(token, cached)
        if words is None:  # a forged key of the right shape is no key the cache holds: only the store can tell
            assert refused is None
            continue
        assert refused is not None and refused.tier is Tier.PUBLIC and isinstance(refused.error, InvalidKey)
        assert words in refused.error.message
    await cached.drain()


async def test_revoking_through_the_service_takes_effect_at_once(keys: KeyService) -> None:
    issued = await keys.issue("dev@example.com")
    cached = KeyService(keys.repository, KeyCache(ttl=60))
    assert await cached.verify(issued.plaintext) is not None
    await cached.revoke(issued.record.id)
    assert await cached.verify(issued.plaintext) is None
    await cached.drain()


async def test_revoke_with_an_owner_touches_only_that_owners_keys(keys: KeyService) -> None:
    issued = await keys.issue("dev@example.com")
    assert await keys.revoke(issued.record.id, owner_email="someone-else@example.com") is None
    assert await keys.verify(issued.plaintext) is not None
    assert await keys.revoke(issued.record.id, owner_email="dev@example.com") is not None


def test_the_key_cache_is_bounded() -> None:
    cache = KeyCache(ttl=60, size=3)
    for n in range(10):
        cache.put(f"id{n}", None)
    assert [cache.get(f"id{n}")[0] for n in range(10)] == [False] * 7 + [True] * 3


async def _told(known: KnownHeaders, header: str) -> Tier:
    """The tier `known` tells for `header`, asking the store when it cannot tell (as the gate does)."""
    credentials = known.credentials([header])
    if credentials is None:
        credentials = await authenticate([header], known.keys)
    return credentials.tier


async def test_a_keyed_callers_header_is_told_again_from_memory(
    keys: KeyService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast path of a keyed call: once a header has named an active key the cache holds, the same header is told
    without being parsed, its key hashed or the cache asked; the key's use is still recorded on every call."""
    import garage_tools.access.credentials as module

    issued = await keys.issue("dev@example.com")
    cached = KeyService(keys.repository, KeyCache(ttl=60))
    known = KnownHeaders(cached)
    header = f"Bearer {issued.plaintext}"
    assert await _told(known, header) is Tier.PRO  # from the store
    first = known.credentials([header])  # from the cache: now kept
    assert first is not None and first.key_id == issued.record.id
    parsed: list[list[str]] = []

    def parse(authorization: list[str], *_: object) -> object:
        parsed.append(authorization)
        return module.known_credentials(None, cached)

    monkeypatch.setattr(module, "known_header_credentials", parse)
    used: list[str] = []
    monkeypatch.setattr(cached, "record_use", lambda record: used.append(record.id))
    again = known.credentials([header])
    assert again is first and parsed == [] and used == [issued.record.id]
    # A header of two, or another header, takes the usual way.
    assert known.credentials([header, header]) is not None and parsed == [[header, header]]
    assert known.credentials(["Bearer svc_live_other"]) is not None and len(parsed) == 2
    await cached.drain()


async def test_a_kept_header_ends_with_its_keys_cache_entry(keys: KeyService) -> None:
    """A key revoked in another process is refused here once the cache's entry of its record expires, whether or
    not its header was kept."""
    issued = await keys.issue("dev@example.com")
    clock = Clock()
    cached = KeyService(keys.repository, KeyCache(ttl=5, clock=clock))
    known = KnownHeaders(cached)
    header = f"Bearer {issued.plaintext}"
    assert await _told(known, header) is Tier.PRO
    assert await _told(known, header) is Tier.PRO  # kept
    await keys.repository.revoke(issued.record.id)  # elsewhere: this process is not told
    clock.now += 4.9
    assert await _told(known, header) is Tier.PRO  # still trusted, as the cache trusts it
    clock.now += 0.2
    assert await _told(known, header) is Tier.PUBLIC  # the entry expired: the store says revoked
    await cached.drain()


async def test_a_revocation_or_a_new_plan_here_forgets_the_kept_headers_at_once(keys: KeyService) -> None:
    issued, other = await keys.issue("dev@example.com"), await keys.issue("dev@example.com")
    cached = KeyService(keys.repository, KeyCache(ttl=60))
    known = KnownHeaders(cached)
    header, other_header = f"Bearer {issued.plaintext}", f"Bearer {other.plaintext}"
    for _ in range(2):
        assert await _told(known, header) is Tier.PRO and await _told(known, other_header) is Tier.PRO
    await cached.set_plan(other.record.id, "partner")
    told = known.credentials([other_header]) or await authenticate([other_header], cached)
    assert told.plan == "partner"
    await cached.revoke(issued.record.id)
    assert await _told(known, header) is Tier.PUBLIC
    assert await _told(known, header) is Tier.PUBLIC  # a revoked key is never kept
    await cached.drain()


async def test_the_kept_headers_are_bounded(keys: KeyService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(KnownHeaders, "MAX_REMEMBERED", 2)
    cached = KeyService(keys.repository, KeyCache(ttl=60))
    known = KnownHeaders(cached)
    for _ in range(3):
        issued = await keys.issue("dev@example.com")
        header = f"Bearer {issued.plaintext}"
        assert await _told(known, header) is Tier.PRO and await _told(known, header) is Tier.PRO
        assert len(known._seen) <= 2
    await cached.drain()
