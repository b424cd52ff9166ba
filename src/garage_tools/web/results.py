"""The shared result cards' words and the filters their server-side templates use.

The cards (a diagnosis, a local pro with offers, a photo verdict) are built in the browser by
static/components/results.js and on the server by templates/components/results.html, for the homeowner
page and the contractor widget alike. Their sentences live once, in static/components/results-words.json;
the filters here format numbers, dates and phone numbers exactly as results.js does, so both renderings of
one answer read the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from garage_tools.knowledge.loader import Knowledge

WORDS_FILE = Path(__file__).parent / "static" / "components" / "results-words.json"
#: Every sentence the cards use; start-up fails on a words file that lacks one.
REQUIRED_WORDS = frozenset(
    {
        "urgency",
        "diy",
        "safetyTitle",
        "safetyText",
        "findPro",
        "likelyTitle",
        "causesHeading",
        "costTypical",
        "costLocal",
        "costNational",
        "costCovers",
        "costSurcharge",
        "costSize",
        "noMatchText",
        "noMatchPhoto",
        "noMatchPro",
        "photosHeading",
        "photosLink",
        "noMatchTitle",
        "proHeading",
        "proNearestHeading",
        "proArea",
        "proAreaOnly",
        "proUrgent",
        "askPro",
        "answerHeading",
        "sourcesHeading",
        "call",
        "book",
        "website",
        "offersHeading",
        "offerUntil",
        "longDate",
        "months",
        "askThem",
        "otherProsHeading",
        "trust",
        "severity",
        "verdictUnknownTitle",
        "verdictTitle",
        "verdictOffline",
        "verdictOfflineNoWords",
        "confidence",
        "retake",
        "verdictCost",
        "galleryLink",
        "tooMany",
        "photoCapReached",
        "tryAgain",
        "offline",
        "errors",
    }
)
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def load_words(path: Path = WORDS_FILE) -> dict[str, Any]:
    """The cards' words; ValueError naming what is missing."""
    words: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    missing = sorted(REQUIRED_WORDS - words.keys())
    if missing:
        raise ValueError(f"{path.name} lacks {', '.join(missing)}")
    return words


def symptom_chips(knowledge: Knowledge, language: str | None = None) -> list[str]:
    """Each symptom's first phrase in `language` (default English): the one-tap chips the front door and the widget
    offer (each matches its symptom)."""
    return [symptom.phrases[0] for symptom in knowledge.language(language).tree.symptoms]


def fill(template: str, **values: object) -> str:
    """`{name}` replaced by its value; unknown names stay as written (as in results.js)."""
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


def js_number(value: float) -> str:
    """A number as JavaScript's String() writes it: 67 for 67.0, 1.5 for 1.5."""
    return str(int(value)) if float(value).is_integer() else str(value)


def money(amount: float) -> str:
    return f"${round(amount):,}"


def cost_range(value: Mapping[str, float]) -> str:
    """`{"min": 150, "max": 350}` -> `$150-$350`, joined by an en dash."""
    return f"{money(value['min'])}\u2013{money(value['max'])}"


def request_href(
    route: Mapping[str, Any], issue: str | None = None, base: str = "", partner_id: str | None = None
) -> str:
    """The "ask this pro to come out" form for a routed pro, or for `partner_id` among its alternatives
    (results.js `requestHref` builds the same link)."""
    query = {"partner": partner_id or route["partnerId"], "zip": route["location"]["zip"]}
    if issue:
        query["issue"] = issue
    return f"{base}/requests/new?{urlencode(query)}"


def trust_facts(partner: Mapping[str, Any], words: Mapping[str, Any]) -> list[str]:
    """What the pro told us of themselves, each a few words (results.js `trustFacts` says the same)."""
    trust = words["trust"]
    facts = []
    if partner.get("licenseNumber"):
        facts.append(fill(trust["license"], number=partner["licenseNumber"]))
    if partner.get("insured") is True:
        facts.append(str(trust["insured"]))
    years = partner.get("yearsInBusiness")
    if isinstance(years, int):
        facts.append(str(trust["oneYear"]) if years == 1 else fill(trust["years"], years=years))
    facts += [str(partner[name]) for name in ("hours", "guarantee") if partner.get(name)]
    return facts


def tel_href(phone: str) -> str:
    """A `tel:` link for a US number as written in the directory: `(435) 555-0102` -> `tel:+14355550102`."""
    digits = re.sub(r"[^0-9+]", "", phone)
    if re.fullmatch(r"[0-9]{10}", digits):
        digits = "+1" + digits
    return "tel:" + digits


def long_date(iso: str, words: Mapping[str, Any]) -> str:
    """`2030-12-31` in the words' language: "December 31, 2030" (results.js `longDate` says the same)."""
    day = date.fromisoformat(iso)
    return fill(words["longDate"], month=words["months"][day.month - 1], day=day.day, year=day.year)


FILTERS: dict[str, Callable[..., object]] = {
    "fill": fill,
    "js_number": js_number,
    "cost_range": cost_range,
    "tel_href": tel_href,
    "long_date": long_date,
    "request_href": request_href,
    "trust_facts": trust_facts,
}
