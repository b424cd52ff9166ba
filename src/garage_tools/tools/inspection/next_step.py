"""What the homeowner should do next, and the seam where partner routing plugs in.

`find_local_pro` is the one place a partner lookup belongs: it is called once per new report, only
when something needs a professional and the homeowner agreed to share their contact details. Until
the partner directory (`routeByZip`) is connected it finds nobody, and the next step names the
tool and its arguments so the homeowner's agent can look one up itself.
"""

from __future__ import annotations

from garage_tools.knowledge.checklist import ItemStatus
from garage_tools.knowledge.schemas import DiyRisk, Urgency
from garage_tools.registry import ToolContext
from garage_tools.tools.inspection.models import LocalPro, NextStep, NextStepAction, RouteArguments, Scorecard

ROUTING_TOOL = "routeByZip"


def choose_action(card: Scorecard) -> NextStepAction:
    """The most pressing kind of next step the flagged items call for."""
    fixes = [flag for flag in card.flagged_items if flag.status is ItemStatus.FIX]
    if any(flag.urgency is Urgency.EMERGENCY for flag in fixes):
        return NextStepAction.CALL_A_PRO_NOW
    if any(flag.diy_risk is not DiyRisk.SAFE for flag in fixes):
        return NextStepAction.BOOK_A_PRO
    if fixes:
        return NextStepAction.DO_IT_YOURSELF
    if card.flagged_items:
        return NextStepAction.KEEP_AN_EYE
    return NextStepAction.ROUTINE_CARE


def routing_arguments(card: Scorecard, zip_code: str, action: NextStepAction) -> RouteArguments | None:
    """`routeByZip` arguments for this report: the most urgent item's issue, and how hot the lead is."""
    if action in (NextStepAction.DO_IT_YOURSELF, NextStepAction.ROUTINE_CARE):
        return None
    issue = next((flag.issue_key for flag in card.flagged_items if flag.issue_key), None)
    heat = "cold" if action is NextStepAction.KEEP_AN_EYE else "hot"
    return RouteArguments(zip_or_location=zip_code, issue=issue, lead_heat=heat)


async def find_local_pro(ctx: ToolContext, arguments: RouteArguments) -> LocalPro | None:
    """The partner lookup: a local pro for `arguments`, or None.

    This is the seam for partner routing. Replace the body with the `routeByZip` lookup (the
    partner directory) when it lands; the caller has already checked the homeowner's consent.
    """
    return None


_TEXT = {
    NextStepAction.CALL_A_PRO_NOW: (
        "Stop using the door until a trained technician has repaired {items}: these parts hold the door's "
        "weight or keep people safe."
    ),
    NextStepAction.BOOK_A_PRO: "Book a technician to repair {items}.",
    NextStepAction.DO_IT_YOURSELF: (
        "The items to fix ({items}) are safe to put right yourself: follow the guidance for each, then inspect again."
    ),
    NextStepAction.KEEP_AN_EYE: (
        "Nothing needs fixing now. Check {items} again in a month, and ask a pro to look at them at your next service."
    ),
    NextStepAction.ROUTINE_CARE: (
        "Nothing needs attention. Repeat the balance and reversal tests monthly and inspect again in a year."
    ),
}


def next_step(card: Scorecard, zip_code: str, contact_share: bool, local_pro: LocalPro | None = None) -> NextStep:
    """The next step for the homeowner. Its text never names the ZIP code (the report page is shared)."""
    action = choose_action(card)
    wanted = ItemStatus.FIX if action is not NextStepAction.KEEP_AN_EYE else ItemStatus.WATCH
    labels = [flag.label.lower() for flag in card.flagged_items if flag.status is wanted]
    text = _TEXT[action].format(items=", ".join(labels))
    arguments = routing_arguments(card, zip_code, action)
    needs_pro = action in (NextStepAction.CALL_A_PRO_NOW, NextStepAction.BOOK_A_PRO)
    if needs_pro and local_pro is not None:
        reach = " or ".join(part for part in (local_pro.phone, local_pro.booking_url) if part)
        text += f" {local_pro.name} serves your area" + (f": {reach}." if reach else ".")
    elif needs_pro and contact_share:
        text += " You agreed that a local pro may contact you, so one can be matched to your area."
    elif needs_pro:
        text += f" Find a local pro near you with {ROUTING_TOOL} and your ZIP code."
    return NextStep(
        action=action,
        text=text,
        tool=ROUTING_TOOL if arguments else None,
        arguments=arguments,
        contact_shared=contact_share,
        local_pro=local_pro,
    )


async def plan_next_step(ctx: ToolContext, card: Scorecard, zip_code: str, contact_share: bool) -> NextStep:
    """The next step for a new report, with a local pro when one is needed and the homeowner consented."""
    action = choose_action(card)
    arguments = routing_arguments(card, zip_code, action)
    needs_pro = action in (NextStepAction.CALL_A_PRO_NOW, NextStepAction.BOOK_A_PRO)
    local_pro = await find_local_pro(ctx, arguments) if arguments and needs_pro and contact_share else None
    return next_step(card, zip_code, contact_share, local_pro)
