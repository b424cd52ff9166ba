"""`submitInspection`: score a completed 24-point inspection, store the report, queue its e-mail.

Idempotency: with an `Idempotency-Key` header, a retried submission returns the report the first
attempt stored instead of adding another (and queues no second e-mail). The key is scoped to the
caller (their API key, or the public tier) and stored as a hash; the body's hash is stored beside
it, so reusing a key for a different inspection is refused rather than answered with someone
else's report. Two concurrent retries race on a unique index, and the loser answers with the
winner's report.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.knowledge.checklist import ItemStatus
from garage_tools.languages import supported
from garage_tools.partners.request_webhooks import inspection_lead_event
from garage_tools.registry import Annotations, Tool, ToolContext
from garage_tools.store.inspections import (
    DuplicateIdempotencyKey,
    InspectionRepository,
    NewInspection,
    StoredInspection,
    report_url,
)
from garage_tools.store.partners import insert_lead
from garage_tools.tools.idempotency import idempotency_hash, request_hash, reused_key
from garage_tools.tools.inspection.mail import report_mail
from garage_tools.tools.inspection.models import (
    InspectionReport,
    ReportDoor,
    SubmitInspectionInput,
    SubmitInspectionOutput,
)
from garage_tools.tools.inspection.next_step import lead_for, plan_next_step
from garage_tools.tools.inspection.report import first_name, new_report_id, submitter_report
from garage_tools.tools.inspection.scoring import score_inspection
from garage_tools.tools.routing.tool import record_referral

log = logging.getLogger(__name__)

#: 24 notes of 500 characters, each up to 6 bytes once JSON-escaped, plus 2,000 characters of notes.
MAX_BODY_BYTES = 128 * 1024


def _replay(stored: StoredInspection, fingerprint: str, ctx: ToolContext) -> SubmitInspectionOutput:
    if stored.request_hash != fingerprint:
        raise reused_key("inspection")
    return submitter_report(stored, ctx.base_url, replayed=True)


async def submit_inspection(args: SubmitInspectionInput, ctx: ToolContext) -> SubmitInspectionOutput:
    data = ctx.data
    key = idempotency_hash(ctx, "submitInspection")
    fingerprint = request_hash(args)
    reports = InspectionRepository(data.database)
    if key is not None and (earlier := await reports.by_idempotency_hash(key)) is not None:
        return _replay(earlier, fingerprint, ctx)

    language = ctx.knowledge.language(supported(args.lang))  # its words are stored with the report
    card = score_inspection(language.checklist, args.items, language.code)
    report_id = new_report_id()
    created_at = datetime.now(UTC)
    door = ReportDoor.model_validate(args.door.model_dump()) if args.door else None
    url = report_url(ctx.base_url, report_id)
    step, routed = await plan_next_step(ctx, card, args.recipient.zip, args.consent.contact_share)
    report = InspectionReport(
        **dict(card),
        report_id=report_id,
        report_url=url,
        report_json_url=f"{url}.json",
        created_at=created_at,
        first_name=first_name(args.recipient.name),
        door=door,
        next_step=step,
    )
    rebuilt_when_read = {"report_id", "report_url", "report_json_url", "created_at"}
    mail = (
        report_mail(args.recipient.email, report, args.notes, ctx.data.photos, ctx.base_url)
        if args.email_report
        else None
    )
    lead = lead_for(
        routed,
        step,
        report_id=report_id,
        created_at=created_at,
        name=args.recipient.name,
        email=args.recipient.email.lower(),
        door_size=args.door.size if args.door else None,
        surface=ctx.caller.surface,
        language=language.code,
    )

    if lead is not None and lead.contact_email is None:
        # Without consent to share, the pro gets no lead: the search counts as demand, like routeByZip's.
        record_referral(
            ctx,
            partner_id=lead.partner_id,
            covered=lead.covered,
            zip_code=lead.zip,
            issue=lead.issue,
            door_size=lead.door_size,
            heat=lead.lead_heat,
            source="inspection",
        )
        lead = None

    async def with_the_report(session: AsyncSession) -> str | None:
        # The lead (with the homeowner's contact details) and the e-mail stand or fall with the report.
        if lead is not None:
            shared = replace(lead, base_url=ctx.base_url)
            await insert_lead(session, shared, data.partners.notices.tell_at_once)
            await inspection_lead_event(session, shared)
        return await data.outbox.enqueue(session, mail) if mail is not None else None

    new = NewInspection(
        id=report_id,
        created_at=created_at,
        idempotency_hash=key,
        request_hash=fingerprint,
        email=args.recipient.email.lower(),
        zip=args.recipient.zip,
        name=args.recipient.name,
        consent_marketing=args.consent.marketing,
        consent_contact_share=args.consent.contact_share,
        score=card.score,
        grade=card.grade,
        email_requested=mail is not None,
        submission=args.model_dump(mode="json", by_alias=True, exclude={"recipient"}),
        report=report.model_dump(mode="json", by_alias=True, exclude_none=True, exclude=rebuilt_when_read),
    )
    try:
        stored = await reports.add(new, also=with_the_report)
    except DuplicateIdempotencyKey:
        assert key is not None
        earlier = await reports.by_idempotency_hash(key)
        assert earlier is not None
        return _replay(earlier, fingerprint, ctx)
    fixes = sum(flag.status is ItemStatus.FIX for flag in card.flagged_items)
    log.info(
        "inspection report %s… stored: grade %s, %d flagged (%d fix), email %s, lead %s",
        report_id[:6],  # the whole id is the report's only key
        card.grade,
        len(card.flagged_items),
        fixes,
        "queued" if mail else "not requested",
        "none"
        if lead is None
        else f"for {lead.partner_id or 'no partner'}" + (" with contact" if lead.contact_email else ""),
    )
    return submitter_report(stored, ctx.base_url, replayed=False)


TOOL = Tool(
    name="submitInspection",
    view="inspection",
    icon="inspection",
    title="Submit a 24-point garage door inspection",
    summary="Score a homeowner's 24-point inspection, store a shareable report and optionally e-mail it.",
    description=(
        "Send what the homeowner found for each inspection item (`items`: item id → `{status, note}`, status "
        "`ok`, `watch` or `fix`), who they are (`recipient`: email, five-digit zip, optional name) and their "
        "consent choices. Items left out count as not inspected and lower `completeness`, not the score. "
        "Returns a 0-100 score and grade (A-F; a safety-critical item marked `fix` makes it an F), the flagged "
        "items most urgent first with guidance, reference-photo pointers and issue keys for costEstimate, the "
        "next step in plain words (`nextStep.text`, to read to the homeowner) with the local pro to call "
        "(`nextStep.localPro`: the partner routeByZip picks for the ZIP code, or the nearest when none serves it) "
        "and routeByZip arguments, and `reportUrl`: a printable page that shows no personal data beyond a first "
        "name. With `consent.contactShare` true the pro receives a lead with the homeowner's name, e-mail "
        "address and report link; otherwise only an anonymous referral is "
        "counted and the pro is not mailed. `emailReport: true` queues the report e-mail; it "
        "is delivered once the mail server accepts it. `lang: es` writes the report's words (labels, guidance, "
        "grade label, summary, next step), its page and its e-mail in Spanish. Send an `Idempotency-Key` header to "
        "make retries safe: the same key and body return the same report."
    ),
    input_model=SubmitInspectionInput,
    output_model=SubmitInspectionOutput,
    handler=submit_inspection,
    annotations=Annotations(read_only=False, idempotent=False, destructive=False, open_world=True),
    max_body_bytes=MAX_BODY_BYTES,
)
