"""OpenAPI 3.1.0 for the REST surface, generated from the registry (never written by hand).

The document is also imported as ChatGPT GPT Actions, which takes at most 300 characters for an operation's
summary or description and 700 for a parameter's: an operation carries the tool's one-line `summary` (the
long `description` is for MCP and /ai), and read-only tools say `x-openai-isConsequential: false` so the
assistant does not ask the user to confirm every call.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from garage_tools import __version__
from garage_tools.access.challenge import CHALLENGE_FIELD, MAX_TOKEN_LENGTH
from garage_tools.errors import ErrorEnvelope
from garage_tools.key_format import EXAMPLE, PREFIX
from garage_tools.models import TEXT_PATTERN
from garage_tools.registry import AuthPolicy, Registry, Tool
from garage_tools.surfaces.tool_docs import every_tool

API_VERSION = "1.0.0"
REF = "#/components/schemas/{model}"

#: GPT Actions' limit on an operation's `summary` and `description` (tests/e2e/test_docs_pages.py checks all limits).
OPERATION_TEXT_LIMIT = 300

ERROR_RESPONSES: dict[str, str] = {
    "400": "Invalid JSON, a body that is not an object, or invalid arguments (`invalid_json`, `invalid_body`, "
    "`invalid_arguments`), or a tool execution error (`tool_error`).",
    "401": "Missing key for a tool that requires one (`auth_required`), or an invalid or revoked key (`invalid_key`).",
    "403": "A browser page on another site called without a key and without a valid `challengeToken` "
    "(`challenge_required`, `challenge_failed`).",
    "408": "The request headers or body arrived too slowly (`request_timeout`); the connection is closed.",
    "413": "The request body is larger than this tool accepts (`payload_too_large`).",
    "415": "The body is not sent as JSON (`unsupported_media_type`).",
    "429": "Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds.",
    "431": "The request line and headers are too large (`request_headers_too_large`); the connection is closed.",
    "500": "An unexpected server fault (`internal_error`); the message carries an incident id.",
    "502": "The model's reply was unusable (`provider_bad_reply`); retry once.",
    "503": "A dependency (key store, challenge verifier, model provider) is not answering or the server is at "
    "capacity (`service_unavailable`, `provider_unavailable`); retry after `Retry-After` seconds.",
}

#: Response headers, as OpenAPI header objects (draft-ietf-httpapi-ratelimit-headers for the first two).
HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit": {
        "description": 'What is left of each window, e.g. `"public-minute";r=59;t=60` (r: calls left, t: seconds '
        "until the window resets).",
        "schema": {"type": "string"},
    },
    "RateLimit-Policy": {
        "description": 'The windows that apply to this call, e.g. `"public-minute";q=60;w=60` (q: calls allowed, '
        "w: window in seconds).",
        "schema": {"type": "string"},
    },
    "Retry-After": {
        "description": "Seconds to wait before calling again.",
        "schema": {"type": "integer", "minimum": 0},
    },
}
HEADERS_BY_STATUS: dict[str, tuple[str, ...]] = {
    "200": ("RateLimit", "RateLimit-Policy"),
    "429": ("RateLimit", "RateLimit-Policy", "Retry-After"),
    "503": ("Retry-After",),
}

CHALLENGE_PROPERTY = {
    "anyOf": [{"type": "string", "maxLength": MAX_TOKEN_LENGTH, "pattern": TEXT_PATTERN}, {"type": "null"}],
    "description": (
        "Browser challenge token. Required for browser callers from origins other than this service's own; "
        "server-to-server calls (no Origin header) and callers with an API key leave it out."
    ),
}


def openapi_document(registry: Registry, base_url: str) -> dict[str, Any]:
    """The whole OpenAPI document for `registry`, with `base_url` as the absolute server URL."""
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [(ErrorEnvelope, "serialization")]
    for tool in registry:
        models += [(tool.input_model, "validation"), (tool.output_model, "serialization")]
    refs, definitions = models_json_schema(models, by_alias=True, ref_template=REF)
    schemas: dict[str, Any] = definitions.get("$defs", {})
    error_ref = refs[(ErrorEnvelope, "serialization")]

    paths: dict[str, Any] = {}
    for tool in registry:
        input_ref = refs[(tool.input_model, "validation")]
        body_schema = schemas[_ref_name(input_ref)]
        body_schema.setdefault("properties", {})[CHALLENGE_FIELD] = CHALLENGE_PROPERTY
        security: list[dict[str, list[str]]] = (
            [{}, {"bearerAuth": []}] if tool.auth is AuthPolicy.OPTIONAL else [{"bearerAuth": []}]
        )
        responses: dict[str, Any] = {
            "200": {
                "description": "The tool's result (the value itself, no envelope).",
                "content": {"application/json": {"schema": refs[(tool.output_model, "serialization")]}},
            }
        }
        responses["200"]["headers"] = _header_refs("200")
        # The error responses are the same for every tool: defined once, referenced by each operation.
        responses |= {status: {"$ref": f"#/components/responses/{_error_name(status)}"} for status in ERROR_RESPONSES}
        example = example_arguments(tool.input_model.model_json_schema(by_alias=True))
        operation: dict[str, Any] = {
            "operationId": tool.name,
            "summary": tool.title,  # the short label; the one-line summary leads the description
            "description": _short_description(tool, base_url),
            "tags": ["tools"],
            "security": security,
            "requestBody": {
                "required": True,
                # An explicit example: generated ones would show every field, `"challengeToken": "string"` too.
                "content": {"application/json": {"schema": input_ref, "example": example}},
            },
            "responses": responses,
        }
        if tool.annotations.read_only:
            operation["x-openai-isConsequential"] = False
        paths[f"/api/v1/{tool.name}"] = {"post": operation}

    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Garage Door Tools API",
            "version": API_VERSION,
            "summary": "Garage-door tools for homeowners and the agents helping them.",
            "description": (
                f"The tools: {every_tool(registry)} "
                "Every tool is `POST /api/v1/<tool>` with a JSON object body; a success returns the tool's value "
                'itself. Errors always have the shape `{"error": {"code", "message", "status"}}`. '
                f"Anonymous calls use the public tier; `Authorization: Bearer {EXAMPLE}` selects the pro tier. "
                f"The same tools are served over MCP at `{base_url}/mcp` and `{base_url}/mcp-pro`. "
                f"Service version {__version__}."
            ),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "responses": {_error_name(status): _error_response(status, error_ref) for status in ERROR_RESPONSES},
            "headers": HEADERS,
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": f"An API key starting with `{PREFIX}` (free during the beta).",
                }
            },
        },
        "tags": [{"name": "tools", "description": "Garage door tools."}],
    }


def _error_name(status: str) -> str:
    return f"Error{status}"


def _error_response(status: str, error_ref: dict[str, str]) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": ERROR_RESPONSES[status],
        "content": {"application/json": {"schema": error_ref}},
    }
    if status in HEADERS_BY_STATUS:
        response["headers"] = _header_refs(status)
    return response


def _header_refs(status: str) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in HEADERS_BY_STATUS[status]}


def _ref_name(ref: dict[str, str]) -> str:
    return ref["$ref"].rsplit("/", 1)[1]


def _short_description(tool: Tool[Any, Any], base_url: str) -> str:
    """The summary and the auth rule, and where the full description is when it fits the platform limit."""
    auth = " Requires an API key (pro tier)." if tool.auth is AuthPolicy.BEARER else " No API key needed."
    text = tool.summary + auth
    guide = f" Full description: {base_url}/ai#{tool.name}"
    return text + guide if len(text + guide) <= OPERATION_TEXT_LIMIT else text


def example_arguments(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Arguments a tool accepts, from its input schema's examples: every required one, and the optional ones
    that have an example. A nested object is built the same way from its own schema."""
    defs = schema.get("$defs", {}) if defs is None else defs
    required = set(schema.get("required", ()))
    arguments: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        value = _example_value(prop, defs, required=name in required)
        if value is not None:
            arguments[name] = value
    return arguments


def _example_value(prop: dict[str, Any], defs: dict[str, Any], *, required: bool) -> Any:
    if prop.get("examples"):
        return prop["examples"][0]
    if not required:
        return None
    for option in [prop, *prop.get("anyOf", ())]:
        if "$ref" in option:
            return example_arguments(defs[option["$ref"].rsplit("/", 1)[1]], defs)
        if option.get("enum"):
            return option["enum"][0]
        if option.get("type") == "boolean":
            return True
    return None
