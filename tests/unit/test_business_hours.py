"""A partner's response time runs in business hours, in the local time of the request's place."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from garage_tools.partners.business_hours import BusinessHours, business_hours

DENVER = ZoneInfo("America/Denver")
SHOP = BusinessHours.parse("mon-sat 08:00-18:00")


def local(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=DENVER)


@pytest.mark.parametrize(
    ("sent", "due"),
    [
        ("2026-12-01 10:00", "2026-12-01 12:00"),  # a Tuesday morning: two hours later
        ("2026-12-01 17:00", "2026-12-02 09:00"),  # one hour that day, one the next morning
        ("2026-12-01 23:30", "2026-12-02 10:00"),  # at night: from opening time
        ("2026-12-05 17:30", "2026-12-07 09:30"),  # Saturday evening: Sunday is closed
        ("2026-12-06 12:00", "2026-12-07 10:00"),  # sent on the Sunday
        ("2026-12-01 06:00", "2026-12-01 10:00"),  # before opening
    ],
)
def test_the_clock_runs_only_in_business_hours(sent: str, due: str) -> None:
    assert SHOP.deadline(local(sent), 2, DENVER) == local(due).astimezone(UTC)


def test_across_a_change_of_clocks_the_hours_are_local() -> None:
    # 7 March 2026, Saturday 17:00 MST; clocks go forward on Sunday the 8th; Monday opens 08:00 MDT.
    assert SHOP.deadline(local("2026-03-07 17:00"), 2, DENVER) == datetime(2026, 3, 9, 15, 0, tzinfo=UTC)


def test_always_counts_every_hour_and_the_setting_is_checked() -> None:
    anytime = BusinessHours.parse("always")
    assert anytime.deadline(local("2026-12-06 23:00"), 2, DENVER) == local("2026-12-07 01:00").astimezone(UTC)
    assert anytime.words() == "every hour counts" and SHOP.words() == "Mon-Sat 08:00-18:00 local time"
    assert BusinessHours.parse("fri-mon 09:00-17:00").days == frozenset({4, 5, 6, 0})
    for wrong in ("weekdays", "mon-sat 18:00-08:00", "mon-xyz 08:00-18:00", "mon 25:00-26:00"):
        with pytest.raises(ValueError, match="GARAGE_TOOLS_REQUEST_BUSINESS_HOURS"):
            business_hours(wrong)
