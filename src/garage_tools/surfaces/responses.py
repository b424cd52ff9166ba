"""JSON responses and the error envelope on HTTP."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

from garage_tools.errors import ServiceError

JSON = "application/json"


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(data), status_code=status, headers=headers, media_type=JSON)


def error_response(error: ServiceError) -> Response:
    return json_response(error.envelope(), status=error.status, headers=error.headers or None)
