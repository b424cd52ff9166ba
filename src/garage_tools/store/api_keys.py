"""API key persistence: create, find, list, revoke. Knows nothing of the key format."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from garage_tools.store.database import Database
from garage_tools.store.models import ApiKey
from garage_tools.store.moments import as_utc

# Recording every use would turn each authenticated read into a write; once a minute is enough
# to show "last used" in a dashboard.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class KeyRecord:
    id: str
    owner_email: str
    name: str
    secret_hash: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
    plan: str | None = None  # its own plan; None: the default plan (`access/limits.py`)

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def _record(row: ApiKey) -> KeyRecord:
    return KeyRecord(
        id=row.id,
        owner_email=row.owner_email,
        name=row.name,
        secret_hash=row.secret_hash,
        created_at=as_utc(row.created_at),
        last_used_at=as_utc(row.last_used_at) if row.last_used_at else None,
        revoked_at=as_utc(row.revoked_at) if row.revoked_at else None,
        plan=row.plan,
    )


class ApiKeyRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def add(self, *, key_id: str, owner_email: str, name: str, secret_hash: str) -> KeyRecord:
        row = ApiKey(
            id=key_id,
            owner_email=owner_email,
            name=name,
            secret_hash=secret_hash,
            created_at=datetime.now(UTC),
        )
        async with self._db.session() as session, session.begin():
            session.add(row)
        return _record(row)

    async def get(self, key_id: str) -> KeyRecord | None:
        async with self._db.session() as session:
            row = await session.get(ApiKey, key_id)
            return _record(row) if row else None

    async def find_by_hash(self, secret_hash: str) -> KeyRecord | None:
        """The key whose whole-key hash is `secret_hash`: how a presented key is verified."""
        async with self._db.session() as session:
            row = (await session.execute(select(ApiKey).where(ApiKey.secret_hash == secret_hash))).scalar_one_or_none()
            return _record(row) if row else None

    async def list(self, owner_email: str | None = None) -> list[KeyRecord]:
        query = select(ApiKey).order_by(ApiKey.created_at, ApiKey.id)
        if owner_email is not None:
            query = query.where(ApiKey.owner_email == owner_email)
        async with self._db.session() as session:
            return [_record(row) for row in (await session.scalars(query)).all()]

    async def revoke(self, key_id: str, owner_email: str | None = None) -> KeyRecord | None:
        """Revoke a key (idempotent: revoking twice keeps the first time).

        None if it doesn't exist, or isn't `owner_email`'s when an owner is given.
        """
        async with self._db.session() as session, session.begin():
            row = await session.get(ApiKey, key_id)
            if row is None or (owner_email is not None and row.owner_email != owner_email):
                return None
            if row.revoked_at is None:
                row.revoked_at = datetime.now(UTC)
            return _record(row)

    async def set_plan(self, key_id: str, plan: str | None) -> KeyRecord | None:
        """Put a key on `plan` (None: back to the default plan); None if there is no such key."""
        async with self._db.session() as session, session.begin():
            row = await session.get(ApiKey, key_id)
            if row is None:
                return None
            row.plan = plan
            return _record(row)

    async def touch(self, record: KeyRecord) -> None:
        """Note that a key was used, at most once per LAST_USED_RESOLUTION."""
        now = datetime.now(UTC)
        if record.last_used_at is not None and now - record.last_used_at < LAST_USED_RESOLUTION:
            return
        async with self._db.session() as session, session.begin():
            await session.execute(update(ApiKey).where(ApiKey.id == record.id).values(last_used_at=now))
