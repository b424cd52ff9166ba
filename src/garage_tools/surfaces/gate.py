"""The access gates: the HTTP front of `/api/v1/*`, `/mcp` and `/mcp-pro`, one ASGI wrapper each.

A gate applies the access policy (`access/policy.py`: who is calling, what a call counts against) to an
HTTP request, and works out everything about it before a surface sees it, in the same order on every
surface:

1. route and method (404 unknown tool, 405 anything but POST);
2. the request's headers (`RequestHeaders.of`); on MCP the `Host` and `Origin` (421, 403);
3. the caller: client address, API key and tier (400 for two `Authorization` headers, 401 for a
   bad key, 503 when the key store is down; public `/mcp` defers these to the tool call);
4. the body: media type (415), size (413, before reading) and time (408);
5. for a tool call: the rate limit (429), then the browser challenge (403);

and hands the surface an `Admitted` request carrying the same `Caller`. Surfaces only translate
between their protocol and `invoke`. A tool's usage cap is counted with the rate limit but only
reserved: the `Caller` carries the reservation to `invoke`, which settles it by the tool's outcome,
and the gate gives back whatever is unsettled once the surface is done (the tool never ran).
Refusals that concern a tool call on MCP (limits, a bad key on `/mcp`) become tool errors there,
because MCP connectors treat HTTP 401/429 from the whole endpoint as an authentication failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import orjson
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from garage_tools.access.caller import Caller
from garage_tools.access.challenge import CHALLENGE_FIELD, MAX_TOKEN_LENGTH
from garage_tools.access.oauth import SCOPE
from garage_tools.access.oauth_resources import RESOURCE_OF_SURFACE, resource_metadata_url
from garage_tools.access.policy import Access, Challenge, give_back_unsettled
from garage_tools.access.ratelimit import Decision, LimitReached
from garage_tools.errors import (
    FieldProblem,
    HostNotAllowed,
    InvalidArguments,
    InvalidBody,
    InvalidJson,
    InvalidKey,
    MethodNotAllowed,
    OriginNotAllowed,
    PayloadTooLarge,
    ServiceError,
    UnsupportedMediaType,
)
from garage_tools.headers import RequestHeaders, trimmed_scope
from garage_tools.key_format import EXAMPLE
from garage_tools.observability.request_id import note_tool
from garage_tools.registry import DEFAULT_MAX_BODY_BYTES, Registry, Tool
from garage_tools.surfaces.jsonrpc import envelope_problem

#: Room for the JSON-RPC envelope around a tool's arguments on MCP.
MCP_ENVELOPE_BYTES = 4096
JSON = "application/json"


@dataclass(slots=True)
class Admitted:
    """A request the gate let through, with everything a surface needs to answer it."""

    scope: Scope
    receive: Receive
    caller: Caller
    headers: RequestHeaders
    body: bytes
    base_url: str
    tool: Tool[Any, Any] | None = None  # REST: the tool of the path; MCP: the tool a tools/call names
    arguments: dict[str, Any] | None = None  # REST: the parsed body, less challengeToken
    message: Any = None  # MCP: the parsed JSON-RPC message (None when the body is not JSON)
    denial: ServiceError | None = None  # MCP: the tool call must answer with this error
    invalid: str | None = None  # MCP: why the message breaks the JSON-RPC envelope rules (answered -32600)
    response_headers: list[tuple[bytes, bytes]] | None = None  # fixed headers (Retry-After); None: no factory call
    limits: Decision | None = None  # a counted call's rate-limit decision, for its RateLimit headers

    def answer_headers(self) -> list[tuple[bytes, bytes]]:
        """The headers the answer carries: a counted call's `RateLimit` fields as they stand when it goes out
        (a usage-cap unit given back by then is not counted in them), else those the gate set."""
        if self.limits is not None:
            return self.limits.headers()
        return self.response_headers if self.response_headers is not None else []


class Surface(Protocol):
    async def __call__(self, request: Admitted, send: Send) -> None: ...


ErrorSender = Callable[[ServiceError, Send], Awaitable[None]]


class Gate:
    """What both gates do with a request: admit it or answer the refusal, let the surface answer, then give
    back whatever usage-cap reservation the tool never settled."""

    def __init__(self, access: Access, registry: Registry, surface: Surface, send_error: ErrorSender) -> None:
        self.access = access
        self.registry = registry
        self.surface = surface
        self.send_error = send_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            request = await self._admit(scope, receive)
        except ServiceError as error:
            await self.send_error(self.refusal(error, scope), send)
            return
        except ClientDisconnect:
            return
        await self.surface(request, send)
        if request.caller.reservation is not None:  # most calls hold none: no coroutine for them
            await give_back_unsettled(request.caller)

    #: The OAuth resource this gate's endpoint is (`access/oauth.py`), if an access token may be used on it.
    resource_path: str | None = None

    def refusal(self, error: ServiceError, scope: Scope) -> ServiceError:
        """The error as this gate sends it. On an OAuth resource, a 401 names where to authorize (RFC 9728 §5.1),
        and says `invalid_token` only when a token was sent (RFC 6750 §3.1: a request without one gets no code)."""
        if self.resource_path is not None and error.status == 401:
            metadata = resource_metadata_url(self.access.base_url(scope), self.resource_path)
            challenge = f'Bearer resource_metadata="{metadata}", scope="{SCOPE}"'
            if RequestHeaders.of(scope).authorization:
                challenge += ', error="invalid_token"'
            error.headers["WWW-Authenticate"] = challenge
        return error

    async def _admit(self, scope: Scope, receive: Receive) -> Admitted:
        raise NotImplementedError


class RestGate(Gate):
    """The gate for `POST /api/v1/{tool}`: everything up to `invoke` is settled here."""

    caller_surface = "rest"  # `Caller.surface`: where a call came in, for leads, logs and OAuth's resources

    async def _admit(self, scope: Scope, receive: Receive, tool: Tool[Any, Any] | None = None) -> Admitted:
        """Admit a call of `tool` with a JSON object body: the tool the path names, unless the chat gate names its
        `ask` (one coroutine for a REST call's admission, not two)."""
        if tool is None:
            tool = self.registry.get(scope["path_params"]["tool"])
        access = self.access
        if scope["method"] != "POST":
            raise MethodNotAllowed(
                f"{tool.name} is called with POST and a JSON object body.", headers={"Allow": "POST"}
            )
        headers = RequestHeaders.of(scope)
        caller = await access.identify(scope, headers, self.caller_surface)
        caller.refuse_bad_credential()  # before the body is read: a bad key is refused whatever it sends
        if headers.content_type is not None and not is_json_media_type(headers.content_type):
            raise UnsupportedMediaType("Send the request body as JSON with 'Content-Type: application/json'.")
        body = await access.read_body(receive, headers, tool.max_body_bytes)
        arguments = parse_object(body)
        token = arguments.pop(CHALLENGE_FIELD, None)
        if token is not None:  # most calls carry none
            _check_token_shape(token)
        base = access.base_url(scope, headers)
        # Only a browser is challenged, and a browser sends an `Origin`: most calls have none to offer.
        challenge = Challenge(token, base) if caller.origin is not None else None
        decision, caller = await access.admit_call(caller, tool.name, challenge)
        return Admitted(
            scope=scope,
            receive=receive,
            caller=caller,
            headers=headers,
            body=body,
            base_url=base,
            tool=tool,
            arguments=arguments,
            limits=decision,
        )


class McpGate(Gate):
    """The gate for `/mcp` (anonymous welcome) and `/mcp-pro` (a valid key required)."""

    def __init__(
        self, access: Access, registry: Registry, surface: Surface, send_error: ErrorSender, *, name: str, pro: bool
    ) -> None:
        super().__init__(access, registry, surface, send_error)
        self.name = name
        self.pro = pro
        self.resource_path = RESOURCE_OF_SURFACE.get(name)
        #: The most a message may carry when its `Mcp-Name` header names no tool: the largest tool's arguments.
        self.body_limit = max((t.max_body_bytes for t in registry), default=DEFAULT_MAX_BODY_BYTES) + MCP_ENVELOPE_BYTES

    async def _admit(self, scope: Scope, receive: Receive) -> Admitted:
        access = self.access
        if scope["method"] != "POST":
            raise MethodNotAllowed(
                "This MCP endpoint is stateless: send each JSON-RPC message as a POST. It offers no event "
                "stream (GET) and no sessions to end (DELETE).",
                headers={"Allow": "POST"},
            )
        headers = RequestHeaders.of(scope)
        if headers.untrimmed:  # rare: no call for the rest
            scope = trimmed_scope(scope, headers)
        if not access.origins.mcp_host_allowed(headers.host):
            raise HostNotAllowed(
                f"This server does not answer to the host {headers.host!r}. Operators: add it to "
                "GARAGE_TOOLS_ALLOWED_HOSTS or set GARAGE_TOOLS_PUBLIC_BASE_URL."
            )
        if headers.origin is not None and not access.origins.mcp_origin_allowed(headers.origin):  # a browser's
            raise OriginNotAllowed(
                f"Browser pages from {headers.origin} may not call MCP here. Call the REST API "
                "(POST /api/v1/<tool>) from a browser, or ask the operator to admit the origin."
            )
        caller = await access.identify(scope, headers, self.name)
        if self.pro:
            caller.refuse_bad_credential()
            if caller.key_id is None:
                raise InvalidKey(
                    f"This endpoint needs an API key (send 'Authorization: Bearer {EXAMPLE}') or an OAuth access "
                    "token (see WWW-Authenticate). Use /mcp for anonymous access."
                )
        if headers.content_type is None or not is_json_media_type(headers.content_type):
            raise UnsupportedMediaType("Send MCP messages as JSON with 'Content-Type: application/json'.")
        name = headers.mcp.get("mcp-name")  # 2026-07-28 names the tool in a header; earlier revisions do not
        named = self.registry.find(name) if name else None
        limit = named.max_body_bytes + MCP_ENVELOPE_BYTES if named is not None else self.body_limit
        body = await access.read_body(receive, headers, limit)
        request = Admitted(
            scope=scope,
            receive=receive,
            caller=caller,
            headers=headers,
            body=body,
            base_url=access.base_url(scope, headers),
        )
        try:
            request.message = orjson.loads(body)
        except orjson.JSONDecodeError:
            return request  # the MCP SDK answers with its own parse error
        request.invalid = envelope_problem(request.message)
        if request.invalid is not None:
            return request  # answered -32600, counted against nothing
        call = _tool_call_name(request.message)
        if call is None:
            if _is_request(request.message):
                decision = await access.rate_limit(caller, [access.limits.mcp_protocol])
                if not decision.allowed:
                    request.denial = decision.error()
                    request.response_headers = [h for h in decision.headers() if h[0] == b"retry-after"]
            return request
        request.tool = named if named is not None and named.name == call else self.registry.find(call)
        note_tool(call)  # for the request metrics: on MCP only the body names the tool
        try:
            caller.refuse_bad_credential()  # public /mcp refuses a bad key here, at the tool call
            if request.tool is not None and len(body) > request.tool.max_body_bytes + MCP_ENVELOPE_BYTES:
                raise PayloadTooLarge(
                    f"The arguments are over {request.tool.max_body_bytes} bytes, the most {call} accepts."
                )
            request.limits, request.caller = await access.admit_call(caller, call)
        except LimitReached as refused:
            request.limits, request.denial = refused.decision, refused
        except ServiceError as refused:
            request.denial = refused
        return request


def _tool_call_name(message: Any) -> str | None:
    if not isinstance(message, dict) or message.get("method") != "tools/call" or "id" not in message:
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else ""


def _is_request(message: Any) -> bool:
    return isinstance(message, dict) and "id" in message and isinstance(message.get("method"), str)


@lru_cache(maxsize=256)  # every call asks; clients send a handful of distinct values (bounded for the rest)
def is_json_media_type(content_type: str) -> bool:
    """`application/json` or any `application/*+json`, with any parameters."""
    if content_type == JSON:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == JSON or (media.startswith("application/") and media.endswith("+json"))


def parse_object(body: bytes) -> dict[str, Any]:
    if not body.strip():
        raise InvalidBody("The request body is required: send a JSON object (use {} when no field is needed).")
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise InvalidJson(f"The request body is not valid JSON: {exc.msg} at position {exc.pos}.") from None
    if not isinstance(data, dict):
        raise InvalidBody(f"The request body must be a JSON object, not {_json_kind(data)}.")
    return data


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def _check_token_shape(token: object) -> None:
    if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
        message = f"must be a string of at most {MAX_TOKEN_LENGTH} characters"
        raise InvalidArguments(
            f"Invalid arguments: {CHALLENGE_FIELD}: {message}",
            details=[FieldProblem(field=CHALLENGE_FIELD, message=message)],
        )
