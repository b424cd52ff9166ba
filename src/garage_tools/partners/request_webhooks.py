"""Service requests and consented inspection leads as webhook events: what each event's `data` holds.

The requests' store calls `request_events` (its one hook) in the transaction of every change, and the
events are queued there (`store/webhooks.py` `enqueue_event`): a request and its deliveries stand or fall
together. The partner a request is offered to gets `request.created` when it arrives (also when it was
passed on from another partner), then `request.updated` or `request.cancelled`; a partner whose
unanswered request was passed on gets one last `request.updated` with the status `reassigned`, without
the homeowner's details. An inspection whose homeowner agreed that the pro may contact them is
`lead.inspection`, queued in the transaction that stores the report and its lead. The shapes are documented
in docs/api.md (Webhook events).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.partners.notices import report_link
from garage_tools.store.partners import Lead
from garage_tools.store.service_requests import CREATED, UPDATED, RequestEvent, StoredRequest
from garage_tools.store.webhooks import enqueue_event

REASSIGNED = "reassigned"
LEAD_INSPECTION = "lead.inspection"


def _iso(moment: Any) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None


def request_data(request: StoredRequest) -> dict[str, Any]:
    """A request as its partner's software receives it."""
    arrival = None
    if request.arrival_from is not None and request.arrival_until is not None:
        arrival = {"from": _iso(request.arrival_from), "until": _iso(request.arrival_until)}
    return {
        "requestId": request.id,
        "status": request.status.value,
        "zip": request.zip,
        "issueKey": request.issue,
        "description": request.description,
        "doorSize": request.door_size,
        "contact": {"name": request.contact_name, "phone": request.contact_phone, "email": request.contact_email},
        "windows": [w.as_json() for w in request.windows],
        "notes": request.notes,
        "reportId": request.report_id,
        "language": request.language,
        "arrivalWindow": arrival,
        "reason": request.reason,
        "receivedAt": _iso(request.offered_at),
        "createdAt": _iso(request.created_at),
        "updatedAt": _iso(request.updated_at),
        "firstResponseAt": _iso(request.first_response_at),
    }


async def request_events(session: AsyncSession, event: RequestEvent) -> None:
    """The requests' hook: queue the event for the partner's endpoints (see the module docstring)."""
    request = event.request
    moved = event.previous_partner_id is not None and event.previous_partner_id != request.partner_id
    kind = CREATED if moved else event.kind
    data = {**request_data(request), "changedBy": event.by.value}
    if event.previous_status is not None and not moved:
        data["previousStatus"] = event.previous_status.value
    await enqueue_event(session, request.partner_id, kind, data, event.at)
    if moved and event.previous_partner_id is not None and event.detail.get("outcome") == "no_answer":
        gone = {"requestId": request.id, "status": REASSIGNED, "changedBy": event.by.value}
        await enqueue_event(session, event.previous_partner_id, UPDATED, gone, event.at)


async def inspection_lead_event(session: AsyncSession, lead: Lead) -> bool:
    """Queue `lead.inspection` for the lead's partner when the homeowner shared their details (a lead without
    them is demand, not a lead, and is never sent); whether one was queued."""
    if not (lead.covered and lead.partner_id and lead.contact_email and lead.report_id):
        return False
    data = {
        "reportId": lead.report_id,
        "reportUrl": report_link(lead.base_url, lead.report_id),
        "zip": lead.zip,
        "issueKey": lead.issue,
        "doorSize": lead.door_size,
        "heat": lead.lead_heat,
        "contact": {"name": lead.contact_name, "email": lead.contact_email},
        "createdAt": _iso(lead.created_at),
    }
    await enqueue_event(session, lead.partner_id, LEAD_INSPECTION, data, lead.created_at)
    return True
