"""The `ToolContext` a benchmark calls tools with: real stores that no tool it measures opens.

The tools these benchmarks call (diagnose, the labs' retrieval) read no store, but a handler's context always
carries one (`ToolContext.data`): here an in-memory SQLite database, never migrated, so a tool that did write
would fail loudly.
"""

from __future__ import annotations

from garage_tools.access.caller import Caller
from garage_tools.knowledge.loader import Knowledge
from garage_tools.mail import Outbox
from garage_tools.partners.service import Partners
from garage_tools.registry import ToolContext, ToolData
from garage_tools.store.database import Database


def bench_context(knowledge: Knowledge, caller: Caller | None = None) -> ToolContext:
    database = Database("sqlite+aiosqlite:///:memory:")
    data = ToolData(
        database=database, outbox=Outbox(database, domain="bench.example"), partners=Partners.over(database)
    )
    return ToolContext(
        knowledge=knowledge, caller=caller or Caller.anonymous("bench"), base_url="http://bench", data=data
    )
