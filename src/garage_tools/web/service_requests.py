"""The homeowner's side of a service request: the "Ask this pro to come out" form, and the status page.

`GET /requests/new?partner=…&zip=…` is the form on a page of its own (what the pro card's button opens, and
where the form posts without JavaScript: `POST /requests/new` calls `requestService` through `PageTools`, as
REST would, and sends the browser to the status page). With JavaScript the same form, embedded in a pro card
(templates/components/request_form.html, static/components/request-form.js), posts JSON to
`/api/v1/requestService` instead. `GET /requests/<token>` shows where the request stands and
`POST /requests/<token>/cancel` cancels it; both work without JavaScript. The token in the link is the page's
only credential, so the pages are kept out of indexes, shared caches and referrers, like report pages.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.caller import Caller
from garage_tools.access.policy import Access
from garage_tools.access.ratelimit import LimitReached
from garage_tools.errors import ServiceError
from garage_tools.languages import SUPPORTED
from garage_tools.partners.request_mail import status_url, when_words, zone_of
from garage_tools.registry import Registry
from garage_tools.services import Services
from garage_tools.store.inspections import InspectionRepository
from garage_tools.store.service_requests import RequestNotFound, Status, StoredRequest, TransitionRefused
from garage_tools.tools.inspection.report import REPORT_ID
from garage_tools.web.forms import DoubleSubmit, Refused, check_origin, read_form
from garage_tools.web.page_tools import PageTools
from garage_tools.web.pages import page_language, render
from garage_tools.web.translations import short_day, translate_words

WORDS_FILE = Path(__file__).parent / "static" / "components" / "request-words.json"
FORM_TOKEN = DoubleSubmit("gt_request", "/requests")
FIELD = "csrf"
MAX_FORM_BYTES = 8 * 1024
MAX_FIELDS = 20
DAYS_OFFERED = 14  # the form's "when" list: today and the next 13 days
PRIVATE = {
    "X-Robots-Tag": "noindex, nofollow",
    "Cache-Control": "private, no-store",
    "Referrer-Policy": "no-referrer",
}


def load_words() -> dict[str, Any]:
    words: dict[str, Any] = json.loads(WORDS_FILE.read_text(encoding="utf-8"))
    return words


def fill(text: str, **values: str) -> str:
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


def day_choices(today: date, language: str = "en") -> list[tuple[str, str]]:
    """(value, label) of the days the form offers: "2026-12-01", "Tue 1 Dec" (in `language`)."""
    days = [today + timedelta(days=n) for n in range(DAYS_OFFERED)]
    return [(day.isoformat(), short_day(day, language)) for day in days]


def arguments_of(form: dict[str, str]) -> dict[str, Any]:
    """The form's fields as requestService's arguments (blank fields left out, so the tool says what is missing)."""

    def given(name: str, limit: int) -> str | None:
        value = form.get(name, "").strip()
        return value[:limit] if value else None

    contact = {k: v for k, v in (("name", given("name", 100)), ("phone", given("phone", 32))) if v}
    if email := given("email", 254):
        contact["email"] = email
    arguments: dict[str, Any] = {
        "partnerId": form.get("partner", "")[:64],
        "zip": form.get("zip", "")[:5],
        "contact": contact,
        "consent": {"contactShare": form.get("consent") == "yes"},
    }
    optional = {
        "issueKey": given("issue", 64),
        "description": given("description", 500),
        "doorSize": given("size", 20),
        "notes": given("notes", 1000),
        "reportId": given("report", 32),
    }
    arguments.update({key: value for key, value in optional.items() if value})
    day, part = form.get("day", ""), form.get("part", "")
    if day and part:
        arguments["windows"] = [{"date": day[:10], "partOfDay": part[:12]}]
    return arguments


class NoProHere(ServiceError):
    """No partner serves the ZIP code the form gave (a page that named no pro)."""


class RequestPages:
    def __init__(self, services: Services, access: Access, registry: Registry) -> None:
        self.services = services
        self.reports = InspectionRepository(services.database)
        self.access = access
        self.tools = PageTools(services, access, registry)
        self.requests = services.tool_data.partners.requests
        self.directory = services.tool_data.partners.directory
        english = load_words()
        self._words: dict[str, dict[str, Any]] = {
            language: translate_words(english, language) for language in SUPPORTED
        }

    async def form(self, request: Request) -> Response:
        query = request.query_params
        names = ("partner", "zip", "issue", "description", "size", "report")
        fields = {name: query.get(name, "")[:500] for name in names}
        if fields["report"] and not fields["partner"]:
            fields.update(await self._from_report(fields["report"]))
        return await self._form(request, fields)

    async def _from_report(self, report_id: str) -> dict[str, str]:
        """The pro, ZIP code and issue an inspection report named (its page links here without them: it shows
        nothing personal, and a ZIP code is)."""
        stored = await self.reports.get(report_id) if REPORT_ID.match(report_id) else None
        step = (stored.report.get("nextStep") or {}) if stored else {}
        pro, arguments = step.get("localPro") or {}, step.get("arguments") or {}
        if not pro.get("covered"):
            return {}
        return {
            "partner": str(pro.get("partnerId") or ""),
            "zip": str(arguments.get("zipOrLocation") or "")[:5],
            "issue": str(arguments.get("issue") or ""),
        }

    async def send(self, request: Request) -> Response:
        try:
            form = await self._read(request)
        except Refused as refused:
            return self._message(request, "Not sent", refused.message, refused.status)
        caller = await self.tools.caller(request)
        try:
            if not form.get("partner"):  # from a page with no pro yet (a door style): the pro for the ZIP code
                form["partner"] = await self._pro_for(request, caller, form)
            called = await self.tools.call(request, caller, "requestService", arguments_of(form))
        except LimitReached:
            return await self._form(request, form, self.words(request)["errors"]["rate_limited"], 429)
        except NoProHere as none:
            return await self._form(request, form, none.message, 400)
        except ServiceError as error:
            return await self._form(request, form, self._plain(request, error), error.status)
        path = "/requests/" + str(called.result["statusUrl"]).rsplit("/", 1)[1]
        return RedirectResponse(f"{path}?sent=1", status_code=303, headers=PRIVATE)

    async def status(self, request: Request) -> Response:
        token = request.path_params["token"]
        found = await self.requests.repository.by_token(token) if 20 <= len(token) <= 100 else None
        if found is None:
            return render(request, "not_found.html", {"path": "/requests/…"}, status=404, headers=PRIVATE)
        return await self._status(request, found, token)

    async def cancel(self, request: Request) -> Response:
        token = request.path_params["token"]
        try:
            await self._read(request)
            await self.requests.cancel(token)
        except Refused as refused:
            return self._message(request, "Not cancelled", refused.message, refused.status)
        except RequestNotFound:
            return render(request, "not_found.html", {"path": "/requests/…"}, status=404, headers=PRIVATE)
        except TransitionRefused:
            pass  # already cancelled, done or closed: the page says where it stands
        return RedirectResponse(f"/requests/{token}", status_code=303, headers=PRIVATE)

    # -- rendering --------------------------------------------------------------------------------

    async def _form(
        self, request: Request, fields: dict[str, str], error: str | None = None, status: int = 200
    ) -> Response:
        snapshot = await self.directory.current()
        listing = snapshot.index.get(fields.get("partner", ""))
        words = self.words(request)
        pro = listing.display_name if listing else words["anyPro"]
        token, fresh = FORM_TOKEN.token(request)
        context = {
            "words": words,
            "pro": pro,
            "phone": listing.phone if listing else None,
            "ask_zip": listing is None,
            "fields": fields,
            "days": day_choices(datetime.now(UTC).date(), page_language(request)),
            "error": error,
            "csrf": token,
            "fill": fill,
        }
        response = render(request, "requests/form.html", context, status=status, headers=PRIVATE)
        if fresh:
            FORM_TOKEN.set_cookie(response, token, secure=self.access.base_url(request.scope).startswith("https://"))
        return response

    async def _status(self, request: Request, found: StoredRequest, token: str) -> Response:
        snapshot = await self.directory.current()
        listing = snapshot.index.get(found.partner_id)
        pro, phone = (listing.display_name, listing.phone) if listing else ("The pro", None)
        zone = zone_of(snapshot.places, found.zip)
        words = self.words(request)
        status_words: dict[str, str] = words["status"]
        if found.status is Status.ACCEPTED:
            when = when_words(found.arrival_from, found.arrival_until, zone, page_language(request))
            accepted = fill(status_words["accepted"], pro=pro, when=when) if when else None
            line = accepted or fill(status_words["acceptedNoTime"], pro=pro)
        else:
            line = fill(status_words[found.status.value], pro=pro)
        form_token, fresh = FORM_TOKEN.token(request)
        context = {
            "words": words,
            "request_": found,
            "line": line,
            "pro": pro,
            "phone": phone,
            "passed_on": fill(words["passedOn"], pro=pro) if found.previous_offers else None,
            "can_cancel": found.status in (Status.RECEIVED, Status.ACCEPTED),
            "sent": request.query_params.get("sent") == "1",
            "token": token,
            "link": status_url(self.access.base_url(request.scope), token),
            "csrf": form_token,
            "fill": fill,
        }
        response = render(request, "requests/status.html", context, headers=PRIVATE)
        if fresh:
            secure = self.access.base_url(request.scope).startswith("https://")
            FORM_TOKEN.set_cookie(response, form_token, secure=secure)
        return response

    async def _pro_for(self, request: Request, caller: Caller, form: dict[str, str]) -> str:
        """routeByZip's pro for the form's ZIP code, as the front door would find it; none serving is a refusal."""
        arguments = {"zipOrLocation": form.get("zip", "")[:200] or "-", "leadHeat": "warm"}
        if form.get("issue"):
            arguments["issue"] = form["issue"][:64]
        route = (await self.tools.call(request, caller, "routeByZip", arguments)).result
        if not route.get("covered"):
            raise NoProHere(self.words(request)["errors"]["noPro"])
        return str(route["partnerId"])

    def words(self, request: Request) -> dict[str, Any]:
        """The form's and pages' words in the reader's language (web/pages.py `page_language`)."""
        return self._words[page_language(request)]

    def _plain(self, request: Request, error: ServiceError) -> str:
        """The refusal in the homeowner's words (never the API's own wording)."""
        sentences: dict[str, str] = self.words(request)["errors"]
        if error.status >= 500:
            return sentences["tryAgain"]
        if error.code in sentences:
            return sentences[error.code]
        text = error.message
        if "phone number or an e-mail" in text:
            return sentences["reach"]
        if "say what is wrong" in text:
            return sentences["what"]
        if "contact.name" in text:
            return sentences["name"]
        return sentences["invalid"]

    async def _read(self, request: Request) -> dict[str, str]:
        check_origin(request, self.access.base_url(request.scope))
        form = await read_form(request, self.access, limit=MAX_FORM_BYTES, max_fields=MAX_FIELDS)
        FORM_TOKEN.check(request, form.get(FIELD))
        return form

    def _message(self, request: Request, title: str, message: str, status: int) -> Response:
        context = {"title": title, "message": message}
        return render(request, "requests/message.html", context, status=status, headers=PRIVATE)


def request_routes(services: Services, access: Access, registry: Registry) -> list[BaseRoute]:
    pages = RequestPages(services, access, registry)
    return [
        Route("/requests/new", pages.form, methods=["GET"]),
        Route("/requests/new", pages.send, methods=["POST"]),
        Route("/requests/{token}", pages.status, methods=["GET"]),
        Route("/requests/{token}/cancel", pages.cancel, methods=["POST"]),
    ]
