"""The console's demand: how many homeowners looked for the partner this week, per ZIP code and problem.

A search is not a lead (routeByZip records a referral, counted once per person, partner, problem and day, and
mails nobody), but a partner still wants to know that 14 homeowners near 84770 looked for spring repair: it
says where to advertise, and what to stock. No person is named or counted twice on one day.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from garage_tools.store.referrals import ReferralRepository

DEMAND_DAYS = 7
DEMAND_SHOWN = 10


async def demand_lines(
    referrals: ReferralRepository, partner_id: str, problem: Callable[[str | None], str], today: date
) -> list[str]:
    """The last `DEMAND_DAYS` days' searches that found the partner, most first, in plain sentences."""
    found = await referrals.demand(partner_id, today - timedelta(days=DEMAND_DAYS - 1), limit=DEMAND_SHOWN)
    lines = []
    for row in found:
        who = "1 homeowner" if row.homeowners == 1 else f"{row.homeowners} homeowners"
        where = f"in {row.zip}" if row.zip else "near you"
        what = f"help with “{problem(row.issue)}”" if row.issue else "a garage door pro"
        lines.append(f"{who} {where} looked for {what}")
    return lines
