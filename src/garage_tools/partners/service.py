"""What the routing, promotion and request tools use: the directory snapshot, the referral recorder, the lead
notices and the service requests of a process."""

from __future__ import annotations

from garage_tools.knowledge.loader import Knowledge
from garage_tools.mail import Outbox
from garage_tools.partners.business_hours import BusinessHours
from garage_tools.partners.directory import PartnerDirectory
from garage_tools.partners.notices import LeadNotices, problem_words
from garage_tools.partners.referrals import ReferralRecorder
from garage_tools.partners.request_mail import RequestMail
from garage_tools.partners.request_webhooks import request_events
from garage_tools.partners.requests import ServiceRequests
from garage_tools.store.database import Database
from garage_tools.store.partner_console import PartnerConsoleRepository
from garage_tools.store.partners import PartnerRepository
from garage_tools.store.referrals import ReferralRepository
from garage_tools.store.service_requests import EventHook, ServiceRequestRepository


class Partners:
    """The partner directory, referral recording and lead notices over one store."""

    def __init__(
        self,
        repository: PartnerRepository,
        directory: PartnerDirectory,
        referrals: ReferralRecorder,
        notices: LeadNotices,
        requests: ServiceRequests,
    ) -> None:
        self.repository = repository
        self.directory = directory
        self.referrals = referrals  # searches: demand, written in batches off the request path, mailed to nobody
        self.notices = notices
        self.requests = requests  # homeowners' service requests: changes, re-routing, the sweep

    @classmethod
    def over(
        cls,
        database: Database,
        *,
        refresh_seconds: float = 5.0,
        outbox: Outbox | None = None,
        knowledge: Knowledge | None = None,
        response_hours: float = 2.0,
        business_hours: BusinessHours | None = None,
        limit_per_contact: int = 3,
    ) -> Partners:
        """Everything over `database`; without an `outbox`, leads and requests are stored but nobody is mailed.
        `knowledge` gives the words for the problems a notice names.

        Service requests' events go to their hooks here: the mail hook (partners told, homeowners updated),
        and any other that wants them (webhook deliveries) is added to `hooks` below."""
        repository = PartnerRepository(database)
        words = problem_words(knowledge) if knowledge is not None else None
        notices = LeadNotices(outbox, PartnerConsoleRepository(database), words)
        directory = PartnerDirectory(repository, refresh_seconds=refresh_seconds)
        mail = RequestMail(outbox, directory.current, words or {}, response_hours)
        hooks: list[EventHook] = [mail, request_events]  # e-mails; webhook deliveries to the partner's endpoints
        requests = ServiceRequests(
            ServiceRequestRepository(database, hooks=hooks),
            directory,
            response_hours=response_hours,
            business_hours=business_hours or BusinessHours(),
            limit_per_contact=limit_per_contact,
        )
        return cls(repository, directory, ReferralRecorder(ReferralRepository(database)), notices, requests)

    async def close(self) -> None:
        """Write the referrals still waiting (best effort: a store that does not answer keeps them)."""
        await self.directory.stop_warming()
        await self.referrals.flush()
