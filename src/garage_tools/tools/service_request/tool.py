"""`requestService`: a homeowner asks a pro to come out. Stored, mailed to the pro at once, confirmed to them.

A request exists only to share the homeowner's contact details with a pro, so it is refused without their
consent. The pro must be one routeByZip could name for the ZIP code: an unknown partner, or one that does
not serve the place, is a clear 400 naming who does. Idempotency works as for inspections
(`tools/idempotency.py`); with a key, the status link is derived from it and a salt kept with the request,
so a retry answers the same link while the table alone opens no page. Limits: the tool's usage cap (per
address and key, on the access gate) and the requests one e-mail address or phone number may send a day.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.access.limits import UsageCap
from garage_tools.errors import (
    ConsentRequired,
    InvalidArguments,
    PartnerNotServing,
    RateLimited,
    UnknownPartner,
)
from garage_tools.languages import DEFAULT, supported
from garage_tools.partners.index import Listing
from garage_tools.partners.request_mail import homeowner_confirmation_mail, next_step_words, status_url, zone_of
from garage_tools.partners.service import Partners
from garage_tools.registry import Annotations, Question, Tool, ToolContext
from garage_tools.store.service_requests import (
    DuplicateIdempotencyKey,
    NewRequest,
    StoredRequest,
    Window,
)
from garage_tools.tools.diagnose import understand
from garage_tools.tools.idempotency import idempotency_hash, request_hash, reused_key
from garage_tools.tools.routing.tool import resolve_issue
from garage_tools.tools.service_request.models import (
    MAX_DAYS_AHEAD,
    RequestedPro,
    RequestServiceInput,
    RequestServiceOutput,
)

log = logging.getLogger(__name__)

TOOL_NAME = "requestService"
#: What the person agrees to, asked by an assistant whose client can (MCP elicitation) when consent was not sent.
CONSENT_QUESTION = (
    "May the pro you chose (and, should they not answer, the next local pro) receive your name, your phone number "
    "or e-mail address and what you wrote, to contact you about this job?"
)


def derived_token(salt: str, raw_key: str) -> str:
    """The status token of a request made with an Idempotency-Key: the same for every retry with that key."""
    digest = hashlib.sha256(f"status\n{salt}\n{raw_key}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _check_windows(args: RequestServiceInput, now: datetime) -> None:
    today = now.date()
    for window in args.windows:
        if not today - timedelta(days=1) <= window.date <= today + timedelta(days=MAX_DAYS_AHEAD):
            raise InvalidArguments(
                f"windows: {window.date.isoformat()} is not a day to come out; give a date from today "
                f"up to {MAX_DAYS_AHEAD} days ahead."
            )


def _who_serves(args: RequestServiceInput, listing: Listing | None, serving: list[Listing]) -> Listing:
    if listing is None or not listing.active:
        raise UnknownPartner(
            f"partnerId: there is no partner {args.partner_id!r}. Ask routeByZip for the pro that serves "
            f"{args.zip} and send its partnerId."
        )
    if listing.id not in {s.id for s in serving}:
        others = ", ".join(f"{s.display_name} ({s.id})" for s in serving[:3]) or "none yet"
        raise PartnerNotServing(f"{listing.display_name} does not serve ZIP {args.zip}. Partners that do: {others}.")
    return listing


async def request_service(args: RequestServiceInput, ctx: ToolContext) -> RequestServiceOutput:
    if not args.consent.contact_share:
        raise ConsentRequired(
            "consent.contactShare must be true: a service request sends the homeowner's name and phone or e-mail "
            "to the pro, so it needs their agreement. Without it, give them the pro's phone number instead."
        )
    partners = ctx.data.partners
    requests = partners.requests
    key = idempotency_hash(ctx, TOOL_NAME)
    fingerprint = request_hash(args)
    if key is not None and (earlier := await requests.repository.by_idempotency_hash(key)) is not None:
        return await _replay(earlier, fingerprint, ctx, partners)

    now = datetime.now(UTC)
    _check_windows(args, now)
    snapshot = await partners.directory.current()
    place = snapshot.places.candidates(args.zip)[0]  # an unknown ZIP code is a 400 unknown_location
    listing = _who_serves(args, snapshot.index.get(args.partner_id), [s.listing for s in snapshot.index.serving(place)])
    if await requests.too_many_from(args.contact.email, args.contact.phone):
        raise RateLimited(
            f"This phone number or e-mail address has sent {requests.limit_per_contact} requests in the last "
            "24 hours, the most we take. Call the pro instead, or try again tomorrow.",
            headers={"Retry-After": "3600"},
        )
    issue = resolve_issue(ctx.knowledge, args.issue_key)
    salt = secrets.token_hex(16) if ctx.idempotency_key is not None else None
    new = NewRequest(
        partner_id=listing.id,
        zip=args.zip,
        issue=issue.issue_key if issue else None,
        description=args.description.strip() if args.description else None,
        door_size=args.door_size,
        contact_name=args.contact.name,
        contact_phone=args.contact.phone,
        contact_email=args.contact.email,
        windows=[Window(w.date, w.part_of_day.value) for w in args.windows],
        notes=args.notes,
        language=_language(ctx, args),
        report_id=args.report_id,
        source=ctx.caller.surface[:16],
        request_hash=fingerprint,
        idempotency_hash=key,
        token=derived_token(salt, ctx.idempotency_key) if salt and ctx.idempotency_key else None,
        token_salt=salt,
        base_url=ctx.base_url,
        created_at=now,
    )
    zone = zone_of(snapshot.places, args.zip)
    answer_by = await requests.answer_by(now, args.zip)
    words = next_step_words(listing.display_name, answer_by, zone, now, new.language)

    async def confirm(session: AsyncSession, stored: StoredRequest, token: str) -> None:
        # The homeowner's confirmation, with the link only this transaction knows, stands or falls with the request.
        mail = homeowner_confirmation_mail(
            stored, (listing.display_name, listing.phone), status_url(ctx.base_url, token), words
        )
        if mail is not None:
            await ctx.data.outbox.enqueue(session, mail)

    try:
        created = await requests.repository.create(new, also=confirm)
    except DuplicateIdempotencyKey:
        assert key is not None
        earlier = await requests.repository.by_idempotency_hash(key)
        assert earlier is not None
        return await _replay(earlier, fingerprint, ctx, partners)
    log.info("service request %s stored for %s (ZIP %s)", created.request.id, listing.id, args.zip)
    assert created.token is not None
    return _answer(created.request, created.token, listing, answer_by, words, ctx.base_url, replayed=False)


def _answer(
    request: StoredRequest,
    token: str,
    listing: Listing,
    answer_by: datetime,
    words: str,
    base_url: str,
    *,
    replayed: bool,
) -> RequestServiceOutput:
    return RequestServiceOutput(
        request_id=request.id,
        status=request.status.value,
        status_url=status_url(base_url, token),
        partner=RequestedPro(partner_id=listing.id, name=listing.display_name, phone=listing.phone),
        answer_by=answer_by,
        next_step=words,
        created_at=request.created_at,
        replayed=replayed,
    )


def _language(ctx: ToolContext, args: RequestServiceInput) -> str:
    """The homeowner's language, so the pro can send someone who speaks it: read from their own words (the
    caller's languages settle a tie), else the first the caller asked for that we speak, else English."""
    words = " ".join(text for text in (args.description, args.notes) if text)
    if words:
        return understand(ctx.knowledge, words, ctx.languages)[0]
    return next((code for code in map(supported, ctx.languages) if code), DEFAULT)


async def _replay(
    stored: StoredRequest, fingerprint: str, ctx: ToolContext, partners: Partners
) -> RequestServiceOutput:
    if stored.request_hash != fingerprint or stored.token_salt is None or ctx.idempotency_key is None:
        raise reused_key("service request")
    snapshot = await partners.directory.current()
    listing = snapshot.index.get(stored.partner_id)
    if listing is None:
        raise UnknownPartner(f"The partner of request {stored.id} is no longer in the directory.")
    answer_by = await partners.requests.answer_by(stored.offered_at, stored.zip)
    zone = zone_of(snapshot.places, stored.zip)
    words = next_step_words(listing.display_name, answer_by, zone, stored.created_at, stored.language)
    token = derived_token(stored.token_salt, ctx.idempotency_key)
    return _answer(stored, token, listing, answer_by, words, ctx.base_url, replayed=True)


TOOL = Tool(
    name=TOOL_NAME,
    title="Ask a local pro to come out",
    summary="Send a homeowner's service request to a pro routeByZip named; answers a request number and status link.",
    description=(
        "Use when the homeowner wants a pro to come out and agrees to share their contact details. Send the "
        "`partnerId` routeByZip gave for the door's five-digit `zip`, what is wrong (`issueKey` and/or "
        "`description` in their words), optionally `doorSize`, `contact` (`name`, and a `phone` or an `email`), "
        "`consent.contactShare: true` (400 `consent_required` otherwise), up to three preferred `windows` "
        "(`date` and `partOfDay`: morning, afternoon or evening), `notes` and an inspection `reportId`. The pro "
        "is e-mailed at once; the homeowner gets a confirmation e-mail when an address is given. Returns "
        "`requestId` (a number to quote), `status` `received`, `statusUrl` (the homeowner's private page: "
        "where it stands, cancel), the pro's name and phone, `answerBy` and `nextStep` to read out. A pro that "
        "declines or does not answer by `answerBy` is replaced by the next local pro and the homeowner told. "
        "An unknown partner is 400 `unknown_partner`; one that does not serve the ZIP code, 400 "
        "`partner_not_serving`. Send an `Idempotency-Key` header to make retries safe."
    ),
    input_model=RequestServiceInput,
    output_model=RequestServiceOutput,
    handler=request_service,
    annotations=Annotations(read_only=False, idempotent=False, destructive=False, open_world=True),
    usage_cap=UsageCap("service-requests"),
    questions={"consent": Question(CONSENT_QUESTION, agree="contactShare")},
)
