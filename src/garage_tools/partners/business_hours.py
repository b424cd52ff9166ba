"""When a partner must have answered a service request: its response time counted in business hours.

A request sent at 23:00 on a Saturday is not "unanswered" at 01:00: a partner's clock runs only in business
hours, in the local time of the request's place. `BusinessHours.parse` reads the setting
(`GARAGE_TOOLS_REQUEST_BUSINESS_HOURS`, such as `mon-sat 08:00-18:00`; `always` counts every hour).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from babel.dates import get_day_names

from garage_tools.catalogs import translations
from garage_tools.languages import DEFAULT

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
ALWAYS = "always"
_SETTING = re.compile(
    r"^(?P<first>[a-z]{3})(?:-(?P<last>[a-z]{3}))?\s+(?P<open>\d{1,2}):(?P<om>\d{2})-(?P<close>\d{1,2}):(?P<cm>\d{2})$"
)


def business_hours(setting: str) -> BusinessHours:
    """The setting read, or a start-up error that names it."""
    try:
        return BusinessHours.parse(setting)
    except ValueError as error:
        raise ValueError(f"GARAGE_TOOLS_REQUEST_BUSINESS_HOURS: {error}") from None


@dataclass(frozen=True, slots=True)
class BusinessHours:
    """The days (0 = Monday) and the daily opening hours a response time counts in; None: every hour counts."""

    days: frozenset[int] | None = None
    opens: time = time(0)
    closes: time = time(0)

    @classmethod
    def parse(cls, text: str) -> BusinessHours:
        """`mon-sat 08:00-18:00`, `mon 09:00-17:00` or `always`; ValueError with the rule otherwise."""
        text = " ".join(text.strip().lower().split())
        if text in ("", ALWAYS):
            return cls()
        found = _SETTING.match(text)
        if found is None or found["first"] not in DAYS or (found["last"] or found["first"]) not in DAYS:
            raise ValueError(f"business hours must read like 'mon-sat 08:00-18:00' or 'always', not {text!r}")
        first, last = DAYS.index(found["first"]), DAYS.index(found["last"] or found["first"])
        days = frozenset(range(first, last + 1)) if first <= last else frozenset([*range(first, 7), *range(last + 1)])
        try:
            opens = time(int(found["open"]), int(found["om"]))
            closes = time(int(found["close"]), int(found["cm"]))
        except ValueError:
            raise ValueError(f"business hours: {text!r} names a time that does not exist") from None
        if closes <= opens:
            raise ValueError(f"business hours: {text!r} closes before it opens")
        return cls(days, opens, closes)

    def words(self, language: str = DEFAULT) -> str:
        """The hours as a partner reads them in `language`: "Mon-Sat 08:00-18:00 local time", or "every hour
        counts"."""
        _ = translations(language).gettext
        if self.days is None:
            return _("every hour counts")
        ordered = sorted(self.days)
        day_names = get_day_names("abbreviated", locale=language)  # 0 = Monday, as `days`
        names = [str(day_names[d]).rstrip(".").title() for d in ordered]
        span = names[0] if len(names) == 1 else f"{names[0]}-{names[-1]}"
        return _("{days} {opens}-{closes} local time").format(
            days=span, opens=f"{self.opens:%H:%M}", closes=f"{self.closes:%H:%M}"
        )

    def deadline(self, start: datetime, hours: float, zone: ZoneInfo) -> datetime:
        """The moment (UTC) `hours` of business time after `start`, counted in `zone`'s local time."""
        remaining = timedelta(hours=hours)
        if self.days is None:
            return (start + remaining).astimezone(UTC)
        moment = start.astimezone(zone)
        for _ in range(400):  # a year and more of closed days would be a setting nobody meant
            opening = datetime.combine(moment.date(), self.opens, zone)
            closing = datetime.combine(moment.date(), self.closes, zone)
            if moment.weekday() in self.days and moment < closing:
                moment = max(moment, opening)
                if remaining <= closing - moment:
                    return (moment + remaining).astimezone(UTC)
                remaining -= closing - moment
            moment = datetime.combine(moment.date() + timedelta(days=1), self.opens, zone)
        return (start + timedelta(hours=hours)).astimezone(UTC)
