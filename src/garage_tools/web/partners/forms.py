"""What the partner console's forms may hold, beyond the shared rules of `web/forms.py`.

Each form is read into the directory's own records (`knowledge/directory.py`), so a value a partner types
is held to exactly the rule an operator's import is; only the wording of a refusal is the console's, in
plain words next to the field it is about.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Generic, TypeVar
from zoneinfo import ZoneInfo

from pydantic import TypeAdapter, ValidationError

from garage_tools.inputs import EARLIEST, LATEST, bounded_date
from garage_tools.knowledge.directory import DiscountType, Phone, PromotionRecord, ServiceType, WebUrl
from garage_tools.languages import N_, Phrase
from garage_tools.store.partner_console import LeadFilter, Profile

#: The words below are in English and marked for the catalog: each page translates them where it shows them.
HEATS = {"hot": N_("Urgent"), "warm": N_("Replacement"), "cold": N_("Looking into it")}
SERVICE_WORDS = {
    ServiceType.REPAIR: N_("Repair"),
    ServiceType.MAINTENANCE: N_("Maintenance"),
    ServiceType.REPLACEMENT: N_("Replacement"),
    ServiceType.INSTALLATION: N_("Installation"),
}
DATE_PROBLEM = N_("Enter a date such as {example}, from {first} to {last}.")
MAX_FIELDS = 20  # the promotion form: its own fields and a box per kind of work

T = TypeVar("T")
_PHONE: TypeAdapter[str] = TypeAdapter(Phone)
_URL: TypeAdapter[str] = TypeAdapter(WebUrl)


@dataclass
class Checked(Generic[T]):
    """A form read into `value`, or the problems to show beside each field (by field name)."""

    value: T | None = None
    problems: dict[str, str] = field(default_factory=dict)


def _valid(adapter: TypeAdapter[str], text: str) -> bool:
    try:
        adapter.validate_python(text)
    except ValidationError:
        return False
    return True


INSURED = {"yes": True, "no": False, "": None}
#: The time zones the console offers (US main zones, west to east); empty: each request's own place's zone.
TIME_ZONES = {
    "": N_("Where each request is"),
    "Pacific/Honolulu": N_("Hawaii"),
    "America/Anchorage": N_("Alaska"),
    "America/Los_Angeles": N_("Pacific"),
    "America/Phoenix": N_("Arizona"),
    "America/Denver": N_("Mountain"),
    "America/Chicago": N_("Central"),
    "America/New_York": N_("Eastern"),
}


#: The languages a partner may read the console, requests and lead notices in, each named in itself.
READING_LANGUAGES = {"en": "English", "es": "Español"}


def _date_problem(example: str) -> Phrase:
    return Phrase(DATE_PROBLEM, example=example, first=EARLIEST.year, last=LATEST.year)


def read_profile(form: dict[str, str]) -> Checked[Profile]:
    """Phone, booking link (may be empty) and website, and the pro card's trust facts (each may be empty), held
    to the directory's rules."""
    phone, booking, website = (form.get(name, "").strip() for name in ("phone", "booking", "website"))
    problems: dict[str, str] = {}
    trust: dict[str, object] = {}
    for name, limit in (("license", 40), ("hours", 120), ("guarantee", 200)):
        text = " ".join(form.get(name, "").split())
        if len(text) > limit or not text.isprintable():
            problems[name] = Phrase(N_("At most {limit} characters on one line, or leave it empty."), limit=limit)
        trust[name] = text or None
    since = form.get("since", "").strip()
    this_year = datetime.now(UTC).year
    if since and not (since.isdigit() and 1850 <= int(since) <= this_year):
        problems["since"] = Phrase(N_("A year such as 1998 (up to {year}), or leave it empty."), year=this_year)
    if form.get("insured", "") not in INSURED:
        problems["insured"] = N_("Choose yes, no or not said.")
    if form.get("time_zone", "") not in TIME_ZONES:
        problems["time_zone"] = N_("Choose a time zone from the list.")

    if not _valid(_PHONE, phone):
        problems["phone"] = N_("Enter a phone number with 10 to 15 digits, such as (435) 555-0101.")
    if booking and not _valid(_URL, booking):
        problems["booking"] = N_("Enter a web address starting with https://, or leave it empty.")
    if not _valid(_URL, website):
        problems["website"] = N_("Enter a web address starting with https://, such as https://doors.example.com.")
    if problems:
        return Checked(problems=problems)
    return Checked(
        Profile(
            phone=phone,
            scheduler_url=booking or None,
            url=website,
            license_number=str(trust["license"]) if trust["license"] else None,
            insured=INSURED[form.get("insured", "")],
            in_business_since=int(since) if since else None,
            hours=str(trust["hours"]) if trust["hours"] else None,
            guarantee=str(trust["guarantee"]) if trust["guarantee"] else None,
            time_zone=form.get("time_zone") or None,
            language=form.get("language", "") if form.get("language", "") in READING_LANGUAGES else "en",
        )
    )


def new_promotion_id(partner_id: str) -> str:
    """A fresh id for a partner's promotion: the partner's id and six random hex digits."""
    return f"{partner_id[:56]}-{secrets.token_hex(3)}"


AS_BEFORE = "as-before"  # the problem choice that keeps an imported offer's several issue keys


def read_promotion(
    form: dict[str, str], partner_id: str, promotion_id: str, issues: list[str], before: PromotionRecord | None = None
) -> Checked[PromotionRecord]:
    """A promotion of `partner_id` from the form; `issues` are the issue keys a promotion may name.

    Changing an offer (`before`) keeps what the form does not show: an operator's region keys, and its
    several issue keys unless another problem is chosen.
    """
    problems: dict[str, str] = {}
    title = " ".join(form.get("title", "").split())
    description = form.get("description", "").strip()
    terms = form.get("terms", "").strip()
    if not 1 <= len(title) <= 120:
        problems["title"] = N_("Give the offer a title of 1 to 120 characters.")
    if not 1 <= len(description) <= 1000:
        problems["description"] = N_("Describe the offer in 1 to 1000 characters.")
    if len(terms) > 2000:
        problems["terms"] = N_("Keep the terms to 2000 characters.")
    kind = form.get("discount_type", "")
    amount: float | None = None
    with contextlib.suppress(ValueError):
        amount = float(form.get("discount_value", "").strip().lstrip("$").rstrip("%"))
    if kind not in {t.value for t in DiscountType}:
        problems["discount_type"] = N_("Choose dollars off or percent off.")
    elif amount is None or not 0 < amount <= (100 if kind == DiscountType.PERCENT else 100_000):
        limit = "100" if kind == DiscountType.PERCENT else "100000"
        problems["discount_value"] = Phrase(N_("Enter a discount above 0 and at most {limit}."), limit=limit)
    dates: dict[str, date] = {}
    for name in ("valid_from", "valid_until"):
        if (day := bounded_date(form.get(name, ""))) is None:
            problems[name] = _date_problem("2026-12-31")
        else:
            dates[name] = day
    if len(dates) == 2 and dates["valid_until"] < dates["valid_from"]:
        problems["valid_until"] = N_("The last day cannot come before the first.")
    issue = form.get("issue", "")
    issue_keys = [issue] if issue else []
    if issue == AS_BEFORE and before is not None:
        issue_keys = list(before.issue_keys)
    elif issue and issue not in issues:
        problems["issue"] = N_("Choose a problem from the list.")
    services = [service for service in ServiceType if form.get(f"service_{service.value}") == "on"]
    if problems:
        return Checked(problems=problems)
    try:
        record = PromotionRecord(
            id=promotion_id,
            partner_id=partner_id,
            title=title,
            description=description,
            discount_type=DiscountType(kind),
            discount_value=amount,
            service_types=services,
            issue_keys=issue_keys,
            region_keys=list(before.region_keys) if before is not None else [],
            valid_from=dates["valid_from"],
            valid_until=dates["valid_until"],
            terms=terms or None,
        )
    except ValidationError:
        return Checked(problems={"title": N_("The offer could not be saved as written. Check each field.")})
    return Checked(record)


def read_lead_filter(query: dict[str, str]) -> tuple[LeadFilter, dict[str, str]]:
    """Which leads to list from the page's query (heat, from and to dates, both inclusive), and problems."""
    problems: dict[str, str] = {}
    heat = query.get("heat") or None
    if heat is not None and heat not in HEATS:
        problems["heat"] = N_("Choose how urgent from the list.")
        heat = None
    bounds: dict[str, datetime | None] = {"from": None, "to": None}
    for name in bounds:
        text = query.get(name, "")
        if not text:
            continue
        if (day := bounded_date(text)) is None:
            problems[name] = _date_problem("2026-11-25")
            continue
        start = datetime.combine(day, time(), tzinfo=UTC)
        bounds[name] = start if name == "from" else start + timedelta(days=1)
    return LeadFilter(heat=heat, since=bounds["from"], until=bounds["to"]), problems


#: Why a partner declines, as the homeowner's e-mail and the next pro read it (stored in English; the console's
#: list translates them where it shows them).
DECLINE_REASONS = {
    "booked": N_("Fully booked at the times asked"),
    "far": N_("Too far from us"),
    "work": N_("Not work we do"),
    "other": N_("Another reason"),
}
MAX_REASON = 300
ARRIVAL_DAYS_AHEAD = 180
_CLOCK = re.compile(r"^([01]?[0-9]|2[0-3]):([0-5][0-9])$")


def read_arrival(form: dict[str, str], zone: ZoneInfo, now: datetime) -> Checked[tuple[datetime, datetime]]:
    """An arrival window from the accept form: a day (today up to ARRIVAL_DAYS_AHEAD days ahead) and a start and
    end time on it, read in the partner's `zone`; the answer is in UTC."""
    problems: dict[str, str] = {}
    today = now.astimezone(zone).date()
    day = bounded_date(form.get("day", ""))
    if day is None or not today <= day <= today + timedelta(days=ARRIVAL_DAYS_AHEAD):
        problems["day"] = Phrase(N_("Choose a day from today up to {days} days ahead."), days=ARRIVAL_DAYS_AHEAD)
    times: dict[str, time] = {}
    for name, words in (("from", N_("Give the time arriving from, such as 09:00.")),
                        ("until", N_("Give the time arriving by, such as 09:00."))):  # fmt: skip
        found = _CLOCK.match(form.get(name, "").strip())
        if found is None:
            problems[name] = words
        else:
            times[name] = time(int(found.group(1)), int(found.group(2)))
    if len(times) == 2 and times["until"] <= times["from"]:
        problems["until"] = N_("The end of the window must come after its start.")
    if problems or day is None:
        return Checked(problems=problems)
    start = datetime.combine(day, times["from"], tzinfo=zone)
    end = datetime.combine(day, times["until"], tzinfo=zone)
    if end <= now:
        return Checked(problems={"until": N_("That time has passed: choose a later one.")})
    return Checked((start.astimezone(UTC), end.astimezone(UTC)))


def read_reason(form: dict[str, str]) -> Checked[str]:
    """Why the partner declines: one of `DECLINE_REASONS`, with optional words of their own (one line)."""
    choice = form.get("reason", "")
    words = " ".join(form.get("details", "").split())
    if choice not in DECLINE_REASONS:
        return Checked(problems={"reason": N_("Choose a reason from the list.")})
    if not words.isprintable() or len(words) > MAX_REASON - 40:
        return Checked(
            problems={"details": Phrase(N_("At most {limit} characters on one line."), limit=MAX_REASON - 40)}
        )
    if choice == "other" and not words:
        return Checked(problems={"details": N_("Say in a few words why you cannot take it.")})
    reason = DECLINE_REASONS[choice]
    return Checked(f"{reason}: {words}" if words else reason)


def promotion_values(promotion: PromotionRecord) -> dict[str, str]:
    """A promotion as the form's fields, to edit it (what `read_promotion` reads back)."""
    values = {
        "title": promotion.title,
        "description": promotion.description,
        "discount_type": promotion.discount_type.value,
        "discount_value": f"{promotion.discount_value:g}",
        "valid_from": promotion.valid_from.isoformat(),
        "valid_until": promotion.valid_until.isoformat(),
        "terms": promotion.terms or "",
        "issue": promotion.issue_keys[0]
        if len(promotion.issue_keys) == 1
        else (AS_BEFORE if promotion.issue_keys else ""),
    }
    for service in ServiceType:
        if service in promotion.service_types:
            values[f"service_{service.value}"] = "on"
    return values
