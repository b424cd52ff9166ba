"""The report e-mail: plain text and HTML from two templates, addressed to the homeowner.

Pictures: the HTML part shows each flagged item's reference photo as a linked JPEG copy (`?format=jpeg`),
because JPEG is what every mail client shows (several show no WebP) and a linked picture keeps the
message small; the URLs are the same for every reader, so loading them tells us nothing about who read
what. Clients that hold back remote pictures show the alt text and caption, and every item links to its
section of the report page, where the pictures are shown inline. The text part carries those links.

The message is in the report's language: the templates' words go through the gettext catalog (Jinja2's i18n
extension, extracted by `make messages`), the report's own words were written in that language.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from garage_tools.catalogs import translations
from garage_tools.knowledge.photos import PhotoLibrary
from garage_tools.mail import Mail
from garage_tools.tools.inspection.models import InspectionReport
from garage_tools.tools.inspection.report import reading

MAIL_KIND = "inspection_report"
#: Width the HTML part shows a reference picture at (its JPEG copy has twice the pixels, for sharp screens).
PICTURE_WIDTH = 280


@cache
def _templates(language: str) -> Environment:
    """The e-mail's templates in one language."""
    environment = Environment(
        loader=FileSystemLoader(Path(__file__).parent / "email"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
    )
    environment.globals["lang"] = language
    environment.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    return environment


def report_mail(to: str, report: InspectionReport, notes: str | None, photos: PhotoLibrary, base_url: str) -> Mail:
    """The message that carries `report` to its owner (the only place the free-text notes are repeated), in the
    report's language."""
    context = {**reading(report, photos), "notes": notes, "base_url": base_url, "picture_width": PICTURE_WIDTH}
    _ = translations(report.lang).gettext
    subject = (
        _("Your garage door inspection: grade {grade} ({score}/100). Stop using the door until it is repaired")
        if context["stop_items"]
        else _("Your garage door inspection: grade {grade} ({score}/100)")
    ).format(grade=report.grade, score=report.score)
    templates = _templates(report.lang)
    return Mail(
        to=to,
        subject=subject,
        text=templates.get_template("report.txt").render(context),
        html=templates.get_template("report.html").render(context),
        kind=MAIL_KIND,
    )
