"""The inspection form at `/inspection` and the shared reports at `/reports/<id>` (HTML) and `.json`.

The form holds no logic of its own: its script posts JSON to `/api/v1/submitInspection`, the same
path agents use, so validation, limits and idempotency are the API's. A report's URL is its only
credential (128 random bits), so report pages are kept out of search engines and referrers, and
show nothing personal beyond a first name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from babel.dates import format_date
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.policy import Access
from garage_tools.errors import NotFound, ServiceError
from garage_tools.knowledge.checklist import ChecklistItem, InspectionChecklist
from garage_tools.languages import DEFAULT
from garage_tools.observability.redaction import redact_paths_in_access_log
from garage_tools.registry import dump
from garage_tools.services import Services
from garage_tools.store.inspections import InspectionRepository, StoredInspection
from garage_tools.surfaces.responses import error_response, json_response
from garage_tools.tools.inspection.models import InspectionReport, ItemResult
from garage_tools.tools.inspection.report import REPORT_ID, local_prices, public_report, reading
from garage_tools.web.pages import page_language, render
from garage_tools.web.part_drawings import ItemDrawing, drawings_of
from garage_tools.web.results import load_words
from garage_tools.web.translations import translate_words, translations

#: A report is reachable by anyone holding its link: keep it out of indexes, caches shared between
#: users, and the Referer of links followed from it.
REPORT_HEADERS = {
    "X-Robots-Tag": "noindex, nofollow",
    "Cache-Control": "private, no-store",
    "Referrer-Policy": "no-referrer",
}


@dataclass(frozen=True, slots=True)
class Area:
    name: str
    items: list[ChecklistItem]


def areas_of(checklist: InspectionChecklist) -> list[Area]:
    """The checklist's items grouped by area, areas in the order they first appear, and in each area the
    checks that move the door last: by then the parts under tension have been looked at."""
    groups: dict[str, list[ChecklistItem]] = {}
    for item in checklist.items:
        groups.setdefault(item.area, []).append(item)
    return [Area(name, sorted(items, key=lambda item: item.hands_on)) for name, items in groups.items()]


class InspectionPages:
    def __init__(self, services: Services, access: Access) -> None:
        self.reports = InspectionRepository(services.database)
        self.photos = services.photos
        self.knowledge = services.knowledge
        #: Language code -> the form's areas in its words (the items' order and flags are the same in each).
        self.areas = {code: areas_of(language.checklist) for code, language in services.knowledge.languages.items()}
        #: Language code -> the drawings in that language, with their alt texts and captions from the catalog (an
        #: operator's own pictures, which the catalog lacks, keep theirs).
        self.drawings = {
            code: _drawings_in(drawings_of(services.knowledge.checklist, services.photos, code), code)
            for code in self.areas
        }
        self.access = access

    async def form(self, request: Request) -> Response:
        language = page_language(request)
        if language not in self.areas:  # a page language diagnose does not speak yet: the English checklist
            language = DEFAULT
        areas = self.areas[language]
        context = {
            "areas": areas,
            "drawings": self.drawings[language],
            "total": sum(len(a.items) for a in areas),
            # how a photo check's verdict reads (results-words.json)
            "severity_words": translate_words(load_words(), language)["severity"],
        }
        return render(request, "inspection/form.html", context, language=language)

    async def without_script(self, request: Request) -> Response:
        """Where the form posts when its script did not run: say so instead of losing the answers quietly."""
        _ = translations(page_language(request)).gettext
        message = _(
            "This form sends your inspection with JavaScript, which did not run in this browser, so nothing "
            "was sent. Go back (your browser usually keeps what you filled in), turn JavaScript on and press "
            "Get my report again."
        )
        context = {"title": _("Not sent yet"), "message": message}
        return render(request, "inspection/message.html", context, status=400)

    async def report_page(self, request: Request) -> Response:
        try:
            stored, report = await self._report(request)
        except ServiceError as error:
            if error.status == 404:
                return render(request, "not_found.html", {"path": "/reports/…"}, status=404, headers=REPORT_HEADERS)
            problem = {
                "title": translations(page_language(request)).gettext("Please try again shortly"),
                "message": error.message,
            }
            headers = {**REPORT_HEADERS, **error.headers}
            return render(request, "inspection/message.html", problem, status=error.status, headers=headers)
        context = {
            **reading(report, self.photos),
            "areas": _results_by_area(report),
            "prices": local_prices(self.knowledge, stored),
            "inspected_on": format_date(report.created_at.date(), "long", locale=report.lang),
        }
        # In the language the report was written in, whoever reads it: its words are stored in that language.
        return render(request, "inspection/report.html", context, headers=REPORT_HEADERS, language=report.lang)

    async def report_json(self, request: Request) -> Response:
        try:
            _, report = await self._report(request)
        except ServiceError as error:
            response = error_response(error)
            response.headers.update(REPORT_HEADERS)
            return response
        return json_response(dump(report), headers=REPORT_HEADERS)

    async def _report(self, request: Request) -> tuple[StoredInspection, InspectionReport]:
        report_id = request.path_params["report_id"]
        stored = await self.reports.get(report_id) if REPORT_ID.match(report_id) else None
        if stored is None:
            raise NotFound("No inspection report at this address. Check the link in your e-mail.")
        return stored, public_report(stored, self.access.base_url(request.scope))


def _drawings_in(drawings: dict[str, ItemDrawing], language: str) -> dict[str, ItemDrawing]:
    gettext = translations(language).gettext
    return {item: replace(d, alt=gettext(d.alt), caption=gettext(d.caption)) for item, d in drawings.items()}


@dataclass(frozen=True, slots=True)
class AreaResults:
    name: str
    items: list[ItemResult]


def _results_by_area(report: InspectionReport) -> list[AreaResults]:
    groups: dict[str, list[ItemResult]] = {}
    for item in report.items:
        groups.setdefault(item.area, []).append(item)
    return [AreaResults(name, items) for name, items in groups.items()]


def inspection_routes(services: Services, access: Access) -> list[BaseRoute]:
    """The routes of the inspection form and the report pages, for `create_app`'s route list."""
    redact_paths_in_access_log("/reports/")  # a report's id is its only key
    pages = InspectionPages(services, access)
    return [
        Route("/inspection", pages.form, methods=["GET"]),
        Route("/inspection", pages.without_script, methods=["POST"]),
        # The JSON route first: `{report_id}` would otherwise take `<id>.json` whole.
        Route("/reports/{report_id}.json", pages.report_json, methods=["GET"]),
        Route("/reports/{report_id}", pages.report_page, methods=["GET"]),
    ]
