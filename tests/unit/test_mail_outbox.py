"""The outbox table: messages commit with the caller's transaction, and claims never overlap."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, inspect, select

from garage_tools.mail import InvalidMail, Mail, Outbox, enqueue
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from garage_tools.store.models import ApiKey, OutboxMessage
from tests.fakes.clock import FakeClock

LEASE = timedelta(minutes=5)


def sign_in(to: str = "dev@example.com", n: int = 0) -> Mail:
    return Mail(to=to, subject=f"Your sign-in link {n}", text=f"https://example.com/login/{n}", kind="magic_link")


def report_row(key_id: str) -> ApiKey:
    # Any business row will do; API keys are the table that exists today.
    return ApiKey(
        id=key_id, owner_email="dev@example.com", name="x", secret_hash="0" * 64, created_at=datetime.now(UTC)
    )


async def count(database: Database, table: type[ApiKey] | type[OutboxMessage]) -> int:
    async with database.session() as session:
        return int(await session.scalar(select(func.count()).select_from(table)) or 0)


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"to": "a@example.com, b@example.com"}, "single e-mail address"),
        ({"to": "not-an-address"}, "single e-mail address"),
        ({"subject": "Hi\r\nBcc: victim@example.com"}, "one line"),
        ({"text": "  "}, "text body"),
        ({"kind": "Magic Link!"}, "label"),
    ],
)
def test_mail_that_could_never_be_sent_is_refused_at_once(fields: dict[str, str], problem: str) -> None:
    values = {"to": "dev@example.com", "subject": "Hi", "text": "Hello", **fields}
    with pytest.raises(InvalidMail, match=problem):
        Mail(**values)


def test_recipient_is_normalised() -> None:
    assert Mail(to="  Dev@Example.COM ", subject="Hi", text="Hello").to == "dev@example.com"


async def test_schema_has_the_outbox_with_the_indexes_the_worker_uses(database: Database) -> None:
    async with database.engine.connect() as conn:
        indexes = await conn.run_sync(lambda sync: inspect(sync).get_indexes("outbox"))
    assert {tuple(index["column_names"]) for index in indexes} >= {("status", "next_attempt_at")}


async def test_mail_commits_and_rolls_back_with_the_business_row(database: Database) -> None:
    outbox = Outbox(database, domain="doors.example.com")

    async def feature_that_fails_after_enqueueing() -> None:
        async with database.session() as session, session.begin():
            session.add(report_row("k-rolled-back"))
            await outbox.enqueue(session, sign_in())
            raise RuntimeError("the feature failed")

    with pytest.raises(RuntimeError):
        await feature_that_fails_after_enqueueing()
    assert await count(database, ApiKey) == 0
    assert await count(database, OutboxMessage) == 0

    async with database.session() as session, session.begin():
        session.add(report_row("k-committed"))
        message_id = await enqueue(session, sign_in(), domain="doors.example.com")
    assert await count(database, ApiKey) == 1
    assert (await outbox.latest_to("dev@example.com")) is not None
    assert re.fullmatch(r"<[0-9a-f-]{36}@doors\.example\.com>", message_id)


async def test_message_id_domain_comes_from_the_sender(database: Database) -> None:
    settings = Settings(_env_file=None, mail_from="Doors <mail@doors.example.com>")  # type: ignore[call-arg]
    message_id = await Outbox.from_settings(database, settings).submit(sign_in())
    assert message_id.endswith("@doors.example.com>")


async def test_a_claimed_message_is_not_claimed_again_until_its_lease_runs_out(database: Database) -> None:
    clock = FakeClock()
    outbox = Outbox(database, clock=clock)
    for n in range(3):
        await outbox.submit(sign_in(n=n))
    first = await outbox.claim(2, LEASE)
    second = await outbox.claim(2, LEASE)
    assert len(first) == 2 and len(second) == 1
    assert not {m.id for m in first} & {m.id for m in second}
    assert await outbox.claim(10, LEASE) == []

    clock.advance(LEASE.total_seconds() + 1)
    reclaimed = await outbox.claim(10, LEASE)
    assert sorted(m.id for m in reclaimed) == sorted(m.id for m in first + second)
    assert {m.attempts for m in reclaimed} == {2}  # each claim is an attempt


async def test_a_message_is_not_due_before_its_next_attempt(database: Database) -> None:
    clock = FakeClock()
    outbox = Outbox(database, clock=clock)
    await outbox.submit(sign_in())
    [claimed] = await outbox.claim(1, LEASE)
    await outbox.mark_failed(claimed, "ConnectionRefusedError", clock() + timedelta(seconds=60))
    assert await outbox.claim(1, LEASE) == []
    clock.advance(60)
    assert len(await outbox.claim(1, LEASE)) == 1


async def test_a_worker_whose_lease_ran_out_cannot_overwrite_the_next_ones_result(database: Database) -> None:
    clock = FakeClock()
    outbox = Outbox(database, clock=clock)
    await outbox.submit(sign_in())
    [slow] = await outbox.claim(1, LEASE)
    clock.advance(LEASE.total_seconds() + 1)
    [fast] = await outbox.claim(1, LEASE)
    assert await outbox.mark_sent(fast) is True
    await outbox.mark_failed(slow, "TimeoutError", None)  # too late: it is not its claim any more
    assert await outbox.mark_sent(slow) is False
    summary = await outbox.summary()
    assert summary.counts["sent"] == 1 and summary.counts["dead"] == 0


async def test_released_messages_are_due_again_at_once_and_uncounted(database: Database) -> None:
    outbox = Outbox(database, clock=FakeClock())
    await outbox.submit(sign_in())
    claimed = await outbox.claim(1, LEASE)
    assert await outbox.release(claimed) == 1
    [again] = await outbox.claim(1, LEASE)
    assert again.attempts == 1


async def test_latest_to_is_the_newest_for_that_address_only(database: Database) -> None:
    clock = FakeClock()
    outbox = Outbox(database, clock=clock)
    await outbox.submit(sign_in(n=1))
    clock.advance(1)
    await outbox.submit(sign_in(n=2))
    await outbox.submit(sign_in(to="other@example.com", n=3))
    latest = await outbox.latest_to("DEV@example.com")
    assert latest is not None and latest.subject == "Your sign-in link 2" and latest.status == "pending"
    assert await outbox.latest_to("nobody@example.com") is None


async def test_concurrent_claims_from_separate_connections_never_overlap(database: Database) -> None:
    clock = FakeClock()
    others = [Database(database.url) for _ in range(3)]  # their own engines, like other processes
    try:
        outboxes = [Outbox(db, clock=clock) for db in [database, *others]]
        for n in range(40):
            await outboxes[0].submit(sign_in(n=n))
        taken: list[int] = []
        while batches := [b for b in await asyncio.gather(*(o.claim(3, LEASE) for o in outboxes)) if b]:
            taken += [mail.id for batch in batches for mail in batch]
        assert len(taken) == len(set(taken)) == 40
    finally:
        for db in others:
            await db.dispose()
