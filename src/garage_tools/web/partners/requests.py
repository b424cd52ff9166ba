"""The console's request inbox at `/partners/requests`: the homeowners who asked this partner to come out.

A partner accepts a request with an arrival window, declines it with a reason, or marks it done or lost. Every
change goes through `partners/requests.py` (`ServiceRequests.change`), so a decline is passed on to the next
pro that serves the place, and the homeowner is e-mailed, whichever page made it. Times read in the partner's
time zone (their profile's, else the main zone of the request's state). Handlers only translate: who is
signed in and their forms come from the `Console`, as on the Webhooks page.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from garage_tools.knowledge.directory import PartnerRecord
from garage_tools.knowledge.places import Gazetteer
from garage_tools.partners.request_mail import (
    ProblemWords,
    hours_words,
    problem_of,
    speaks,
    when_words,
    windows_words,
    zone_of,
)
from garage_tools.partners.requests import ServiceRequests
from garage_tools.store.service_requests import (
    OPEN,
    Actor,
    Change,
    RequestNotFound,
    Status,
    StoredRequest,
    TransitionRefused,
)
from garage_tools.web.forms import Refused
from garage_tools.web.pages import page_language, render
from garage_tools.web.partners.console_pages import Console, ConsolePage, SignedInPartner, console_page
from garage_tools.web.partners.forms import DECLINE_REASONS, read_arrival, read_reason
from garage_tools.web.signin_pages import NO_STORE
from garage_tools.web.translations import N_, short_day, translations

PATH = "/partners/requests"
SHOWN = 100  # requests on the page, open ones first
#: The page's words, marked for the catalog and translated where the page shows them.
STATUS_WORDS = {
    Status.RECEIVED: N_("New"),
    Status.ACCEPTED: N_("Accepted"),
    Status.DECLINED: N_("Declined"),
    Status.DONE: N_("Done"),
    Status.LOST: N_("Lost"),
    Status.CANCELLED: N_("Cancelled by the homeowner"),
}
NOTICES = {
    "accepted": N_("Accepted: the homeowner is e-mailed the time you gave."),
    "declined": N_("Declined: the request goes to the next local pro, and the homeowner is told."),
    "done": N_("Marked done."),
    "lost": N_("Marked lost."),
}
NOT_YOURS = N_("There is no such request among yours: it may have gone to another pro.")
MOVED_ON = N_("This request has changed meanwhile (it is {status}); the list below shows where it stands now.")

_page = console_page


class RequestInbox(ConsolePage):
    notices = NOTICES

    def __init__(self, console: Console, requests: ServiceRequests, problems: ProblemWords) -> None:
        super().__init__(console)
        self.requests = requests
        self.problems = problems  # issue and symptom keys in words, per language

    @_page
    async def accept(self, request: Request) -> Response:
        me, form = await self.console.signed_in_form(request)
        found = await self._own(me, request.path_params["request_id"])
        zone = local_zone(me.partner, await self._places(), found.zip)
        arrival = read_arrival(form, zone, self.requests.clock())
        if arrival.value is None:
            problems = {found.id: arrival.problems}
            return await self._page(request, me, problems=problems, form=form, status=400)
        start, end = arrival.value
        change = Change(Status.ACCEPTED, Actor.PARTNER, me.id, arrival_from=start, arrival_until=end)
        return await self._change(request, me, found, change, "accepted")

    @_page
    async def decline(self, request: Request) -> Response:
        me, form = await self.console.signed_in_form(request)
        found = await self._own(me, request.path_params["request_id"])
        reason = read_reason(form)
        if reason.value is None:
            return await self._page(request, me, problems={found.id: reason.problems}, form=form, status=400)
        change = Change(Status.DECLINED, Actor.PARTNER, me.id, reason=reason.value or None)
        return await self._change(request, me, found, change, "declined")

    @_page
    async def done(self, request: Request) -> Response:
        me, _ = await self.console.signed_in_form(request)
        found = await self._own(me, request.path_params["request_id"])
        return await self._change(request, me, found, Change(Status.DONE, Actor.PARTNER, me.id), "done")

    @_page
    async def lost(self, request: Request) -> Response:
        me, _ = await self.console.signed_in_form(request)
        found = await self._own(me, request.path_params["request_id"])
        return await self._change(request, me, found, Change(Status.LOST, Actor.PARTNER, me.id), "lost")

    async def _own(self, me: SignedInPartner, request_id: str) -> StoredRequest:
        found = await self.requests.repository.one_for_partner(me.id, request_id)
        if found is None:
            raise Refused(NOT_YOURS, status=404)
        return found

    async def _change(
        self, request: Request, me: SignedInPartner, found: StoredRequest, change: Change, done: str
    ) -> Response:
        try:
            await self.requests.change(me.id, found.id, change)
        except RequestNotFound:
            raise Refused(NOT_YOURS, status=404) from None
        except TransitionRefused as refused:
            _ = translations(page_language(request)).gettext
            notice = _(MOVED_ON).format(status=_(STATUS_WORDS[refused.current]).lower())
            return await self._page(request, me, notice=notice, status=409)
        return RedirectResponse(f"{PATH}?done={done}#{found.id}", status_code=303)

    async def _places(self) -> Gazetteer:
        return (await self.requests.directory.current()).places

    async def _page(
        self,
        request: Request,
        me: SignedInPartner,
        *,
        notice: str | None = None,
        problems: dict[str, dict[str, str]] | None = None,
        form: dict[str, str] | None = None,
        status: int = 200,
    ) -> Response:
        everything = await self.requests.repository.for_partner(me.id, limit=SHOWN)
        ordered = sorted(everything, key=lambda r: (r.status not in OPEN, r.status is not Status.RECEIVED))
        places, language = await self._places(), page_language(request)
        views = [self._view(me, found, places, language) for found in ordered]
        answered = [view["answered_minutes"] for view in views if view["answered_minutes"] is not None]
        context: dict[str, Any] = {
            "me": me,
            "requests": views,
            "new": sum(1 for found in everything if found.status is Status.RECEIVED),
            "typical_answer": _minutes_words(sorted(answered)[len(answered) // 2]) if answered else None,
            "notice": notice,
            "problems": problems or {},
            "form": form or {},
            "shown": SHOWN,
            "reasons": DECLINE_REASONS,
            "response_hours": hours_words(self.requests.response_hours, language),
            "business_hours": self.requests.business_hours.words(language),
        }
        return render(request, "partners/requests.html", context, status=status, headers=NO_STORE)

    def _view(self, me: SignedInPartner, found: StoredRequest, places: Gazetteer, language: str) -> dict[str, Any]:
        zone = local_zone(me.partner, places, found.zip)
        offered = found.offered_at.astimezone(zone)
        answered = None
        if found.first_response_at is not None:
            answered = max(0, round((found.first_response_at - found.offered_at).total_seconds() / 60))
        return {
            "request": found,
            "problem": problem_of(self.problems, found, language),
            "status": STATUS_WORDS[found.status],
            "open": found.status in OPEN,
            "received": f"{short_day(offered.date(), language)}, {offered:%H:%M} ({offered:%Z})",
            "received_iso": found.offered_at.isoformat(),
            "arrival": when_words(found.arrival_from, found.arrival_until, zone, language),
            "times": windows_words(found, language),
            "answered_minutes": answered,
            "answered": _minutes_words(answered) if answered is not None else None,
            "passed_on": bool(found.previous_offers),
            "speaks": speaks(found, language),
            "today": datetime.now(zone).date().isoformat(),
            "zone": offered.tzname(),
        }


def local_zone(partner: PartnerRecord, places: Gazetteer, zip_code: str | None) -> ZoneInfo:
    """The time zone a partner reads a request's or a lead's times in: its own when its profile gives one, else
    that of the place's state."""
    return ZoneInfo(partner.time_zone) if partner.time_zone else zone_of(places, zip_code or "")


def _minutes_words(minutes: int) -> str:
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"


def request_routes(console: Console, requests: ServiceRequests, problems: ProblemWords) -> list[BaseRoute]:
    """The request inbox's routes, for the console's route list."""
    inbox = RequestInbox(console, requests, problems)
    return [
        Route(PATH, inbox.show, methods=["GET"]),
        Route(f"{PATH}/{{request_id}}/accept", inbox.accept, methods=["POST"]),
        Route(f"{PATH}/{{request_id}}/decline", inbox.decline, methods=["POST"]),
        Route(f"{PATH}/{{request_id}}/done", inbox.done, methods=["POST"]),
        Route(f"{PATH}/{{request_id}}/lost", inbox.lost, methods=["POST"]),
    ]
