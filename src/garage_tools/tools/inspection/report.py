"""Stored reports as readers see them: ids, URLs, and the view that holds no personal data."""

from __future__ import annotations

import re
import secrets
from typing import Any

from garage_tools.store.inspections import StoredInspection
from garage_tools.tools.inspection.models import InspectionReport, SubmitInspectionOutput

#: `secrets.token_urlsafe(16)`: 128 random bits, so a report's URL cannot be guessed.
REPORT_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")
MAX_FIRST_NAME = 40


def new_report_id() -> str:
    return secrets.token_urlsafe(16)


def report_url(base_url: str, report_id: str) -> str:
    return f"{base_url}/reports/{report_id}"


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
