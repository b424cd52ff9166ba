"""The developer portal's pages at `/developers`: landing, sign-in, the key dashboard, connecting apps.

Handlers only translate between forms and the services: sign-in and sessions live in `web/signin.py`,
their cookies, forms and confirm step in `web/signin_pages.py`, what a key name may be in `forms.py`,
keys in `access.keys`. Cookies are scoped to `/developers`, so the API endpoints never see them.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.oauth import CONSENT_PATH
from garage_tools.access.policy import Access
from garage_tools.access.redis_client import RedisClient
from garage_tools.key_format import PREFIX
from garage_tools.mail.transports import writes_files
from garage_tools.observability.redaction import redact_paths_in_access_log
from garage_tools.registry import Registry
from garage_tools.services import Services
from garage_tools.store.portal import PortalRepository
from garage_tools.web.pages import render
from garage_tools.web.portal import connect
from garage_tools.web.portal.forms import MAX_KEY_NAME, clean_key_name
from garage_tools.web.portal.mail import magic_link_mail
from garage_tools.web.portal.reveal import NewKey, NewKeySlots
from garage_tools.web.portal.tiers import describe_tiers
from garage_tools.web.portal.usage_chart import usage_chart
from garage_tools.web.signin import LINK_LIFETIME, Session, SignIn, normalise_email
from garage_tools.web.signin_pages import NO_STORE, SignInPages, as_pages

log = logging.getLogger(__name__)

HOME = "/developers"
SESSION_COOKIE = "gt_session"
CONFIRM_PATH = "/developers/confirm/"
MAX_ACTIVE_KEYS = 10
USAGE_DAYS = 30  # the dashboard's chart: each active key's calls per day
_KEY_ID = re.compile(r"^[A-Za-z0-9]{1,16}$")


_page = as_pages("portal/message.html")


class Portal:
    def __init__(self, services: Services, access: Access, registry: Registry) -> None:
        self.keys = services.keys
        self.oauth = services.oauth
        self.usage = services.usage
        self.access = access
        self.sign_in = SignIn(
            PortalRepository(services.database),
            services.limiter,
            services.outbox,
            limits=access.limits,
            background=services.background,
        )
        self.pages = SignInPages(
            self.sign_in,
            access,
            home=HOME,
            session_cookie=SESSION_COOKIE,
            form_cookie="gt_form",
            confirm_path=CONFIRM_PATH,
        )
        self.tiers = describe_tiers(access.limits, registry)
        settings = services.settings
        redis = RedisClient(settings.redis_url) if settings.redis_url else None
        self.new_keys = NewKeySlots(redis, settings.redis_key_prefix)
        self.mail_to_files = writes_files(settings)  # no mail server: the sent page tells the operator where to look

    # -- pages ------------------------------------------------------------------------------------

    @_page
    async def landing(self, request: Request) -> Response:
        context = {
            "developer": await self._developer(request),
            "tiers": self.tiers,
            "base_url": self.pages.base_url(request),
        }
        return self.pages.with_form_token(request, "portal/landing.html", context)

    @_page
    async def sign_in_page(self, request: Request) -> Response:
        """The sign-in form; `?next=` names a portal page to come back to once signed in (kept only if local)."""
        next_page = self.sign_in.audience.return_path(request.query_params.get("next"))
        return self.pages.with_form_token(request, "portal/sign_in.html", {"next": next_page})

    @_page
    async def request_link(self, request: Request) -> Response:
        form = await self.pages.anonymous_form(request)
        email = normalise_email(form.get("email", ""))
        if email is None:
            # What was typed goes back into the field, less what a page cannot show (NUL, bidi controls, ...).
            typed = "".join(c for c in form.get("email", "") if c.isprintable())
            context = {
                "error": "Enter an e-mail address, such as dev@example.com.",
                "email": typed,
                "next": self.sign_in.audience.return_path(form.get("next")),
            }
            return self.pages.with_form_token(request, "portal/sign_in.html", context, status=400)
        confirm = f"{self.pages.base_url(request)}{CONFIRM_PATH}"
        self.sign_in.request_link_later(
            email,
            self.access.client_ip(request.scope),
            lambda token: magic_link_mail(email, confirm + token),
            return_to=form.get("next"),
        )
        # The same answer whether the address is known, new or throttled.
        return RedirectResponse("/developers/sign-in/sent", status_code=303)

    @_page
    async def link_sent(self, request: Request) -> Response:
        minutes = int(LINK_LIFETIME.total_seconds() // 60)
        return render(request, "portal/sent.html", {"minutes": minutes, "mail_to_files": self.mail_to_files})

    @_page
    async def confirm(self, request: Request) -> Response:
        return await self.pages.confirm(request, "portal/confirm.html")

    @_page
    async def dashboard(self, request: Request) -> Response:
        developer = await self._developer(request)
        if developer is None:
            return RedirectResponse("/developers/sign-in", status_code=303)
        new_key = await self.new_keys.take(self.pages.session_id(request))
        return await self._dashboard(
            request,
            developer,
            new_key=new_key,
            revoked_id=request.query_params.get("revoked", ""),
            disconnected=bool(request.query_params.get("disconnected")),
        )

    @_page
    async def create_key(self, request: Request) -> Response:
        developer, form = await self.pages.signed_in_form(request)
        name = clean_key_name(form.get("name", ""))
        if name is None:
            error = f"Give the key a name of 1 to {MAX_KEY_NAME} characters, such as “laptop” or “ci”."
            return await self._dashboard(request, developer, error=error, status=400)
        active = [key for key in await self.keys.repository.list(developer.email) if key.active]
        if len(active) >= MAX_ACTIVE_KEYS:
            error = f"You have {len(active)} active keys, the most allowed. Revoke one you no longer use first."
            return await self._dashboard(request, developer, error=error, status=409)
        issued = await self.keys.issue(developer.email, name)
        log.info("portal: key %s created by a signed-in developer", issued.record.id)
        # Shown by the page this redirects to, once: reloading that page sends no form and makes no key.
        new_key = NewKey(issued.record.id, issued.record.name, issued.plaintext)
        await self.new_keys.put(self.pages.session_id(request), new_key)
        return RedirectResponse("/developers/dashboard#new-key-title", status_code=303)

    @_page
    async def revoke_key(self, request: Request) -> Response:
        developer, _ = await self.pages.signed_in_form(request)
        key_id = request.path_params["key_id"]
        record = await self.keys.revoke(key_id, owner_email=developer.email) if _KEY_ID.match(key_id) else None
        if record is None:
            return await self._dashboard(request, developer, error="There is no such key among yours.", status=404)
        return RedirectResponse(f"/developers/dashboard?revoked={record.id}", status_code=303)

    @_page
    async def sign_out(self, request: Request) -> Response:
        return await self.pages.sign_out(request)

    # -- connecting apps (OAuth: the protocol is surfaces/oauth.py) ---------------------------------

    @_page
    async def consent(self, request: Request) -> Response:
        """The person's part of an authorization: sign in first if needed, then Allow or Deny (POST)."""
        grant = await self.oauth.pending(request.path_params["grant_id"])
        if grant is None:
            return _gone(request)
        if request.method == "GET":
            developer = await self._developer(request)
            if developer is None:
                return RedirectResponse(f"/developers/sign-in?next={request.url.path}", status_code=303)
            return connect.consent_page(request, grant, developer)
        developer, form = await self.pages.signed_in_form(request)
        issuer = self.pages.base_url(request)
        if form.get("decision") == "allow":
            target = await self.oauth.allow(grant, developer.email, issuer)
        else:
            target = await self.oauth.deny(grant, issuer)
        if target is None:
            return _gone(request)
        return RedirectResponse(target, status_code=303, headers={"Referrer-Policy": "no-referrer", **NO_STORE})

    @_page
    async def disconnect(self, request: Request) -> Response:
        developer, _ = await self.pages.signed_in_form(request)
        record = await self.oauth.revoke(request.path_params["grant_id"], email=developer.email)
        if record is None:
            return await self._dashboard(request, developer, error="There is no such app among yours.", status=404)
        return RedirectResponse("/developers/dashboard?disconnected=1#apps", status_code=303)

    # -- helpers ----------------------------------------------------------------------------------

    async def _dashboard(
        self,
        request: Request,
        developer: Session,
        *,
        new_key: NewKey | None = None,
        revoked_id: str = "",
        disconnected: bool = False,
        error: str | None = None,
        status: int = 200,
    ) -> Response:
        keys = list(reversed(await self.keys.repository.list(developer.email)))  # newest first
        revoked = next((key for key in keys if key.id == revoked_id and not key.active), None)
        notice = None
        if revoked is not None:
            notice = f"The key “{revoked.name}” ({PREFIX}{revoked.id}…) is revoked: it no longer works anywhere."
        elif disconnected:
            notice = connect.DISCONNECTED
        limits = self.access.limits
        apps = await self.oauth.connected(developer.email)
        days = await self.usage.daily([key.id for key in keys if key.active], USAGE_DAYS)
        context: dict[str, Any] = {
            "developer": developer,
            "keys": keys,
            "plans": {key.id: limits.plan(key.plan) for key in keys} | {app.id: limits.plan(app.plan) for app in apps},
            "charts": {key_id: usage_chart(counts) for key_id, counts in days.items()},
            "usage_days": USAGE_DAYS,
            "active": sum(key.active for key in keys),
            "max_active": MAX_ACTIVE_KEYS,
            "new_key": new_key,
            "apps": apps,
            "notice": notice,
            "error": error,
            "base_url": self.pages.base_url(request),
        }
        return render(request, "portal/dashboard.html", context, status=status, headers=NO_STORE)

    async def _developer(self, request: Request) -> Session | None:
        return await self.pages.session(request)


def _gone(request: Request) -> Response:
    context = {"title": "This request has ended", "message": connect.GONE}
    return render(request, "portal/message.html", context, status=400, headers=NO_STORE)


def portal_routes(services: Services, access: Access, registry: Registry) -> list[BaseRoute]:
    """The routes of the developer portal, for `create_app`'s route list."""
    redact_paths_in_access_log(CONFIRM_PATH)
    portal = Portal(services, access, registry)
    return [
        Route("/developers", portal.landing, methods=["GET"]),
        Route("/developers/sign-in", portal.sign_in_page, methods=["GET"]),
        Route("/developers/sign-in", portal.request_link, methods=["POST"]),
        Route("/developers/sign-in/sent", portal.link_sent, methods=["GET"]),
        Route(CONFIRM_PATH + "{token}", portal.confirm, methods=["GET", "POST"]),
        Route("/developers/dashboard", portal.dashboard, methods=["GET"]),
        Route("/developers/keys", portal.create_key, methods=["POST"]),
        Route("/developers/keys/{key_id}/revoke", portal.revoke_key, methods=["POST"]),
        Route("/developers/sign-out", portal.sign_out, methods=["POST"]),
        Route(CONSENT_PATH + "{grant_id}", portal.consent, methods=["GET", "POST"]),
        Route("/developers/apps/{grant_id}/revoke", portal.disconnect, methods=["POST"]),
    ]
