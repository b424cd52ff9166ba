"""The console's demand: how many homeowners looked for the partner this week, per ZIP code and problem.

A search is not a lead (routeByZip records a referral, counted once per person, partner, problem and day, and
mails nobody), but a partner still wants to know that 14 homeowners near 84770 looked for spring repair: it
says where to advertise, and what to stock. No person is named or counted twice on one day.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from garage_tools.store.referrals import ReferralRepository

DEMAND_DAYS = 7
DEMAND_SHOWN = 10


@dataclass(frozen=True, slots=True)
class Demand:
    """One line of the demand list: how many homeowners, where (a ZIP code, if known), looking for what (a
    problem in words, or None: any garage door pro). The page says it as a sentence in its language."""

    homeowners: int
    zip: str | None
    problem: str | None


async def demand_lines(
    referrals: ReferralRepository, partner_id: str, problem: Callable[[str | None], str], today: date
) -> list[Demand]:
    """The last `DEMAND_DAYS` days' searches that found the partner, most first; `problem` names an issue key."""
    found = await referrals.demand(partner_id, today - timedelta(days=DEMAND_DAYS - 1), limit=DEMAND_SHOWN)
    return [Demand(row.homeowners, row.zip or None, problem(row.issue) if row.issue else None) for row in found]
