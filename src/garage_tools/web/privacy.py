"""`/privacy`: what the service keeps about the people who use it, and for how long."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools.web.pages import render


async def privacy_page(request: Request) -> Response:
    return render(request, "privacy.html")


def privacy_routes() -> list[BaseRoute]:
    """The privacy page's route, for `create_app`'s route list."""
    return [Route("/privacy", privacy_page, methods=["GET"])]
