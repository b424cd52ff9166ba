"""`routeByZip`: a ZIP code or city to the vetted local partner best suited to the job.

Ranking, among the partners whose service area includes the place:
1. services that fit the issue (routing.json maps each issue to the services that fix it; a symptom
   key from diagnose stands for its most likely issue);
2. the lead heat: `hot` (emergency, must call a pro) puts partners who take emergency calls first,
   `warm` (replacement) those who do replacements; `cold` (research) and no heat prefer nobody;
3. the nearest (distance from the place to the partner's centre), then the name, so ties are stable.
Before all three, a `preferredPartnerId` that serves the place wins: a contractor's own widget sends its
partner id, so its visitors reach that contractor whenever it covers them (and the best fit otherwise).
An area no partner serves is a 200 with `covered: false`, the nearest partner and a `hint`. A city
name sent without its state that several states have ("St. George") is read as the likeliest of those
places: one a partner serves first, then the one with the most ZIP codes; the answer says so
(`location.ambiguous`), lists the others and says in its `hint` how to ask for another.
"""

from garage_tools.tools.routing.models import (
    LeadHeat,
    RouteByZipInput,
    RouteOutput,
    check_issue_or_symptom,
    issue_and_symptom_keys,
)
from garage_tools.tools.routing.tool import TOOL, route, route_by_zip

__all__ = [
    "TOOL",
    "LeadHeat",
    "RouteByZipInput",
    "RouteOutput",
    "check_issue_or_symptom",
    "issue_and_symptom_keys",
    "route",
    "route_by_zip",
]
