"""The report e-mail: plain text and HTML from two templates, addressed to the homeowner.

Pictures: the HTML part shows each flagged item's reference photo as a linked JPEG copy (`?format=jpeg`),
because JPEG is what every mail client shows (several show no WebP) and a linked picture keeps the
message small; the URLs are the same for every reader, so loading them tells us nothing about who read
what. Clients that hold back remote pictures show the alt text and caption, and every item links to its
section of the report page, where the pictures are shown inline. The text part carries those links.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from garage_tools.knowledge.photos import PhotoLibrary
from garage_tools.mail import Mail
from garage_tools.tools.inspection.models import InspectionReport
from garage_tools.tools.inspection.report import reading

MAIL_KIND = "inspection_report"
#: Width the HTML part shows a reference picture at (its JPEG copy has twice the pixels, for sharp screens).
PICTURE_WIDTH = 280

_templates = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "email"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def report_mail(to: str, report: InspectionReport, notes: str | None, photos: PhotoLibrary, base_url: str) -> Mail:
    """The message that carries `report` to its owner (the only place the free-text notes are repeated)."""
    context = {**reading(report, photos), "notes": notes, "base_url": base_url, "picture_width": PICTURE_WIDTH}
    subject = f"Your garage door inspection: grade {report.grade} ({report.score}/100)"
    if context["stop_items"]:
        subject += ". Stop using the door until it is repaired"
    return Mail(
        to=to,
        subject=subject,
        text=_templates.get_template("report.txt").render(context),
        html=_templates.get_template("report.html").render(context),
        kind=MAIL_KIND,
    )
