"""OpenAPI 3.1.0 for the REST surface, generated from the registry (never written by hand)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from garage_tools import __version__
from garage_tools.access.challenge import CHALLENGE_FIELD, MAX_TOKEN_LENGTH
from garage_tools.errors import ErrorEnvelope
from garage_tools.registry import AuthPolicy, Registry

API_VERSION = "1.0.0"
REF = "#/components/schemas/{model}"

ERROR_RESPONSES: dict[str, str] = {
    "400": "Invalid JSON, a body that is not an object, or invalid arguments (`invalid_json`, `invalid_body`, "
    "`invalid_arguments`), or a tool execution error (`tool_error`).",
    "401": "Missing key for a tool that requires one (`auth_required`), or an invalid or revoked key (`invalid_key`).",
    "413": "The request body is larger than this tool accepts (`payload_too_large`).",
    "415": "The body is not sent as JSON (`unsupported_media_type`).",
    "429": "Rate limit exceeded (`rate_limited`).",
    "500": "An unexpected server fault (`internal_error`); the message carries an incident id.",
}

CHALLENGE_PROPERTY = {
    "anyOf": [{"type": "string", "maxLength": MAX_TOKEN_LENGTH}, {"type": "null"}],
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
        for status, description in ERROR_RESPONSES.items():
            responses[status] = {"description": description, "content": {"application/json": {"schema": error_ref}}}
        paths[f"/api/v1/{tool.name}"] = {
            "post": {
                "operationId": tool.name,
                "summary": tool.summary,
                "description": tool.description + _auth_note(tool.auth),
                "tags": ["tools"],
                "security": security,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": input_ref}},
                },
                "responses": responses,
            }
        }

    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Garage Door Tools API",
            "version": API_VERSION,
            "summary": "Garage-door diagnosis, costs and door styles for homeowners and the agents helping them.",
            "description": (
                "Every tool is `POST /api/v1/<tool>` with a JSON object body; a success returns the tool's value "
                'itself. Errors always have the shape `{"error": {"code", "message", "status"}}`. '
                "Anonymous calls use the public tier; `Authorization: Bearer svc_live_…` selects the pro tier. "
                f"The same tools are served over MCP at `{base_url}/mcp` and `{base_url}/mcp-pro`. "
                f"Service version {__version__}."
            ),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key starting with `svc_live_` (free during the beta).",
                }
            },
        },
        "tags": [{"name": "tools", "description": "Garage door tools."}],
    }


def _ref_name(ref: dict[str, str]) -> str:
    return ref["$ref"].rsplit("/", 1)[1]


def _auth_note(auth: AuthPolicy) -> Literal["", " Requires an API key (pro tier)."]:
    return "" if auth is AuthPolicy.OPTIONAL else " Requires an API key (pro tier)."
