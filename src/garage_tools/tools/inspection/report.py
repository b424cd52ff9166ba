"""Stored reports as readers see them: ids, URLs, the view that holds no personal data, and what the report
page and the e-mail show a person besides the report's fields (plain sentences and reference pictures)."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from garage_tools.catalogs import translations
from garage_tools.knowledge.checklist import ItemStatus
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.photos import Photo, PhotoLibrary, PhotoSeverity
from garage_tools.knowledge.schemas import Urgency
from garage_tools.languages import DEFAULT
from garage_tools.store.inspections import StoredInspection, report_url
from garage_tools.tools.cost import CostEstimateInput, CostEstimateOutput, estimate, parse_door_size
from garage_tools.tools.inspection.models import FlaggedItem, InspectionReport, SubmitInspectionOutput
from garage_tools.tools.inspection.next_step import NEEDS_A_PRO, advice, reach_the_pro, what_the_pro_was_told

#: `secrets.token_urlsafe(16)`: 128 random bits, so a report's URL cannot be guessed.
REPORT_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")
MAX_FIRST_NAME = 40


def new_report_id() -> str:
    return secrets.token_urlsafe(16)


def first_name(name: str | None) -> str | None:
    """The first word of a name: all of the homeowner the report shows."""
    words = (name or "").split()
    return words[0][:MAX_FIRST_NAME] if words else None


def _fields(stored: StoredInspection, base_url: str) -> dict[str, Any]:
    url = report_url(base_url, stored.id)
    return {
        **stored.report,
        "reportId": stored.id,
        "reportUrl": url,
        "reportJsonUrl": f"{url}.json",
        "createdAt": stored.created_at,
    }


def public_report(stored: StoredInspection, base_url: str) -> InspectionReport:
    """The report as anyone with its link sees it: the routing arguments (they carry the ZIP code) left out."""
    report = InspectionReport.model_validate(_fields(stored, base_url))
    report.next_step.arguments = None
    return report


def submitter_report(stored: StoredInspection, base_url: str, *, replayed: bool) -> SubmitInspectionOutput:
    """The tool's answer: the whole report, plus what only the submitter is told."""
    return SubmitInspectionOutput.model_validate(
        {
            **_fields(stored, base_url),
            "replayed": replayed,
            "emailQueued": stored.email_requested,
            "consent": {"marketing": stored.consent_marketing, "contactShare": stored.consent_contact_share},
        }
    )


def severity_words(lang: str = DEFAULT) -> dict[PhotoSeverity, str]:
    """How a picture's severity tag reads to a homeowner, in `lang`."""
    _ = translations(lang).gettext
    return {
        PhotoSeverity.FIX: _("Needs fixing"),
        PhotoSeverity.WATCH: _("Worn: keep an eye on it"),
        PhotoSeverity.HEALTHY: _("Healthy"),
    }


@dataclass(frozen=True, slots=True)
class Picture:
    """A reference photo beside a flagged item, in the report's language (the picture's own words too, where it
    has a file in that language), with the words its severity tag stands for and its caption and alt text, all in
    that language (an operator's own photos keep the words they were given)."""

    photo: Photo
    heading: str
    matches: bool  # the severity of the homeowner's answer (a healthy one is there to compare)
    caption: str
    alt: str


def pictures_for(library: PhotoLibrary, flag: FlaggedItem, lang: str = DEFAULT) -> list[Picture]:
    """Reference photos to show beside a flagged item, their headings in `lang`.

    When the gallery shows the item itself: the photo at the severity of the homeowner's answer, then a
    healthy one to compare. When it shows a part the item works with (spring containment shows the
    springs), a broken or worn picture of that part would describe a problem the homeowner did not report,
    so only its healthy picture is shown, for comparison.
    """
    if flag.reference_photos is None:
        return []
    gallery = flag.reference_photos.item_id
    healthy = library.for_item(gallery, PhotoSeverity.HEALTHY, lang)[:1]
    words, gettext = severity_words(lang), translations(lang).gettext

    def picture(photo: Photo, heading: str, matches: bool) -> Picture:
        return Picture(photo, heading, matches, gettext(photo.entry.caption), gettext(photo.entry.alt))

    if gallery != flag.item_id:
        return [picture(photo, gettext("Healthy, for comparison"), False) for photo in healthy]
    severity = PhotoSeverity.FIX if flag.status is ItemStatus.FIX else PhotoSeverity.WATCH
    chosen = [picture(photo, words[severity], True) for photo in library.for_item(gallery, severity, lang)[:1]]
    return chosen + [picture(photo, words[PhotoSeverity.HEALTHY], False) for photo in healthy]


def item_anchor(item_id: str) -> str:
    """The id of a flagged item's section on the report page (links from the e-mail land there)."""
    return f"item-{item_id}"


def tel_href(phone: str) -> str:
    """A `tel:` link target for a phone number as a person writes it: `(435) 555-0101` -> `tel:+14355550101`."""
    digits = "".join(ch for ch in phone if ch.isdigit())
    if phone.strip().startswith("+"):
        return f"tel:+{digits}"
    return f"tel:+1{digits}" if len(digits) == 10 else f"tel:{digits}"


def reading(report: InspectionReport, library: PhotoLibrary) -> dict[str, Any]:
    """What the report page and the e-mail render: the report, the advice in sentences, the pro, the pictures.

    Worked out from the stored report when it is shown, so every report reads in today's words, in the
    language it was written in.
    """
    step, lang = report.next_step, report.lang
    needs_pro = step.action in NEEDS_A_PRO
    return {
        "report": report,
        "first_name": report.first_name,
        "stop_items": [
            flag for flag in report.flagged_items if flag.status is ItemStatus.FIX and flag.urgency is Urgency.EMERGENCY
        ],
        "advice": advice(report.flagged_items, lang),
        "needs_pro": needs_pro,
        "pro": step.local_pro if needs_pro else None,
        "reach_pro": reach_the_pro(step.local_pro, lang) if needs_pro else None,
        "pro_was_told": what_the_pro_was_told(step.local_pro, step.contact_shared, lang) if needs_pro else None,
        "pictures": {flag.item_id: pictures_for(library, flag, lang) for flag in report.flagged_items},
        "anchor": item_anchor,
        "tel": tel_href,
    }


def local_prices(knowledge: Knowledge, stored: StoredInspection) -> dict[str, CostEstimateOutput]:
    """The local price of each item marked Fix that has a likely repair, priced for the inspection's ZIP code
    (kept with the routing arguments, which the public report leaves out) and door size (a size costEstimate
    cannot read is left out: single-car prices), in the report's language."""
    report = InspectionReport.model_validate(_fields(stored, ""))
    found = report.next_step.arguments.zip_or_location if report.next_step.arguments else ""
    zip_code = found if re.fullmatch(r"[0-9]{5}", found) else None
    size = report.door.size if report.door else None
    try:
        parse_door_size(size or "")
    except ValueError:
        size = None
    prices: dict[str, CostEstimateOutput] = {}
    for flag in report.flagged_items:
        if flag.status is ItemStatus.FIX and flag.issue_key in knowledge.costs.issues:
            fields = {"issueKey": flag.issue_key, "doorSize": size, "zip": zip_code, "lang": report.lang}
            arguments = CostEstimateInput.model_validate(fields)
            prices[flag.item_id] = estimate(knowledge, arguments)
    return prices
