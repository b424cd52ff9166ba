"""The page side of a magic-link sign-in, shared by every audience's pages (the portal, the partner console).

`web/signin.py` decides who is signed in; this module is how that reaches a browser: the session cookie
(scoped to the audience's path, so the portal's and the console's never meet), the forms before and after
sign-in (origin check plus a token), the confirm step (GET shows a button, POST spends the link) and
signing out. A refusal or a service error becomes a page of its own with its status, never a JSON envelope.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from garage_tools.access.policy import Access
from garage_tools.access.tokens import tokens_match
from garage_tools.errors import ServiceError
from garage_tools.headers import RequestHeaders
from garage_tools.languages import N_
from garage_tools.web.forms import FORGED, MAX_FORM_FIELDS, DoubleSubmit, Refused, check_origin, read_form
from garage_tools.web.pages import render
from garage_tools.web.signin import SESSION_LIFETIME, Session, SignedIn, SignIn

NO_STORE = {"Cache-Control": "no-store"}
#: Marked for the catalog: a message page translates what it shows (`partners/message.html`).
SIGNED_OUT = N_("You are signed out (the session ended or expired). Sign in again to continue.")

Owner = TypeVar("Owner")
Handler = Callable[[Owner, Request], Awaitable[Response]]


def as_pages(message_template: str) -> Callable[[Handler[Owner]], Handler[Owner]]:
    """A decorator for page handlers: refusals and service errors answer `message_template` with their status."""

    def decorate(handler: Handler[Owner]) -> Handler[Owner]:
        @functools.wraps(handler)
        async def answer(owner: Owner, request: Request) -> Response:
            try:
                return await handler(owner, request)
            except Refused as refused:
                context = {"title": N_("Not done"), "message": refused.message}
                return render(request, message_template, context, status=refused.status, headers=NO_STORE)
            except ServiceError as error:
                context = {"title": N_("Please try again shortly"), "message": error.message}
                headers = {**NO_STORE, **error.headers}
                return render(request, message_template, context, status=error.status, headers=headers)

        return answer

    return decorate


class SignInPages:
    """One audience's cookies, forms and confirm step. `home` is both the cookie path and where sign-out lands."""

    def __init__(
        self,
        sign_in: SignIn,
        access: Access,
        *,
        home: str,
        session_cookie: str,
        form_cookie: str,
        confirm_path: str,
        max_form_fields: int = MAX_FORM_FIELDS,
    ) -> None:
        self.sign_in = sign_in
        self.access = access
        self.home = home
        self.session_cookie = session_cookie
        self.form_token = DoubleSubmit(form_cookie, home)  # the token of a form sent before sign-in
        self.confirm_path = confirm_path
        self.max_form_fields = max_form_fields

    # -- who is here ----------------------------------------------------------------------------

    async def session(self, request: Request) -> Session | None:
        return await self.sign_in.session(self._cookies(request).get(self.session_cookie))

    def session_id(self, request: Request) -> str:
        """The session cookie as sent ("" without one): what a per-session slot is keyed by."""
        return self._cookies(request).get(self.session_cookie, "")

    def base_url(self, request: Request) -> str:
        return self.access.base_url(request.scope)

    # -- forms ----------------------------------------------------------------------------------

    async def anonymous_form(self, request: Request) -> dict[str, str]:
        """A form posted before sign-in: it must repeat the random token of the browser's form cookie."""
        form = await self._read(request)
        self.form_token.check(request, form.get("csrf"))
        return form

    async def signed_in_form(self, request: Request) -> tuple[Session, dict[str, str]]:
        """A form posted by a signed-in person: it must carry the session's own token."""
        form = await self._read(request)
        session = await self.session(request)
        if session is None:
            raise Refused(SIGNED_OUT)
        if not tokens_match(session.csrf_token, form.get("csrf")):
            raise Refused(FORGED)
        return session, form

    def with_form_token(
        self,
        request: Request,
        template: str,
        context: dict[str, Any],
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> Response:
        """Render a page with an anonymous form, giving the browser a form cookie if it has none."""
        token, fresh = self.form_token.token(request)
        response = render(request, template, {**context, "csrf": token}, status=status, headers=headers)
        if fresh:
            self.form_token.set_cookie(response, token, secure=self._secure(request))
        return response

    # -- the link and the session ---------------------------------------------------------------

    async def confirm(
        self,
        request: Request,
        template: str,
        on_sign_in: Callable[[SignedIn], Awaitable[None]] | None = None,
    ) -> Response:
        """GET shows a button (mail scanners fetch links; looking must not sign in); POST spends the link."""
        token = request.path_params["token"]
        headers = {"Referrer-Policy": "no-referrer", **NO_STORE}
        if request.method == "GET":
            usable = await self.sign_in.link_usable(token)
            status = 200 if usable else 400
            return self.with_form_token(request, template, {"usable": usable}, status=status, headers=headers)
        await self.anonymous_form(request)
        signed_in = await self.sign_in.sign_in(token, self._cookies(request).get(self.session_cookie))
        if signed_in is None:
            return self.with_form_token(request, template, {"usable": False}, status=400, headers=headers)
        if on_sign_in is not None:
            await on_sign_in(signed_in)
        response = RedirectResponse(signed_in.landing, status_code=303, headers=headers)
        response.set_cookie(
            self.session_cookie,
            signed_in.session_id,
            max_age=int(SESSION_LIFETIME.total_seconds()),
            **self._cookie_options(request),
        )
        self.form_token.delete_cookie(response, secure=self._secure(request))
        return response

    async def sign_out(self, request: Request) -> Response:
        await self.signed_in_form(request)
        await self.sign_in.sign_out(self.session_id(request))
        response = RedirectResponse(self.home, status_code=303)
        response.delete_cookie(self.session_cookie, **self._cookie_options(request))
        return response

    # -- helpers --------------------------------------------------------------------------------

    async def _read(self, request: Request) -> dict[str, str]:
        # A link's token is not written into the refusal's log line.
        path = self.confirm_path + "…" if request.url.path.startswith(self.confirm_path) else request.url.path
        check_origin(request, self.base_url(request), path)
        return await read_form(request, self.access, max_fields=self.max_form_fields)

    def _secure(self, request: Request) -> bool:
        return request.url.scheme == "https" or self.base_url(request).startswith("https://")

    def _cookie_options(self, request: Request) -> dict[str, Any]:
        return {"path": self.home, "secure": self._secure(request), "httponly": True, "samesite": "lax"}

    @staticmethod
    def _cookies(request: Request) -> dict[str, str]:
        return RequestHeaders.of(request.scope).cookies()
