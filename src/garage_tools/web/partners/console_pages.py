"""What the console's own pages (the request inbox, Webhooks) share: who is signed in, and showing the page.

Each page is a `ConsolePage`: its `show` sends anyone not signed in back to the sign-in page and otherwise draws
the page with the notice its last change named (`?done=`), and its handlers answer refusals and service errors
on the console's message page (`as_pages`). Who is signed in and the forms come from the `Console`
(`endpoints.Console`), with the same session, token and origin rules as every console form.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import ClassVar, Protocol

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from garage_tools.knowledge.directory import PartnerRecord
from garage_tools.web.signin import Session
from garage_tools.web.signin_pages import as_pages

SIGN_IN = "/partners"

console_page = as_pages("partners/message.html")


class SignedInPartner(Protocol):
    """Who is signed in to the console (`endpoints.SignedInPartner`)."""

    @property
    def id(self) -> str: ...

    @property
    def partner(self) -> PartnerRecord: ...

    @property
    def session(self) -> Session: ...


class Console(Protocol):
    """What these pages need of the console (`endpoints.Console`): its signed-in partner, and its forms."""

    async def signed_in(self, request: Request) -> SignedInPartner | None: ...

    async def signed_in_form(self, request: Request) -> tuple[SignedInPartner, dict[str, str]]: ...


class ConsolePage:
    """A console page: `show` for the signed-in partner, `_page` (the subclass's) to draw it."""

    #: What the page says after a change, by the `done` its redirect names.
    notices: ClassVar[Mapping[str, str]] = {}
    #: Draws the page for `me` (request, me, then keywords: `notice` and the page's own).
    _page: Callable[..., Awaitable[Response]]

    def __init__(self, console: Console) -> None:
        self.console = console

    @console_page
    async def show(self, request: Request) -> Response:
        me = await self.console.signed_in(request)
        if me is None:
            return RedirectResponse(SIGN_IN, status_code=303)
        return await self._page(request, me, notice=self.notices.get(request.query_params.get("done", "")))
