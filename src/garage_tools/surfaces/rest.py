"""REST: `POST /api/v1/<tool>` with a JSON object in and the tool's value (or an error envelope) out.

The access gate has already settled the route, the caller, the body and the limits; this
module only runs `invoke` and encodes the answer. It is the hot path, so it stays a plain
ASGI callable that writes raw header lists.
"""

from __future__ import annotations

from starlette.types import Send

from garage_tools.errors import ServiceError
from garage_tools.registry import Registry, dump_json, invoke
from garage_tools.services import Services
from garage_tools.surfaces.gate import Admitted
from garage_tools.surfaces.responses import send_error, send_json


class RestSurface:
    def __init__(self, registry: Registry, services: Services) -> None:
        self.registry = registry
        self.services = services

    async def __call__(self, request: Admitted, send: Send) -> None:
        assert request.tool is not None
        assert request.arguments is not None
        context = self.services.tool_context(
            request.caller, request.base_url, request.headers.idempotency_key, request.headers.accept_language
        )
        try:
            body = dump_json(await invoke(self.registry, request.tool.name, request.arguments, context))
        except ServiceError as error:
            await send_error(error, send, request.answer_headers())
        else:
            await send_json(send, 200, body, request.answer_headers())
