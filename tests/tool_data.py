"""Real stores for a handler's unit test (`ToolContext.data` is never missing): what a test of a tool that reads
no store (diagnose, the labs, the photos, the opener) passes.

The database is SQLite in memory and never migrated: a tool that did write would fail loudly on a missing table
rather than pass on a stub. Tests of tools that store things build theirs over a migrated database instead.
"""

from __future__ import annotations

from garage_tools.mail import Outbox
from garage_tools.partners.service import Partners
from garage_tools.registry import ToolData
from garage_tools.store.database import Database


def unopened_data() -> ToolData:
    """Stores no one opens: an in-memory database, its outbox, the packaged partner directory, no models."""
    database = Database("sqlite+aiosqlite:///:memory:")
    return ToolData(
        database=database, outbox=Outbox(database, domain="doors.example.com"), partners=Partners.over(database)
    )
