"""What `/privacy` states that depends on how this deployment is set up: retention periods, the address for
deletion requests, and which model providers (if any) see what people send."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from garage_tools.access.sessions import LINK_LIFETIME, SESSION_LIFETIME
from garage_tools.settings import Settings


def _host(url: str | None) -> str | None:
    return urlsplit(url).hostname if url else None


def privacy_facts(settings: Settings) -> dict[str, Any]:
    """The privacy page's context: each fact read from the settings the service runs with."""
    vision = settings.vision_provider or "none"
    return {
        "inspection_days": settings.retention_inspection_days,
        "lead_days": settings.retention_lead_days,
        "mail_days": settings.retention_mail_days,
        "link_minutes": int(LINK_LIFETIME.total_seconds() // 60),
        "session_days": SESSION_LIFETIME.days,
        "contact": settings.privacy_contact,
        "language_model_host": _host(settings.llm_base_url) if settings.llm_provider != "none" else None,
        "vision_model_host": _host(settings.vision_base_url) if vision != "none" else None,
    }
