"""What the routing and promotion tools use: the directory snapshot and the lead recorder of a process."""

from __future__ import annotations

from garage_tools.knowledge.loader import Knowledge
from garage_tools.mail import Outbox
from garage_tools.partners.directory import PartnerDirectory
from garage_tools.partners.leads import LeadRecorder
from garage_tools.partners.notices import LeadNotices, problem_words
from garage_tools.store.database import Database
from garage_tools.store.partner_console import PartnerConsoleRepository
from garage_tools.store.partners import PartnerRepository


class Partners:
    """The partner directory, lead recording and lead notices over one store."""

    def __init__(
        self,
        repository: PartnerRepository,
        directory: PartnerDirectory,
        leads: LeadRecorder,
        notices: LeadNotices,
    ) -> None:
        self.repository = repository
        self.directory = directory
        self.leads = leads
        self.notices = notices

    @classmethod
    def over(
        cls,
        database: Database,
        *,
        refresh_seconds: float = 5.0,
        outbox: Outbox | None = None,
        knowledge: Knowledge | None = None,
    ) -> Partners:
        """Everything over `database`; without an `outbox`, leads are recorded but nobody is mailed.
        `knowledge` gives the words for the problems a notice names."""
        repository = PartnerRepository(database)
        words = problem_words(knowledge) if knowledge is not None else None
        notices = LeadNotices(outbox, PartnerConsoleRepository(database), words)
        directory = PartnerDirectory(repository, refresh_seconds=refresh_seconds)
        return cls(repository, directory, LeadRecorder(repository, tell=notices.tell_at_once), notices)

    async def close(self) -> None:
        """Write the leads still waiting (best effort: a store that does not answer keeps them)."""
        await self.directory.stop_warming()
        await self.leads.flush()
