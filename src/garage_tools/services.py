"""The long-lived parts every surface and tool share, built once per process."""

from __future__ import annotations

from dataclasses import dataclass

from garage_tools.access.keys import KeyService
from garage_tools.knowledge.loader import Knowledge, load_knowledge
from garage_tools.registry import Registry
from garage_tools.settings import Settings
from garage_tools.store.api_keys import ApiKeyRepository
from garage_tools.store.database import Database
from garage_tools.tools import build_registry


@dataclass(frozen=True)
class Services:
    settings: Settings
    knowledge: Knowledge
    registry: Registry
    database: Database
    keys: KeyService

    async def start(self) -> None:
        if self.settings.auto_migrate:
            await self.database.migrate()

    async def close(self) -> None:
        await self.database.dispose()


def build_services(settings: Settings) -> Services:
    """Load and check the knowledge base and open the database (no I/O beyond reading data files)."""
    database = Database(settings.db_url)
    return Services(
        settings=settings,
        knowledge=load_knowledge(),
        registry=build_registry(),
        database=database,
        keys=KeyService(ApiKeyRepository(database)),
    )
