"""What the homeowner should do next, and the local pro to call.

The advice comes from the flagged items alone: only the items whose urgency is `emergency` (a
safety-critical part to fix) make the homeowner stop using the door; other repairs a technician should
do, and the ones safe to do yourself, get sentences of their own. When a pro is needed,
`find_local_pro` asks the partner directory with routeByZip's own rule (`tools.routing.route`, called
as a function), so an inspection and a routing request for the same place and issue reach the same
partner. The pro is named whether or not the homeowner consented; their consent decides only whether
their contact details go to the pro with the lead (`lead_for`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from garage_tools.catalogs import translations
from garage_tools.errors import ServiceError
from garage_tools.knowledge.checklist import ItemStatus
from garage_tools.knowledge.schemas import DiyRisk, Urgency
from garage_tools.languages import DEFAULT
from garage_tools.registry import ToolContext
from garage_tools.store.partners import Lead, LeadSource
from garage_tools.tools.cost import parse_door_size
from garage_tools.tools.inspection.models import (
    FlaggedItem,
    LocalPro,
    NextStep,
    NextStepAction,
    RouteArguments,
    Scorecard,
)
from garage_tools.tools.routing import RouteByZipInput, RouteOutput, route

log = logging.getLogger(__name__)

ROUTING_TOOL = "routeByZip"
NEEDS_A_PRO = (NextStepAction.CALL_A_PRO_NOW, NextStepAction.BOOK_A_PRO)


def choose_action(flagged: Sequence[FlaggedItem]) -> NextStepAction:
    """The most pressing kind of next step the flagged items call for."""
    fixes = [flag for flag in flagged if flag.status is ItemStatus.FIX]
    if any(flag.urgency is Urgency.EMERGENCY for flag in fixes):
        return NextStepAction.CALL_A_PRO_NOW
    if any(flag.diy_risk is not DiyRisk.SAFE for flag in fixes):
        return NextStepAction.BOOK_A_PRO
    if fixes:
        return NextStepAction.DO_IT_YOURSELF
    if flagged:
        return NextStepAction.KEEP_AN_EYE
    return NextStepAction.ROUTINE_CARE


def for_a_pro(flag: FlaggedItem) -> bool:
    """A fix a trained technician should make: an urgent one, or one not safe to do yourself."""
    return flag.status is ItemStatus.FIX and (flag.urgency is Urgency.EMERGENCY or flag.diy_risk is not DiyRisk.SAFE)


def routing_arguments(card: Scorecard, zip_code: str, action: NextStepAction) -> RouteArguments | None:
    """`routeByZip` arguments for this report: the issue of the most urgent item for a pro, and the lead's heat.

    A repair the homeowner can make (a remote, say) never decides what the pro is called for; when no item
    for a pro has an issue key, the issue is left out rather than taken from a lesser item.
    """
    if action in (NextStepAction.DO_IT_YOURSELF, NextStepAction.ROUTINE_CARE):
        return None
    candidates = card.flagged_items if action is NextStepAction.KEEP_AN_EYE else filter(for_a_pro, card.flagged_items)
    issue = next((flag.issue_key for flag in candidates if flag.issue_key), None)
    heat = "cold" if action is NextStepAction.KEEP_AN_EYE else "hot"
    return RouteArguments(zip_or_location=zip_code, issue=issue, lead_heat=heat)


def series(flags: Sequence[FlaggedItem], lang: str = DEFAULT) -> str:
    """Items as a phrase: "the hinges and the rollers". Labels that hold a comma or "and" are parted more clearly."""
    _ = translations(lang).gettext
    names = [_("the {item}").format(item=f"{flag.label[0].lower()}{flag.label[1:]}") for flag in flags]
    if len(names) < 2:
        return "".join(names)
    and_ = _("and")
    wordy = any("," in name or f" {and_} " in name for name in names)
    if len(names) == 2:
        return f"{names[0]}{',' if wordy else ''} {and_} {names[1]}"
    comma = "; " if wordy else ", "
    return comma.join(names[:-1]) + f"{';' if wordy else ''} {and_} {names[-1]}"


def advice(flagged: Sequence[FlaggedItem], lang: str = DEFAULT) -> list[str]:
    """What to do about the flagged items, in sentences a homeowner reads in `lang` (no pro named yet)."""
    _ = translations(lang).gettext
    fixes = [flag for flag in flagged if flag.status is ItemStatus.FIX]
    stop = [flag for flag in fixes if flag.urgency is Urgency.EMERGENCY]
    repairs = [flag for flag in fixes if for_a_pro(flag) and flag not in stop]
    yours = [flag for flag in fixes if not for_a_pro(flag)]
    sentences: list[str] = []
    if stop:
        stop_one = _(
            "Stop using the door until a trained technician has fixed the problem you found with {items}: "
            "this part holds the door's weight or keeps people safe."
        )
        stop_more = _(
            "Stop using the door until a trained technician has fixed the problems you found with {items}: "
            "these parts hold the door's weight or keep people safe."
        )
        sentences.append((stop_one if len(stop) == 1 else stop_more).format(items=series(stop, lang)))
    if repairs:
        ask = _("Also have the technician repair {items}.") if stop else _("Book a technician to repair {items}.")
        sentences.append(ask.format(items=series(repairs, lang)))
    if yours:
        then = (
            _("You can fix {items} yourself: follow the guidance given for each.")
            if stop or repairs
            else _("You can fix {items} yourself: follow the guidance given for each, then inspect again.")
        )
        sentences.append(then.format(items=series(yours, lang)))
    if not fixes:
        watches = [flag for flag in flagged if flag.status is ItemStatus.WATCH]
        if watches:
            again = (
                _(
                    "Nothing needs fixing now. Check {items} again in a month, and ask a pro to look at it at your "
                    "next service."
                )
                if len(watches) == 1
                else _(
                    "Nothing needs fixing now. Check {items} again in a month, and ask a pro to look at them at your "
                    "next service."
                )
            )
            sentences.append(again.format(items=series(watches, lang)))
        else:
            sentences.append(
                _("Nothing needs attention. Repeat the balance and reversal tests monthly and inspect again in a year.")
            )
    return sentences


def reach_the_pro(pro: LocalPro | None, lang: str = DEFAULT) -> str:
    """Who to call, in a sentence. Never names the ZIP code or the place (the report page is shared)."""
    _ = translations(lang).gettext
    if pro is None:
        return _("Call a trained garage door technician near you.")
    if pro.phone and pro.booking_url:
        reach = _("call {phone} or book online").format(phone=pro.phone)
    elif pro.phone:
        reach = _("call {phone}").format(phone=pro.phone)
    else:
        reach = _("book online") if pro.booking_url else ""
    if not pro.covered:
        return _(
            "No partner of ours serves your area yet. The nearest is {name}: {reach} to ask whether they come out "
            "that far."
        ).format(name=pro.name, reach=reach or _("contact them"))
    if reach:
        return _("{name} serves your area: {reach}.").format(name=pro.name, reach=reach)
    return _("{name} serves your area.").format(name=pro.name)


def what_the_pro_was_told(pro: LocalPro | None, contact_share: bool, lang: str = DEFAULT) -> str | None:
    """Whether the homeowner's contact details went to the pro, in a sentence (None when no pro was named)."""
    _ = translations(lang).gettext
    if pro is None:
        return None
    if pro.contact_details_sent:
        return _("As you agreed, we have sent them your name, e-mail address and this report so they can contact you.")
    if contact_share or not pro.covered:
        return _("We have not passed on your details.")
    return _("We have not passed on your details: they hear from you only if you get in touch.")


def next_step(card: Scorecard, zip_code: str, contact_share: bool, local_pro: LocalPro | None = None) -> NextStep:
    """The next step for the homeowner, in the report's language. Its text never names the ZIP code (the report
    page is shared)."""
    action = choose_action(card.flagged_items)
    sentences = advice(card.flagged_items, card.lang)
    if action in NEEDS_A_PRO:
        told = what_the_pro_was_told(local_pro, contact_share, card.lang)
        sentences += [reach_the_pro(local_pro, card.lang), *([told] if told else [])]
    arguments = routing_arguments(card, zip_code, action)
    return NextStep(
        action=action,
        text=" ".join(sentences),
        tool=ROUTING_TOOL if arguments else None,
        arguments=arguments,
        contact_shared=contact_share,
        local_pro=local_pro if action in NEEDS_A_PRO else None,
    )


async def find_local_pro(ctx: ToolContext, arguments: RouteArguments) -> RouteOutput | None:
    """The partner routeByZip would choose for `arguments`, or None when there is no directory or no such place.

    A ZIP code the US data set lacks (or a directory that cannot be read) leaves the report without a named
    pro instead of failing a submission that is otherwise complete.
    """
    request = RouteByZipInput.model_validate(
        {"zipOrLocation": arguments.zip_or_location, "issue": arguments.issue, "leadHeat": arguments.lead_heat}
    )
    try:
        return route(ctx.knowledge, await ctx.data.partners.directory.current(), request)
    except ServiceError as error:
        log.info("inspection: no local pro looked up (%s)", error.code)
        return None


def local_pro_of(routed: RouteOutput | None, contact_share: bool) -> LocalPro | None:
    """The pro the report names: the chosen partner, or the nearest one when none serves the area."""
    if routed is None:
        return None
    card = routed.partner if routed.covered else (routed.nearest.partner if routed.nearest else None)
    if card is None:
        return None
    return LocalPro(
        name=card.display_name,
        phone=card.phone,
        booking_url=card.scheduler_url,
        website=card.url,
        partner_id=card.id,
        covered=routed.covered,
        contact_details_sent=routed.covered and contact_share,
    )


async def plan_next_step(
    ctx: ToolContext, card: Scorecard, zip_code: str, contact_share: bool
) -> tuple[NextStep, RouteOutput | None]:
    """The next step for a new report, with the local pro when one is needed, and the routing behind it."""
    action = choose_action(card.flagged_items)
    arguments = routing_arguments(card, zip_code, action)
    routed = await find_local_pro(ctx, arguments) if arguments and action in NEEDS_A_PRO else None
    return next_step(card, zip_code, contact_share, local_pro_of(routed, contact_share)), routed


def lead_for(
    routed: RouteOutput | None,
    step: NextStep,
    *,
    report_id: str,
    created_at: datetime,
    name: str | None,
    email: str,
    door_size: str | None,
    surface: str,
    language: str | None = None,
) -> Lead | None:
    """The lead an inspection records, or None when it routed nobody.

    The report link and the homeowner's name and address go with it only when a partner serves the area
    and the homeowner agreed to be contacted. Without consent the lead is anonymous, like a routeByZip
    request: the ZIP code, the issue, the door size and the heat.
    """
    if routed is None or step.arguments is None:
        return None
    shared = step.local_pro is not None and step.local_pro.contact_details_sent
    return Lead(
        created_at=created_at,
        partner_id=routed.partner_id,
        covered=routed.covered,
        zip=routed.location.zip,
        issue=step.arguments.issue,
        door_size=door_size if door_size and _is_door_size(door_size) else None,
        lead_heat=step.arguments.lead_heat,
        surface=surface[:16],
        source=LeadSource.INSPECTION,
        report_id=report_id if shared else None,
        contact_name=name if shared else None,
        contact_email=email if shared else None,
        language=language,
    )


def _is_door_size(value: str) -> bool:
    """Whether the homeowner's free-text door size is one routing would accept (`16x7`)."""
    try:
        parse_door_size(value)
    except ValueError:
        return False
    return True
