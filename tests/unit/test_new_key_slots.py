"""A new key waits for the dashboard in a one-time slot of the session: sealed, read once, in Redis or memory."""

from __future__ import annotations

import uuid

import pytest

from garage_tools.access.redis_client import RedisClient
from garage_tools.access.tokens import new_secret, secret_hash
from garage_tools.sealing import seal, unseal
from garage_tools.web.portal.reveal import NewKey, NewKeySlots
from tests.redis_keys import delete_matching

KEY = NewKey("abc123", "laptop", "svc_live_abc123" + "x" * 50)


def test_a_sealed_value_opens_only_with_its_secret() -> None:
    session = new_secret()
    sealed = seal(session, KEY.plaintext)
    assert KEY.plaintext.encode() not in sealed
    assert unseal(session, sealed) == KEY.plaintext
    assert unseal(new_secret(), sealed) is None
    tampered = sealed[:20] + bytes([sealed[20] ^ 1]) + sealed[21:]
    assert unseal(session, tampered) is None


@pytest.mark.parametrize("backend", ["memory", "redis"])
async def test_a_slot_is_read_once_and_by_its_session_only(backend: str) -> None:
    prefix = f"garage-tools-test-{uuid.uuid4().hex[:12]}:"
    redis = RedisClient("redis://127.0.0.1:6379/0") if backend == "redis" else None
    writer, reader = NewKeySlots(redis, prefix), NewKeySlots(redis, prefix)  # two workers, with Redis
    session = new_secret()
    try:
        await writer.put(session, KEY)
        assert await writer.take(new_secret()) is None
        if backend == "redis":
            assert redis is not None
            stored = await redis.execute("GET", f"{prefix}new-key:{secret_hash(session)}")
            assert stored and KEY.plaintext.encode() not in stored  # what Redis holds is sealed
        taker = reader if backend == "redis" else writer
        assert await taker.take(session) == KEY
        assert await taker.take(session) is None  # once
    finally:
        if redis is not None:
            await delete_matching(redis, f"{prefix}*")
            await redis.close()
