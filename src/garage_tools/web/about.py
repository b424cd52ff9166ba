"""`/about`: who runs this service, how it works out its answers, and how to reach the people behind it.

The contact address and phone come from the settings (`GARAGE_TOOLS_CONTACT_EMAIL`, `_CONTACT_PHONE`); the
app keeps them on its state, so the footer of every homeowner page shows the same contact as this page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools.settings import Settings
from garage_tools.web.pages import render


@dataclass(frozen=True, slots=True)
class Contact:
    """How people reach the operator: either part may be missing."""

    email: str | None
    phone: str | None

    @classmethod
    def of(cls, settings: Settings) -> Contact:
        return cls(settings.contact_email, settings.contact_phone)

    @property
    def tel(self) -> str | None:
        """The phone as a `tel:` target: digits, with a leading + kept (US numbers without one get +1)."""
        if not self.phone:
            return None
        digits = re.sub(r"[^0-9]", "", self.phone)
        if self.phone.strip().startswith("+"):
            return f"tel:+{digits}"
        return f"tel:+1{digits}" if len(digits) == 10 else f"tel:{digits}"

    def __bool__(self) -> bool:
        return bool(self.email or self.phone)


def about_routes(settings: Settings) -> list[BaseRoute]:
    """The about page's route, for `create_app`'s route list."""

    async def about_page(request: Request) -> Response:
        return render(request, "about.html", {"privacy_contact": settings.privacy_contact})

    return [Route("/about", about_page, methods=["GET"])]
