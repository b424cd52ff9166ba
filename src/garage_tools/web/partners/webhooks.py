"""The console's Webhooks page at `/partners/webhooks`: a partner's endpoints, their delivery log, a test event.

Handlers only translate: who is signed in and their forms come from the `Console` (the same session, token
and origin rules as every console form), every read and change from `store/webhooks.py`, which scopes each
query to the signed-in partner, and the address guard from `mail/webhooks.py`. A new endpoint's signing
secret is shown once, in the answer to the form that added it (never stored readable, never shown again).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from garage_tools.languages import N_, Phrase
from garage_tools.mail.webhooks import EndpointRefused, EndpointRules, check_endpoint_url
from garage_tools.store.webhooks import MAX_ENDPOINTS, Delivery, NewEndpoint, WebhookRepository
from garage_tools.web.forms import Refused
from garage_tools.web.pages import render
from garage_tools.web.partners.console_pages import Console, ConsolePage, SignedInPartner, console_page
from garage_tools.web.signin_pages import NO_STORE

PATH = "/partners/webhooks"
#: The page's words, marked for the catalog and translated where the page shows them (the event names a
#: payload carries stay as they are: they are an interface).
EVENTS = {
    "request.created": N_("New request"),
    "request.updated": N_("Request changed"),
    "request.cancelled": N_("Request cancelled"),
    "lead.inspection": N_("Inspection lead"),
    "endpoint.test": N_("Test event"),
}
OUTCOMES = {
    "sent": N_("Delivered"),
    "pending": N_("Waiting to try again"),
    "sending": N_("Sending"),
    "dead": N_("Gave up"),
}
NOTICES = {
    "removed": N_("The address is removed: nothing more is sent to it."),
    "test": N_("A test event is on its way: it shows in the log below within a few seconds."),
    "enabled": N_("The address is on again: new events are sent to it."),
}
NOT_YOURS = N_("There is no such address among yours.")
SAID_SHOWN = 160  # characters of an answer shown on the page (the log keeps 500)

_page = console_page


class WebhookPages(ConsolePage):
    notices = NOTICES

    def __init__(self, console: Console, webhooks: WebhookRepository, rules: EndpointRules) -> None:
        super().__init__(console)
        self.webhooks = webhooks
        self.rules = rules

    @_page
    async def add(self, request: Request) -> Response:
        me, form = await self.console.signed_in_form(request)
        url = form.get("url", "").strip()
        try:
            await check_endpoint_url(url, self.rules)
        except EndpointRefused as refused:
            problem = refused.reason  # said in the page's language
            return await self._page(request, me, url=url, problem=problem, status=400)
        added = await self.webhooks.add(me.id, url, me.session.email)
        if added is None:
            problem = Phrase(N_("You have {count} addresses already: remove one first."), count=MAX_ENDPOINTS)
            return await self._page(request, me, url=url, problem=problem, status=400)
        return await self._page(request, me, added=added)

    @_page
    async def remove(self, request: Request) -> Response:
        me, _ = await self.console.signed_in_form(request)
        if not await self.webhooks.remove(me.id, request.path_params["endpoint_id"], me.session.email):
            raise Refused(NOT_YOURS, status=404)
        return RedirectResponse(f"{PATH}?done=removed", status_code=303)

    @_page
    async def test(self, request: Request) -> Response:
        me, _ = await self.console.signed_in_form(request)
        if not await self.webhooks.send_test(me.id, request.path_params["endpoint_id"], me.session.email):
            raise Refused(NOT_YOURS, status=404)
        return RedirectResponse(f"{PATH}?done=test#log", status_code=303)

    @_page
    async def enable(self, request: Request) -> Response:
        me, _ = await self.console.signed_in_form(request)
        if not await self.webhooks.enable(me.id, request.path_params["endpoint_id"], me.session.email):
            raise Refused(NOT_YOURS, status=404)
        return RedirectResponse(f"{PATH}?done=enabled", status_code=303)

    async def _page(
        self,
        request: Request,
        me: SignedInPartner,
        *,
        added: NewEndpoint | None = None,
        url: str = "",
        problem: str | None = None,
        notice: str | None = None,
        status: int = 200,
    ) -> Response:
        context: dict[str, Any] = {
            "me": me,
            "endpoints": await self.webhooks.endpoints(me.id),
            "deliveries": [_delivery_view(d) for d in await self.webhooks.deliveries(me.id)],
            "added": added,
            "url": "".join(c for c in url if c.isprintable())[:2000],
            "problem": problem,
            "notice": notice,
            "max_endpoints": MAX_ENDPOINTS,
            "events": EVENTS,
        }
        return render(request, "partners/webhooks.html", context, status=status, headers=NO_STORE)


def _delivery_view(delivery: Delivery) -> dict[str, Any]:
    answer = f"HTTP {delivery.last_status}" if delivery.last_status is not None else None
    return {
        "delivery": delivery,
        "event": EVENTS.get(delivery.event, delivery.event),
        "outcome": OUTCOMES.get(delivery.status, delivery.status),
        "when": delivery.created_at,  # the page writes moments in its language (`partners/_say.html` `moment`)
        "tried": delivery.last_attempt_at,
        "answer": answer,
        "said": _shortened(delivery.last_response or (delivery.last_error if delivery.last_status is None else "")),
    }


def _shortened(text: str | None, limit: int = SAID_SHOWN) -> str | None:
    return text if not text or len(text) <= limit else text[: limit - 1] + "…"


def webhook_routes(console: Console, webhooks: WebhookRepository, rules: EndpointRules) -> list[BaseRoute]:
    """The Webhooks page's routes, for the console's route list."""
    pages = WebhookPages(console, webhooks, rules)
    return [
        Route(PATH, pages.show, methods=["GET"]),
        Route(PATH, pages.add, methods=["POST"]),
        Route(f"{PATH}/{{endpoint_id}}/remove", pages.remove, methods=["POST"]),
        Route(f"{PATH}/{{endpoint_id}}/test", pages.test, methods=["POST"]),
        Route(f"{PATH}/{{endpoint_id}}/enable", pages.enable, methods=["POST"]),
    ]
