"""Each key's calls per day (API keys by id, connected apps as `oauth:<grant id>`), for the dashboard's chart.

Written in batches (`access/usage.py` adds up a process's calls in memory and flushes them every few seconds
and at shutdown), as one upsert that adds to the day's count, so several processes may flush the same day.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from garage_tools.store.database import Database
from garage_tools.store.models import KeyUsage


class UsageRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def add(self, counts: Mapping[tuple[str, date], int]) -> None:
        """Add `counts` ((key id, day) -> calls) to the stored counts, in one transaction."""
        if not counts:
            return
        rows = [{"key_id": key_id, "day": day, "calls": calls} for (key_id, day), calls in counts.items()]
        insert = sqlite_insert if self._db.is_sqlite else postgres_insert
        async with self._db.session() as session, session.begin():
            statement = insert(KeyUsage).values(rows)
            statement = statement.on_conflict_do_update(
                index_elements=["key_id", "day"], set_={"calls": KeyUsage.calls + statement.excluded.calls}
            )
            await session.execute(statement)

    async def daily(self, key_ids: Iterable[str], since: date) -> dict[str, dict[date, int]]:
        """Each key's calls per day from `since` on (days without calls are absent)."""
        ids = list(key_ids)
        if not ids:
            return {}
        query = select(KeyUsage.key_id, KeyUsage.day, KeyUsage.calls).where(
            KeyUsage.key_id.in_(ids), KeyUsage.day >= since
        )
        found: dict[str, dict[date, int]] = {key_id: {} for key_id in ids}
        async with self._db.session() as session:
            for key_id, day, calls in (await session.execute(query)).all():
                found[key_id][day] = calls
        return found
