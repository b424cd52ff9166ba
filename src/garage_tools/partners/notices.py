"""Lead notices: how a partner hears of the leads routed to them, by e-mail through the outbox.

A lead is what a homeowner chose to send: an inspection with consent to share their contact details (and a
service request, whose notices are `request_mail.py`'s). A search is not a lead: routeByZip records a
referral (`referrals.py`), which nobody is mailed about. The same homeowner's lead for the same partner
within a day is told once (`DUPLICATE_WINDOW`), and the repeat is marked told so no digest repeats it.

A hot lead (an emergency, or a job that needs a pro now) is mailed to the partner's addresses in the
transaction that stores it, so it leaves within seconds of the request and is never lost or sent twice.
Warm and cold leads wait for the daily digest (`garage-tools partners digest`). Either way the lead is
marked told (`lead_events.notified_at`), so each reaches its partner once.

A notice says what, where, when and the door size. The homeowner's name, address and report link are in
it only when the lead carries them, and a lead carries them only when the homeowner agreed that the pro
may contact them (`tools/inspection/next_step.py` `lead_for`): a notice never holds more than its lead.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.catalogs import translations
from garage_tools.knowledge.loader import Knowledge
from garage_tools.languages import DEFAULT, N_
from garage_tools.mail import Mail, Outbox
from garage_tools.partners.request_mail import ProblemWords, aligned, problem_in, speaks_row
from garage_tools.store.inspections import report_url
from garage_tools.store.partner_console import (
    DigestBatch,
    PartnerConsoleRepository,
    PartnerLead,
    contacts_of,
    told_contacts_since,
    urgent_told_since,
)
from garage_tools.store.partners import Lead

log = logging.getLogger(__name__)

HOT = "hot"
CONSOLE_PATH = "/partners"
MAX_DIGEST_LINES = 50  # the rest are counted, and listed in the console
#: Urgent notices a partner gets in an hour at most; beyond it (a flood of requests, perhaps made to bury a
#: partner in mail), hot leads wait for the digest like the others. Still recorded, still in the console.
URGENT_PER_HOUR = 30
#: A homeowner's lead a partner was told of within this is not told again (a resubmitted inspection).
DUPLICATE_WINDOW = timedelta(days=1)
NOT_SAID = N_("Not said")

_HEAT_WORDS = {"hot": N_("urgent"), "warm": N_("replacement"), "cold": N_("looking into it")}


def problem_words(knowledge: Knowledge) -> ProblemWords:
    """Each issue and symptom key a lead or request may carry, as a partner reads it in each language
    ("Broken or failing spring", "Resorte roto o fallando")."""
    return {
        code: {
            **{symptom.key: symptom.label for symptom in language.tree.symptoms},
            **{key: issue.name for key, issue in language.tree.issues.items()},
        }
        for code, language in knowledge.languages.items()
    }


def report_link(base_url: str | None, report_id: str | None) -> str | None:
    """The inspection report page a lead points to, when it points to one and the service's address is known."""
    return report_url(base_url, report_id) if base_url and report_id else None


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


class ToldLead(Protocol):
    """What a notice says of a lead: a new one (`Lead`) or one from the console's list (`PartnerLead`)."""

    @property
    def created_at(self) -> datetime: ...
    @property
    def zip(self) -> str | None: ...
    @property
    def door_size(self) -> str | None: ...
    @property
    def lead_heat(self) -> str | None: ...
    @property
    def contact_name(self) -> str | None: ...
    @property
    def contact_email(self) -> str | None: ...
    @property
    def language(self) -> str | None: ...


def _lead_lines(problem: str, lead: ToldLead, report: str | None, language: str = DEFAULT) -> list[str]:
    _ = translations(language).gettext
    heat_words = _HEAT_WORDS.get(lead.lead_heat or "")
    lines = aligned(
        [
            (_("What"), problem),
            (_("Where"), _("ZIP {zip}").format(zip=lead.zip or _("not known"))),
            (_("When"), _when(lead.created_at)),
            (_("Door"), lead.door_size or _("size not given")),
            *([said] if (said := speaks_row(lead.language, language)) else []),
        ]
    )
    lines.append(_("How soon: {heat}").format(heat=_(heat_words) if heat_words else _("not said")))
    email = lead.contact_email
    if email:
        # Only a homeowner who agreed to be contacted by the matched pro is named here.
        lines.append(
            _("Homeowner: {name} <{email}> agreed that you may contact them.").format(
                name=lead.contact_name or _("name not given"), email=email
            )
        )
    if report:
        lines.append(_("Inspection report: {link}").format(link=report))
    if not email:
        lines.append(_("The homeowner did not share contact details; they may call or book with you directly."))
    return lines


def hot_lead_mail(to: str, partner_name: str, lead: Lead, problem: str, language: str = DEFAULT) -> Mail:
    """The notice of one hot lead, in the partner's `language`; `problem` is its issue in words."""
    _ = translations(language).gettext
    lines = [
        _("Hello {name},").format(name=partner_name),
        "",
        _("A homeowner near you needs a garage door pro now."),
        "",
        *_lead_lines(problem, lead, report_link(lead.base_url, lead.report_id), language),
    ]
    if lead.base_url:
        lines += ["", _("See all your leads and your offers: {link}").format(link=f"{lead.base_url}{CONSOLE_PATH}")]
    lines += ["", _("You receive this because Garage Door Tools routes homeowners in your area to you.")]
    return Mail(
        to=to,
        subject=_("Urgent lead: {problem} in {place}").format(
            problem=problem.lower(), place=lead.zip or _("your area")
        ),
        text="\n".join(lines) + "\n",
        kind="partner_lead",
    )


def digest_mail(to: str, batch: DigestBatch, base_url: str | None, words: ProblemWords) -> Mail:
    """The daily digest of one partner's warm and cold leads (and any hot one that could not be told at once),
    in the partner's language."""
    language = batch.language
    _, ngettext = translations(language).gettext, translations(language).ngettext
    count = len(batch.leads)
    lines = [
        _("Hello {name},").format(name=batch.display_name),
        "",
        ngettext("%(count)d new lead since the last digest:", "%(count)d new leads since the last digest:", count)
        % {"count": count},
    ]
    for lead in batch.leads[:MAX_DIGEST_LINES]:
        lines += ["", *_digest_lines(lead, base_url, words, language)]
    if count > MAX_DIGEST_LINES:
        lines += ["", _("... and {count} more.").format(count=count - MAX_DIGEST_LINES)]
    if base_url:
        lines += ["", _("See and filter all your leads: {link}").format(link=f"{base_url}{CONSOLE_PATH}")]
    return Mail(
        to=to,
        subject=_("Your leads from Garage Door Tools: {count} new").format(count=count),
        text="\n".join(lines) + "\n",
        kind="partner_digest",
    )


def _digest_lines(lead: PartnerLead, base_url: str | None, words: ProblemWords, language: str) -> list[str]:
    problem = problem_in(words, lead.issue, language) or translations(language).gettext(NOT_SAID)
    return _lead_lines(problem, lead, report_link(base_url, lead.report_id), language)


class LeadNotices:
    """Mails partners their leads: hot ones at once, the rest in a digest."""

    def __init__(
        self, outbox: Outbox | None, console: PartnerConsoleRepository, words: ProblemWords | None = None
    ) -> None:
        self.outbox = outbox
        self.console = console
        self.words = words or {}  # `problem_words`: issue and symptom keys as people read them, per language

    def problem(self, key: str | None, language: str = DEFAULT) -> str:
        return problem_in(self.words, key, language) or translations(language).gettext(NOT_SAID)

    async def tell_at_once(self, session: AsyncSession, leads: Sequence[Lead]) -> set[int]:
        """Queue a notice for each hot lead of a partner with an address; the positions of those told.

        Runs in the transaction that stores the leads (`store.partners` `TellAtOnce`).
        """
        if self.outbox is None:
            return set()
        told = await self._repeats(session, leads)
        urgent = {
            i: lead
            for i, lead in enumerate(leads)
            if lead.lead_heat == HOT and lead.partner_id and lead.covered and i not in told
        }
        if not urgent:
            return told
        partner_ids = [str(lead.partner_id) for lead in urgent.values()]
        contacts = await contacts_of(session, partner_ids)
        hour_ago = min(lead.created_at for lead in urgent.values()) - timedelta(hours=1)
        sent = await urgent_told_since(session, partner_ids, hour_ago)
        for position, lead in urgent.items():
            partner_id = str(lead.partner_id)
            found = contacts.get(partner_id)
            if found is None or sent.get(partner_id, 0) >= URGENT_PER_HOUR:
                continue  # no address yet, or told enough this hour: the lead waits for the digest
            sent[partner_id] = sent.get(partner_id, 0) + 1
            problem = self.problem(lead.issue, found.language)
            for address in found.addresses:
                await self.outbox.enqueue(session, hot_lead_mail(address, found.name, lead, problem, found.language))
            told.add(position)
        if told:
            log.info("lead notices: %d urgent or repeated lead(s) told or set aside", len(told))
        return told

    @staticmethod
    async def _repeats(session: AsyncSession, leads: Sequence[Lead]) -> set[int]:
        """Positions of leads whose homeowner the partner already heard of within `DUPLICATE_WINDOW`
        (earlier, or earlier in this batch): counted as told, never mailed again."""
        named = [(i, lead) for i, lead in enumerate(leads) if lead.partner_id and lead.contact_email]
        if not named:
            return set()
        since = min(lead.created_at for _, lead in named) - DUPLICATE_WINDOW
        seen = await told_contacts_since(session, [str(lead.partner_id) for _, lead in named], since)
        repeats: set[int] = set()
        for position, lead in named:
            pair = (str(lead.partner_id), str(lead.contact_email))
            if pair in seen:
                repeats.add(position)
            seen.add(pair)
        return repeats

    async def send_digest(self, now: datetime, base_url: str | None) -> int:
        """Queue each partner's digest of the leads not yet told; how many leads it covered."""
        if self.outbox is None:
            return 0
        outbox, words = self.outbox, self.words

        async def send(session: AsyncSession, batch: DigestBatch) -> None:
            for address in batch.contacts:
                await outbox.enqueue(session, digest_mail(address, batch, base_url, words))

        return await self.console.digest(now, send)
