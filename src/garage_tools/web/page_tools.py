"""Tool calls made by the service's own pages when JavaScript did not run (plain form posts).

The pages are clients of the REST API: their script calls `POST /api/v1/<tool>`. Without it, a form
posts to the page and the server makes the same calls here, through the same door as REST and MCP:
the caller is identified by `Access.identify` and admitted by `Access.admit_call` (its credential, the
tier's limits and the tool's usage cap in one step, the challenge, which a page of the service itself
never meets), refused with `LimitReached`, and the call runs through `invoke`, which settles the
usage-cap reservation by the outcome (registry.py `UsageCap`). So a photo
sent from the form and one sent to REST come out of the same daily cap, and a refused photo is given
back in both. Nothing here decides a limit itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from garage_tools.access.caller import Caller
from garage_tools.access.policy import Access, Challenge, give_back_unsettled
from garage_tools.access.ratelimit import Decision
from garage_tools.headers import RequestHeaders
from garage_tools.registry import Registry, dump, invoke
from garage_tools.services import Services

#: How leads and logs name calls made by the pages' forms (REST calls from their script say `rest`).
SURFACE = "web"


@dataclass(frozen=True, slots=True)
class Called:
    """A tool's answer as REST would have sent it, and the limits the call left."""

    result: dict[str, Any]
    decision: Decision


class PageTools:
    """Calls tools for a page request, admitted and counted exactly as on REST."""

    def __init__(self, services: Services, access: Access, registry: Registry) -> None:
        self.services = services
        self.access = access
        self.registry = registry

    async def caller(self, request: Request) -> Caller:
        """Who is asking: address, tier and the rate-limit partition, as the REST gate works them out."""
        caller = await self.access.identify(request.scope, RequestHeaders.of(request.scope), SURFACE)
        caller.refuse_bad_credential()
        return caller

    async def call(self, request: Request, caller: Caller, name: str, arguments: dict[str, Any]) -> Called:
        """Run tool `name` for the page: count it, refuse it when over a limit, else invoke it."""
        tool, base_url = self.registry.get(name), self.access.base_url(request.scope)
        decision, counted = await self.access.admit_call(caller, tool.name, Challenge(None, base_url))
        context = self.services.tool_context(
            counted, base_url, accept_language=RequestHeaders.of(request.scope).accept_language
        )
        try:
            result = await invoke(self.registry, name, arguments, context)
        finally:
            await give_back_unsettled(counted)  # settled by invoke; a no-op unless it never got that far
        return Called(dump(result), decision)
