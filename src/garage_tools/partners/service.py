"""What the routing and promotion tools use: the directory snapshot and the lead recorder of a process."""

from __future__ import annotations

from garage_tools.partners.directory import PartnerDirectory
from garage_tools.partners.leads import LeadRecorder
from garage_tools.store.database import Database
from garage_tools.store.partners import PartnerRepository


class Partners:
    """The partner directory and lead recording over one store."""

    def __init__(self, repository: PartnerRepository, directory: PartnerDirectory, leads: LeadRecorder) -> None:
        self.repository = repository
        self.directory = directory
        self.leads = leads

    @classmethod
    def over(cls, database: Database, *, refresh_seconds: float = 5.0) -> Partners:
        repository = PartnerRepository(database)
        return cls(repository, PartnerDirectory(repository, refresh_seconds=refresh_seconds), LeadRecorder(repository))

    async def close(self) -> None:
        """Write the leads still waiting (best effort: a store that does not answer keeps them)."""
        await self.directory.stop_warming()
        await self.leads.flush()
