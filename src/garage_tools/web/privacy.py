"""`/privacy`: what the service keeps about the people who use it, for how long, and who receives it.

The facts that depend on how this deployment is set up (retention periods, the address for deletion
requests, which model providers see what people send) are read from the settings, so the page stays true.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.oauth import REFRESH_LIFETIME
from garage_tools.settings import Settings
from garage_tools.web.pages import render
from garage_tools.web.signin import LINK_LIFETIME, SESSION_LIFETIME


def _host(url: str | None) -> str | None:
    return urlsplit(url).hostname if url else None


def privacy_facts(settings: Settings) -> dict[str, Any]:
    """The privacy page's context: each fact read from the settings the service runs with."""
    vision = settings.vision_provider or "none"
    return {
        "inspection_days": settings.retention_inspection_days,
        "lead_days": settings.retention_lead_days,
        "mail_days": settings.retention_mail_days,
        "audit_days": settings.retention_audit_days,
        "link_minutes": int(LINK_LIFETIME.total_seconds() // 60),
        "session_days": SESSION_LIFETIME.days,
        "app_days": REFRESH_LIFETIME.days,
        "contact": settings.privacy_contact,
        "language_model_host": _host(settings.llm_base_url) if settings.llm_provider != "none" else None,
        "vision_model_host": _host(settings.vision_base_url) if vision != "none" else None,
    }


def privacy_routes(settings: Settings) -> list[BaseRoute]:
    """The privacy page's route, for `create_app`'s route list."""
    facts = privacy_facts(settings)

    async def privacy_page(request: Request) -> Response:
        return render(request, "privacy.html", facts)

    return [Route("/privacy", privacy_page, methods=["GET"])]
