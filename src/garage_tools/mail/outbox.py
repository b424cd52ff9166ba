"""The outbox table's operations: enqueue in the caller's transaction, claim, settle, report.

A message moves pending → sending → sent, or back to pending with a later `next_attempt_at`
after a failure, or to dead once it has used up its attempts. `sending` carries a lease
(`claimed_until`) and a `claim_token`: a worker that dies mid-batch holds its messages only
until the lease runs out, and a worker whose lease ran out cannot overwrite the next one's result.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.mail.message import Mail, QueuedMail, StoredContent, new_message_id
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from garage_tools.store.models import WEBHOOK_CHANNEL, OutboxMessage
from garage_tools.store.moments import as_utc

PENDING, SENDING, SENT, DEAD = "pending", "sending", "sent", "dead"
STATUSES = (PENDING, SENDING, SENT, DEAD)
DEFAULT_DOMAIN = "localhost"

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


async def enqueue(
    session: AsyncSession, mail: Mail, *, domain: str = DEFAULT_DOMAIN, now: datetime | None = None
) -> str:
    """Add `mail` to the outbox inside the caller's open transaction; return its Message-ID.

    Nothing is sent now: the message becomes visible to the worker when the caller commits,
    and vanishes with the caller's rollback, so a business row and its e-mail stand or fall
    together. `domain` names the Message-ID (use `Outbox.enqueue`, which takes it from `mail_from`).
    """
    moment = now or utc_now()
    message_id = new_message_id(domain)
    session.add(
        OutboxMessage(
            message_id=message_id,
            to_address=mail.to,
            subject=mail.subject,
            text_body=mail.text,
            html_body=mail.html,
            kind=mail.kind,
            status=PENDING,
            attempts=0,
            next_attempt_at=moment,
            created_at=moment,
        )
    )
    return message_id


@dataclass(frozen=True, slots=True)
class Answer:
    """What a webhook endpoint answered one delivery: its HTTP status (None: no answer) and the start of its body."""

    status: int | None
    body: str


@dataclass(frozen=True, slots=True)
class DeadMessage:
    id: int
    message_id: str
    to: str
    kind: str
    attempts: int
    last_error: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class OutboxDepth:
    """What the metrics report: messages still to deliver or given up on, and the oldest one waiting."""

    counts: dict[str, int]  # pending, sending and dead; sent messages (the bulk of the table) are not counted
    oldest_waiting: datetime | None


@dataclass(frozen=True, slots=True)
class OutboxSummary:
    """What `mail status` shows."""

    counts: dict[str, int]
    oldest_waiting: datetime | None  # created_at of the oldest message not yet sent nor dead
    dead: list[DeadMessage]


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredMail(StoredContent):
    """A message as stored, for `mail latest`."""

    status: str
    sent_at: datetime | None


def _content(row: OutboxMessage) -> dict[str, Any]:
    """The row's columns under the names `StoredContent` gives them."""
    return {
        "message_id": row.message_id,
        "to": row.to_address,
        "subject": row.subject,
        "text": row.text_body,
        "html": row.html_body,
        "kind": row.kind,
        "attempts": row.attempts,
        "created_at": as_utc(row.created_at),
    }


def _queued(row: OutboxMessage, token: str) -> QueuedMail:
    return QueuedMail(
        **_content(row),
        id=row.id,
        claim_token=token,
        channel=row.channel,
        endpoint_id=row.endpoint_id,
    )


class Outbox:
    """The outbox of one database. Time comes from `clock`, so tests can step over backoff delays."""

    def __init__(self, database: Database, *, domain: str = DEFAULT_DOMAIN, clock: Clock = utc_now) -> None:
        self.database = database
        self.domain = domain
        self.clock = clock

    @classmethod
    def from_settings(cls, database: Database, settings: Settings, *, clock: Clock = utc_now) -> Outbox:
        return cls(database, domain=settings.mail_from_address.rsplit("@", 1)[1], clock=clock)

    async def enqueue(self, session: AsyncSession, mail: Mail) -> str:
        """`enqueue` with this outbox's Message-ID domain and clock, in the caller's transaction."""
        return await enqueue(session, mail, domain=self.domain, now=self.clock())

    async def submit(self, mail: Mail) -> str:
        """Enqueue `mail` in a transaction of its own (when there is no business row to commit with it)."""
        async with self.database.session() as session, session.begin():
            return await self.enqueue(session, mail)

    async def claim(self, limit: int, lease: timedelta, webhook_lease: timedelta | None = None) -> list[QueuedMail]:
        """Atomically take up to `limit` due messages for one worker, leased for `lease` (a webhook delivery
        for `webhook_lease`, when given: each transport's own deadline bounds how long a crash holds it).

        Due means pending with `next_attempt_at` passed, or sending with a lease that ran out.
        Each claim counts as an attempt, so a message that kills its worker is not retried forever.
        """
        now = self.clock()
        token = secrets.token_hex(16)
        due = or_(
            and_(OutboxMessage.status == PENDING, OutboxMessage.next_attempt_at <= now),
            and_(OutboxMessage.status == SENDING, OutboxMessage.claimed_until < now),
        )
        chosen = select(OutboxMessage.id).where(due).order_by(OutboxMessage.next_attempt_at, OutboxMessage.id)
        until: object = now + lease
        if webhook_lease is not None:
            until = case((OutboxMessage.channel == WEBHOOK_CHANNEL, now + webhook_lease), else_=now + lease)
        take = update(OutboxMessage).values(
            status=SENDING, claimed_until=until, claim_token=token, attempts=OutboxMessage.attempts + 1
        )
        async with self.database.session() as session, session.begin():
            if self.database.is_sqlite:
                # One statement under SQLite's single write lock: no other writer can come between
                # choosing and taking. (Read first, write later could fail on a concurrent commit.)
                statement = take.where(OutboxMessage.id.in_(chosen.limit(limit).scalar_subquery()))
            else:
                # PostgreSQL: lock the chosen rows, skipping any another worker has locked, then take
                # exactly those. (As a subquery of the UPDATE, the locking SELECT may run more than once.)
                ids = list(await session.scalars(chosen.limit(limit).with_for_update(skip_locked=True)))
                if not ids:
                    return []
                statement = take.where(OutboxMessage.id.in_(ids), due)
            rows = await session.scalars(
                statement.returning(OutboxMessage), execution_options={"synchronize_session": False}
            )
            claimed = [_queued(row, token) for row in rows.all()]
        return sorted(claimed, key=lambda mail: mail.id)

    async def mark_sent(self, mail: QueuedMail, answer: Answer | None = None) -> bool:
        """Record that `mail` was handed to the server (a webhook: what the endpoint `answer`ed). False if our
        lease had run out meanwhile."""
        sent = {"status": SENT, "sent_at": self.clock(), "claimed_until": None, "claim_token": None, "last_error": None}
        sent |= self._answered(answer)
        # Writes only, the claimed row first: on SQLite a read before the first write could meet
        # another worker's commit and fail at once instead of waiting for the lock.
        async with self.database.session() as session, session.begin():
            ours = await session.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id == mail.id, OutboxMessage.claim_token == mail.claim_token)
                .values(**sent)
            )
            if ours.rowcount:  # type: ignore[attr-defined]
                return True
            # Someone took the message over after our lease ran out. Sent is still the truth.
            await session.execute(update(OutboxMessage).where(OutboxMessage.id == mail.id).values(**sent))
        return False

    async def mark_failed(
        self, mail: QueuedMail, error: str, retry_at: datetime | None, answer: Answer | None = None
    ) -> None:
        """Record a failed attempt: pending again from `retry_at`, or dead when `retry_at` is None."""
        values: dict[str, object] = {"last_error": error[:500], "claimed_until": None, "claim_token": None}
        values |= self._answered(answer)
        values |= {"status": PENDING, "next_attempt_at": retry_at} if retry_at else {"status": DEAD}
        async with self.database.session() as session, session.begin():
            await session.execute(
                update(OutboxMessage)
                .where(
                    OutboxMessage.id == mail.id,
                    OutboxMessage.status == SENDING,
                    OutboxMessage.claim_token == mail.claim_token,
                )
                .values(**values)
            )

    def _answered(self, answer: Answer | None) -> dict[str, object]:
        if answer is None:
            return {}
        return {"last_status": answer.status, "last_response": answer.body[:500], "last_attempt_at": self.clock()}

    async def release(self, mails: Sequence[QueuedMail]) -> int:
        """Hand back claimed messages that were not tried (a worker stopping), uncounted and due at once."""
        if not mails:
            return 0
        released = 0
        async with self.database.session() as session, session.begin():
            for mail in mails:
                result = await session.execute(
                    update(OutboxMessage)
                    .where(
                        OutboxMessage.id == mail.id,
                        OutboxMessage.status == SENDING,
                        OutboxMessage.claim_token == mail.claim_token,
                    )
                    .values(
                        status=PENDING,
                        attempts=OutboxMessage.attempts - 1,
                        claimed_until=None,
                        claim_token=None,
                    )
                )
                released += result.rowcount  # type: ignore[attr-defined]
        return released

    async def depth(self) -> OutboxDepth:
        """Counts of pending, sending and dead messages and the oldest waiting one (two indexed queries)."""
        unsent = (PENDING, SENDING, DEAD)
        async with self.database.session() as session:
            counted = await session.execute(
                select(OutboxMessage.status, func.count())
                .where(OutboxMessage.status.in_(unsent))
                .group_by(OutboxMessage.status)
            )
            counts = dict.fromkeys(unsent, 0) | {status: int(n) for status, n in counted.all()}
            oldest = await session.scalar(
                select(func.min(OutboxMessage.created_at)).where(OutboxMessage.status.in_((PENDING, SENDING)))
            )
        return OutboxDepth(counts=counts, oldest_waiting=as_utc(oldest) if oldest else None)

    async def summary(self, dead_limit: int = 20) -> OutboxSummary:
        """Counts by status, the oldest message still waiting, and the newest dead ones with their errors."""
        async with self.database.session() as session:
            counted = await session.execute(select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status))
            counts = dict.fromkeys(STATUSES, 0) | {status: int(n) for status, n in counted.all()}
            oldest = await session.scalar(
                select(func.min(OutboxMessage.created_at)).where(OutboxMessage.status.in_((PENDING, SENDING)))
            )
            dead_rows = await session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.status == DEAD)
                .order_by(OutboxMessage.created_at.desc(), OutboxMessage.id.desc())
                .limit(dead_limit)
            )
            dead = [
                DeadMessage(
                    id=row.id,
                    message_id=row.message_id,
                    to=row.to_address,
                    kind=row.kind,
                    attempts=row.attempts,
                    last_error=row.last_error,
                    created_at=as_utc(row.created_at),
                )
                for row in dead_rows.all()
            ]
        return OutboxSummary(counts=counts, oldest_waiting=as_utc(oldest) if oldest else None, dead=dead)

    async def latest_to(self, address: str) -> StoredMail | None:
        """The newest message to `address`, whatever its status (for local sign-in links)."""
        async with self.database.session() as session:
            row = await session.scalar(
                select(OutboxMessage)
                .where(OutboxMessage.to_address == address.strip().lower())
                .order_by(OutboxMessage.created_at.desc(), OutboxMessage.id.desc())
                .limit(1)
            )
            if row is None:
                return None
            return StoredMail(**_content(row), status=row.status, sent_at=as_utc(row.sent_at) if row.sent_at else None)
