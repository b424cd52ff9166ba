"""The report e-mail: plain text and HTML from two templates, addressed to the homeowner."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from garage_tools.mail import Mail
from garage_tools.tools.inspection.models import InspectionReport

MAIL_KIND = "inspection_report"

_templates = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "email"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def report_mail(to: str, report: InspectionReport, notes: str | None) -> Mail:
    """The message that carries `report` to its owner (the only place the free-text notes are repeated)."""
    context = {"report": report, "first_name": report.first_name, "notes": notes}
    return Mail(
        to=to,
        subject=f"Your garage door inspection: grade {report.grade} ({report.score}/100)",
        text=_templates.get_template("report.txt").render(context),
        html=_templates.get_template("report.html").render(context),
        kind=MAIL_KIND,
    )
