"""E-mail about service requests: the partner hears of a request at once, the homeowner of every change.

`RequestMail` is a hook of the request repository (`store.service_requests` `EventHook`): it runs in the
transaction of each change, so a message exists exactly when its change committed and leaves through the
outbox within seconds. The homeowner's first message (the confirmation with the status link) is queued by
the tool that creates the request, because only it holds the link's token; later messages name the request
number and point to that first message's link.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.catalogs import short_day, translations
from garage_tools.knowledge.places import Gazetteer
from garage_tools.knowledge.time_zones import time_zones
from garage_tools.languages import DEFAULT, N_
from garage_tools.mail import Mail, Outbox
from garage_tools.partners.directory import DirectorySnapshot
from garage_tools.store.partner_console import contacts_of
from garage_tools.store.service_requests import (
    CANCELLED,
    CREATED,
    Actor,
    RequestEvent,
    Status,
    StoredRequest,
)

log = logging.getLogger(__name__)

CONSOLE_PATH = "/partners/requests"  # the console's request inbox
PARTS_OF_DAY = {"morning": N_("morning"), "afternoon": N_("afternoon"), "evening": N_("evening")}
#: The homeowner's language as a partner reads it (languages.py `SUPPORTED`), translated where it is shown.
LANGUAGE_NAMES = {"en": N_("English"), "es": N_("Spanish")}


def spoken(homeowner: str | None, language: str = DEFAULT) -> str | None:
    """ "Spanish" (in the partner's `language`) when the homeowner wrote in another language than English, so the
    pro can send someone who speaks it; None for English or not known."""
    if homeowner is None or homeowner == "en":
        return None
    return translations(language).gettext(LANGUAGE_NAMES.get(homeowner, homeowner))


def speaks(request: StoredRequest, language: str = DEFAULT) -> str | None:
    """The language a request's homeowner speaks, as the partner reads it (`spoken`)."""
    return spoken(request.language, language)


def speaks_row(homeowner: str | None, language: str = DEFAULT) -> tuple[str, str] | None:
    """The line of a partner's e-mail that says the homeowner speaks another language (None: English)."""
    found = spoken(homeowner, language)
    if found is None:
        return None
    _ = translations(language).gettext
    return _("Speaks"), _("{language} (they wrote in {language}: send someone who speaks it if you can)").format(
        language=found
    )


def status_url(base_url: str, token: str) -> str:
    """Where the homeowner follows a request: one rule for the tool's answer, the e-mail and the pages."""
    return f"{base_url}/requests/{token}"


def zone_of(places: Gazetteer, zip_code: str) -> ZoneInfo:
    """The time zone a request's times read in: the main zone of its ZIP code's state."""
    try:
        state = places.candidates(zip_code)[0].state
    except Exception:  # an unknown ZIP code (the tool checks it; a directory change may not)
        state = ""
    return time_zones().of_state(state)


def when_words(start: datetime | None, end: datetime | None, zone: ZoneInfo, language: str = "en") -> str | None:
    """An arrival window as people read it, in `language`: "Tue 1 Dec, 09:00 to 11:00 (MST)"."""
    if start is None:
        return None
    _ = translations(language).gettext
    first = start.astimezone(zone)
    day, zone_name = short_day(first.date(), language), f"{first:%Z}"
    if end is None:
        return _("{day}, from {start} ({zone})").format(day=day, start=f"{first:%H:%M}", zone=zone_name)
    until = f"{end.astimezone(zone):%H:%M}"
    return _("{day}, {start} to {end} ({zone})").format(day=day, start=f"{first:%H:%M}", end=until, zone=zone_name)


def windows_words(request: StoredRequest, language: str = DEFAULT) -> str:
    """The times the homeowner offered, in `language`: "Tue 1 Dec, morning; Wed 2 Dec, evening"."""
    _ = translations(language).gettext
    if not request.windows:
        return _("any time")
    return "; ".join(
        f"{short_day(w.day, language)}, {_(PARTS_OF_DAY[w.part]) if w.part in PARTS_OF_DAY else w.part}"
        for w in request.windows
    )


def aligned(rows: Sequence[tuple[str, str] | str]) -> list[str]:
    """Labelled lines with their values lined up, whatever the language's labels are (a plain line stays as it
    is)."""
    width = max(len(row[0]) for row in rows if isinstance(row, tuple)) + 2
    return [row if isinstance(row, str) else f"{row[0] + ':':<{width}}{row[1]}" for row in rows]


def request_lines(request: StoredRequest, problem: str, language: str = DEFAULT) -> list[str]:
    """What the partner needs to call the homeowner back, in the partner's `language`: the problem, the place,
    the times, the contact, and the language the homeowner speaks."""
    _ = translations(language).gettext
    rows: list[tuple[str, str] | str] = [(_("Request"), request.id), (_("What"), problem)]
    if request.description:
        rows.append(_("In their words: {description}").format(description=request.description))
    rows += [
        (_("Where"), _("ZIP {zip}").format(zip=request.zip)),
        (_("Door"), request.door_size or _("size not given")),
        (_("When"), windows_words(request, language)),
        (_("Name"), request.contact_name),
    ]
    if request.contact_phone:
        rows.append((_("Phone"), request.contact_phone))
    if request.contact_email:
        rows.append((_("E-mail"), request.contact_email))
    if request.notes:
        rows.append((_("Notes"), request.notes))
    if said := speaks_row(request.language, language):
        rows.append(said)
    return [*aligned(rows), _("The homeowner asked for a pro to come out and agreed that you may contact them.")]


def partner_request_mail(
    to: str, partner_name: str, request: StoredRequest, problem: str, hours: float, language: str = DEFAULT
) -> Mail:
    """A new request for the partner (or one passed on to them), in its `language`: answer it in the console
    within `hours`."""
    _ = translations(language).gettext
    lines = [
        _("Hello {name},").format(name=partner_name),
        "",
        _("A homeowner asks you to come out."),
        "",
        *request_lines(request, problem, language),
    ]
    if request.base_url:
        link = f"{request.base_url}{CONSOLE_PATH}"
        lines += ["", _("Accept it with a time, or decline it: {link}").format(link=link)]
    lines += [
        "",
        _(
            "Please answer within {time} of business time. A request not answered by then is offered to another "
            "local pro, and the homeowner is told."
        ).format(time=hours_words(hours, language)),
    ]
    return Mail(
        to=to,
        subject=_("Service request {number}: {problem} in {zip}").format(
            number=request.id, problem=problem.lower(), zip=request.zip
        ),
        text="\n".join(lines) + "\n",
        kind="partner_request",
    )


def partner_cancelled_mail(to: str, partner_name: str, request: StoredRequest, language: str = DEFAULT) -> Mail:
    _ = translations(language).gettext
    lines = [
        _("Hello {name},").format(name=partner_name),
        "",
        _("The homeowner cancelled request {number} (ZIP {zip}, {name}).").format(
            number=request.id, zip=request.zip, name=request.contact_name
        ),
        _("No need to go out or call them about it."),
    ]
    return Mail(
        to=to,
        subject=_("Cancelled: service request {number}").format(number=request.id),
        text="\n".join(lines) + "\n",
        kind="partner_request",
    )


#: Each language's words for the issue and symptom keys a request or lead may carry (`notices.problem_words`).
ProblemWords = dict[str, dict[str, str]]


def problem_in(words: ProblemWords, key: str | None, language: str = DEFAULT) -> str | None:
    """An issue or symptom key in words, in `language` (English where it has none); None for an unknown key."""
    return (words.get(language) or words.get(DEFAULT) or {}).get(key or "")


def problem_of(words: ProblemWords, request: StoredRequest, language: str = DEFAULT) -> str:
    """A request's problem as the partner reads it: its issue's name, else a general phrase."""
    if found := problem_in(words, request.issue, language):
        return found
    _ = translations(language).gettext
    return _("Garage door problem") if not request.description else _("Garage door problem (see their words)")


def hours_words(hours: float, language: str = DEFAULT) -> str:
    """A response time as people say it: "2 hours", "30 minutes" (the e-mail and the console say it alike)."""
    ngettext = translations(language).ngettext
    whole = round(hours)
    if abs(hours - whole) < 1e-9:
        return ngettext("%(count)d hour", "%(count)d hours", whole) % {"count": whole}
    minutes = round(hours * 60)
    return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}


def homeowner_update_mail(
    request: StoredRequest, event: RequestEvent, partner: tuple[str, str], zone: ZoneInfo
) -> Mail | None:
    """What the homeowner reads about a change, in their language (None: nothing worth a message, or no address)."""
    if request.contact_email is None:
        return None
    _ = translations(request.language).gettext
    name, phone = partner
    number, status = request.id, request.status
    if event.by is Actor.SYSTEM:
        subject = _("Your request {number} is now with {pro}").format(number=number, pro=name)
        body = [
            _(
                "The first pro could not take your request in time, so we passed it on, as you agreed: {pro} "
                "({phone}) has it now and will contact you."
            ).format(pro=name, phone=phone)
        ]
    elif status is Status.ACCEPTED:
        arrival = when_words(request.arrival_from, request.arrival_until, zone, request.language)
        subject = _("{pro} will come out: request {number}").format(pro=name, number=number)
        accepted = (
            _("{pro} accepted your request and plans to arrive {when}.").format(pro=name, when=arrival)
            if arrival
            else _("{pro} accepted your request and will confirm a time.").format(pro=name)
        )
        body = [accepted, _("To change the time, call them at {phone}.").format(phone=phone)]
    elif status is Status.DECLINED:
        subject = _("{pro} cannot take request {number}").format(pro=name, number=number)
        body = [
            _("{pro} cannot take your request, and no other pro we know serves ZIP {zip} yet.").format(
                pro=name, zip=request.zip
            )
        ]
        if request.reason:
            body.append(_("Their reason: {reason}").format(reason=request.reason))
    elif status is Status.DONE:
        subject = _("Request {number} is done").format(number=number)
        body = [_("{pro} marked your request as done. We hope the door works well again.").format(pro=name)]
    elif status is Status.LOST:
        subject = _("Request {number} is closed").format(number=number)
        body = [
            _("{pro} closed your request without a visit. Call them at {phone} if you still need help.").format(
                pro=name, phone=phone
            )
        ]
    elif status is Status.CANCELLED:
        subject = _("You cancelled request {number}").format(number=number)
        body = [_("Your request is cancelled and {pro} has been told. Nothing more will happen.").format(pro=name)]
    else:
        return None
    lines = [
        _("Hello {name},").format(name=request.contact_name),
        "",
        *body,
        "",
        _("Your request number is {number}. The link in our first e-mail about it shows where it stands.").format(
            number=number
        ),
    ]
    return Mail(to=request.contact_email, subject=subject, text="\n".join(lines) + "\n", kind="service_request")


def next_step_words(partner_name: str, answer_by: datetime, zone: ZoneInfo, now: datetime, language: str = "en") -> str:
    """What happens next and by when, for the tool's answer, the confirmation page and its e-mail."""
    _ = translations(language).gettext
    local, today = answer_by.astimezone(zone), now.astimezone(zone).date()
    day = _("today") if local.date() == today else _("on {day}").format(day=short_day(local.date(), language))
    return _(
        "{pro} has your request and will call or e-mail you to agree a time. If they cannot take it, or have not "
        "answered by {time} {day} ({zone}), we pass it to another local pro and tell you."
    ).format(pro=partner_name, time=f"{local:%H:%M}", day=day, zone=f"{local:%Z}")


def homeowner_confirmation_mail(
    request: StoredRequest, partner: tuple[str, str], link: str, next_step: str
) -> Mail | None:
    """The homeowner's first message, in their language: the number, what was sent, what happens next, and
    their status link."""
    if request.contact_email is None:
        return None
    _ = translations(request.language).gettext
    name, phone = partner
    lines = [
        _("Hello {name},").format(name=request.contact_name),
        "",
        _("We sent your request to {pro}. Your request number is {number}.").format(pro=name, number=request.id),
        "",
        next_step,
        "",
        _("See where it stands, or cancel it: {link}").format(link=link),
        "",
        _("You can also call {pro} at {phone} and quote {number}.").format(pro=name, phone=phone, number=request.id),
        "",
        _("You receive this because you asked a garage door pro to come out on Garage Door Tools."),
    ]
    return Mail(
        to=request.contact_email,
        subject=_("Your request {number} to {pro}").format(number=request.id, pro=name),
        text="\n".join(lines) + "\n",
        kind="service_request",
    )


class RequestMail:
    """The request repository's mail hook: partners told of new and passed-on requests, homeowners of changes."""

    def __init__(
        self,
        outbox: Outbox | None,
        snapshot: Callable[[], Awaitable[DirectorySnapshot]],
        words: ProblemWords,
        response_hours: float,
    ) -> None:
        self.outbox = outbox
        self._snapshot = snapshot  # the directory's current snapshot: names, phones, places
        self.words = words
        self.response_hours = response_hours

    def problem(self, request: StoredRequest, language: str = DEFAULT) -> str:
        """The request's problem in words, in the partner's `language`."""
        return problem_of(self.words, request, language)

    async def __call__(self, session: AsyncSession, event: RequestEvent) -> None:
        if self.outbox is None:
            return
        request = event.request
        snapshot = await self._snapshot()
        listing = snapshot.index.get(request.partner_id)
        partner = (listing.display_name, listing.phone) if listing else ("The pro", "the number on their card")
        offered = event.kind == CREATED or (event.by is Actor.SYSTEM and event.previous_partner_id is not None)
        if offered:
            await self._tell_partner(session, request)
        if event.kind == CANCELLED:
            await self._tell_partner(session, request, cancelled=True)
        if event.kind == CREATED:
            return  # the homeowner's confirmation goes with the tool's answer (it holds the status link)
        if event.by is Actor.PARTNER and request.status is Status.DECLINED and event.detail.get("passingTo"):
            return  # passed on in the same transaction: the homeowner hears of the new pro instead
        mail = homeowner_update_mail(request, event, partner, zone_of(snapshot.places, request.zip))
        if mail is not None:
            await self.outbox.enqueue(session, mail)

    async def _tell_partner(self, session: AsyncSession, request: StoredRequest, *, cancelled: bool = False) -> None:
        assert self.outbox is not None
        found = (await contacts_of(session, [request.partner_id])).get(request.partner_id)
        if found is None:
            log.warning("service request %s: partner %s has no address to tell", request.id, request.partner_id)
            return
        name, language = found.name, found.language
        for address in found.addresses:
            mail = (
                partner_cancelled_mail(address, name, request, language)
                if cancelled
                else partner_request_mail(
                    address, name, request, self.problem(request, language), self.response_hours, language
                )
            )
            await self.outbox.enqueue(session, mail)
