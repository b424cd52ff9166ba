"""`GET /challenge`: what a browser page must do before it calls the tools.

A page on another site (the contractor widget, or a developer's own script) asks once: does a call from my
origin, without a key, need a browser challenge token, and if so, with which site key and client script?
The answer follows the rule the gate applies (`Access.challenges`): the challenge is on and the origin is
neither the service itself nor one the operator admitted (`GARAGE_TOOLS_ALLOWED_ORIGINS`). It reads the
request's own `Origin`, so a page learns only about itself. CORS-open like every REST answer; it varies
with `Origin` and may be cached for five minutes.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from garage_tools.access.challenge import CHALLENGE_FIELD
from garage_tools.access.policy import Access
from garage_tools.headers import RequestHeaders
from garage_tools.surfaces.responses import json_response

CHALLENGE_CACHE = {"Cache-Control": "public, max-age=300", "Vary": "Origin"}


class ChallengeAdvice:
    def __init__(self, access: Access) -> None:
        self.access = access

    async def advise(self, request: Request) -> Response:
        """`{"required", "provider", "siteKey", "scriptUrl", "action", "tokenField"}` for the asking page."""
        origin = RequestHeaders.of(request.scope).origin
        challenge = self.access.challenge
        required = self.access.challenges(origin, self.access.base_url(request.scope))
        body = {
            "required": required,
            "provider": "turnstile" if required else None,
            "siteKey": challenge.site_key if required else None,
            "scriptUrl": challenge.script_url if required else None,
            "action": challenge.action if required else None,
            "tokenField": CHALLENGE_FIELD,
        }
        return json_response(body, headers=CHALLENGE_CACHE)
