"""The access gate: one ASGI wrapper in front of `/api/v1/*`, `/mcp` and `/mcp-pro`.

It works out everything about a request before a surface sees it, in the same order on every
surface:

1. route and method (404 unknown tool, 405 anything but POST);
2. headers, read once; on MCP the `Host` and `Origin` (421, 403) and the protocol version;
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

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import orjson
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from garage_tools.access.body import BodyDeadlines, read_body
from garage_tools.access.caller import Caller, Tier
from garage_tools.access.challenge import CHALLENGE_FIELD, MAX_TOKEN_LENGTH, ChallengeVerifier
from garage_tools.access.client_ip import ClientAddressResolver, rate_limit_partition
from garage_tools.access.credentials import ANONYMOUS, Credentials, authenticate, bearer_token
from garage_tools.access.keys import KeyService
from garage_tools.access.origins import OriginPolicy
from garage_tools.access.ratelimit import Decision, Policy, RateLimiter
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
    RateLimited,
    ServiceError,
    UnsupportedMediaType,
)
from garage_tools.headers import RequestHeaders, trimmed_scope
from garage_tools.observability.request_id import note_tool
from garage_tools.registry import Registry, Tool

_TIER_NAMES = {tier: tier.value for tier in Tier}  # enum attribute access is slow on the hot path
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
    response_headers: list[tuple[bytes, bytes]] = field(default_factory=list)  # RateLimit headers


class Surface(Protocol):
    async def __call__(self, request: Admitted, send: Send) -> None: ...


ErrorSender = Callable[[ServiceError, Send], Awaitable[None]]


@dataclass(frozen=True)
class Limits:
    """The rate-limit policies of each tier, and per-tool caps derived from the registry."""

    public: Policy
    pro: Policy
    mcp_protocol: Policy
    auth_failures: Policy
    tool_caps: dict[tuple[str, Tier], Policy]

    @classmethod
    def build(cls, registry: Registry, *, public: str, pro: str, mcp_protocol: str, auth_failures: str) -> Limits:
        caps: dict[tuple[str, Tier], Policy] = {}
        for tool in registry:
            if tool.usage_cap is not None:
                cap = tool.usage_cap
                caps[tool.name, Tier.PUBLIC] = Policy.parse(f"{cap.name}-public", cap.public)
                caps[tool.name, Tier.PRO] = Policy.parse(f"{cap.name}-pro", cap.pro)
        return cls(
            public=Policy.parse("public", public),
            pro=Policy.parse("pro", pro),
            mcp_protocol=Policy.parse("mcp", mcp_protocol),
            auth_failures=Policy.parse("bad-keys", auth_failures),
            tool_caps=caps,
        )

    def for_call(self, tier: Tier, tool: Tool[Any, Any] | None) -> tuple[Policy, ...]:
        general = self.pro if tier is Tier.PRO else self.public
        if (cap := self.cap_of(tier, tool)) is not None:
            return (general, cap)
        return (general,)

    def cap_of(self, tier: Tier, tool: Tool[Any, Any] | None) -> Policy | None:
        """The tool's usage cap for `tier`, if it declares one."""
        return self.tool_caps.get((tool.name, tier)) if tool is not None else None


class Access:
    """The service-wide access policy the gates apply: keys, addresses, origins, limits, challenge."""

    def __init__(
        self,
        *,
        registry: Registry,
        keys: KeyService,
        limiter: RateLimiter,
        limits: Limits,
        challenge: ChallengeVerifier,
        origins: OriginPolicy,
        addresses: ClientAddressResolver,
        base_url: Callable[[Scope, str | None], str],
        body_timeout: float,
    ) -> None:
        self.registry = registry
        self.keys = keys
        self.limiter = limiter
        self.limits = limits
        self.challenge = challenge
        self.origins = origins
        self.addresses = addresses
        self.base_url = base_url
        self.body_timeout = body_timeout
        self.body_deadlines = BodyDeadlines()
        self.mcp_body_limit = max((tool.max_body_bytes for tool in registry), default=16 * 1024) + MCP_ENVELOPE_BYTES

    async def identify(self, scope: Scope, headers: RequestHeaders, surface: str) -> Caller:
        ip = self.addresses.resolve(scope, headers)
        partition = rate_limit_partition(ip)
        credentials = await self._credentials(headers, partition)
        return Caller(
            tier=credentials.tier,
            surface=surface,
            ip=ip,
            key_id=credentials.key_id,
            origin=headers.origin,
            credential_error=credentials.error,
            partition=f"{_TIER_NAMES[credentials.tier]}:{partition}",
        )

    async def _credentials(self, headers: RequestHeaders, partition: str) -> Credentials:
        """Authenticate, refusing to consult the key store for an address that keeps sending bad keys.

        Forged keys with a valid checksum are cheap to make and each unknown id costs a store
        lookup, so after `limits.auth_failures` bad keys an address gets 429 for its keyed calls
        until the window passes. Keys already in the cache are answered without this check.
        """
        if not headers.authorization:
            return ANONYMOUS
        tokens = [bearer_token(value) for value in headers.authorization]
        lookup = len(tokens) == 1 and bool(tokens[0]) and not self.keys.is_cached(tokens[0] or "")
        if lookup:
            budget = await self.limiter.peek(partition, [self.limits.auth_failures])
            if not budget.allowed:
                error = RateLimited(
                    f"Too many invalid API keys from this address: its keyed calls are refused for "
                    f"{budget.retry_after} seconds. Calls without a key still work.",
                    headers={"Retry-After": str(budget.retry_after)},
                )
                return Credentials(tier=Tier.PUBLIC, error=error)
        credentials = await authenticate(headers.authorization, self.keys)
        if lookup and isinstance(credentials.error, InvalidKey):
            await self.limiter.check(partition, [self.limits.auth_failures])
        return credentials

    async def rate_limit(self, caller: Caller, policies: Sequence[Policy]) -> Decision:
        return await self.limiter.check(caller.partition, policies)

    async def count_call(self, caller: Caller, tool: Tool[Any, Any] | None) -> tuple[Decision, Caller]:
        """Count a tool call against the tier's limits and the tool's usage cap, in one atomic step.

        The cap's unit is reserved, not spent: the caller returned carries the reservation, for `invoke`
        to settle once the tool's outcome is known (registry.py `UsageCap`).
        """
        cap = self.limits.cap_of(caller.tier, tool)
        decision = await self.limiter.check(caller.partition, self.limits.for_call(caller.tier, tool), reserve=cap)
        if decision.reservation is not None:
            caller = replace(caller, reservation=decision.reservation)
        return decision, caller

    def needs_challenge(self, caller: Caller) -> bool:
        """A browser caller without a key, while the challenge is on (its origin is checked next)."""
        return self.challenge.enabled and caller.origin is not None and not caller.has_bearer

    async def challenge_browser(self, caller: Caller, token: object, own_origin: str) -> None:
        """Verify the browser challenge unless the page is the service itself or a site the operator admitted."""
        if caller.origin is None or self.origins.is_same_site(caller.origin, own_origin):
            return
        await self.challenge.verify(token if isinstance(token, str) else None, remote_ip=caller.ip)


def _origin_of(base_url: str) -> str:
    scheme, _, rest = base_url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


class RestGate:
    """The gate for `POST /api/v1/{tool}`: everything up to `invoke` is settled here."""

    def __init__(self, access: Access, surface: Surface, send_error: ErrorSender) -> None:
        self.access = access
        self.surface = surface
        self.send_error = send_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            request = await self._admit(scope, receive)
        except ServiceError as error:
            await self.send_error(error, send)
            return
        except ClientDisconnect:
            return
        await self.surface(request, send)
        await _give_back_unsettled(request.caller)

    async def _admit(self, scope: Scope, receive: Receive) -> Admitted:
        access = self.access
        tool = access.registry.get(scope["path_params"]["tool"])
        if scope["method"] != "POST":
            raise MethodNotAllowed(
                f"{tool.name} is called with POST and a JSON object body.", headers={"Allow": "POST"}
            )
        headers = RequestHeaders.read(scope)
        caller = await access.identify(scope, headers, "rest")
        if caller.credential_error is not None:
            raise caller.credential_error
        if headers.content_type is not None and not is_json_media_type(headers.content_type):
            raise UnsupportedMediaType("Send the request body as JSON with 'Content-Type: application/json'.")
        body = await read_body(
            receive,
            declared_length=headers.content_length,
            limit=tool.max_body_bytes,
            seconds=access.body_timeout,
            deadlines=access.body_deadlines,
        )
        arguments = parse_object(body)
        token = arguments.pop(CHALLENGE_FIELD, None)
        _check_token_shape(token)
        decision, caller = await access.count_call(caller, tool)
        if not decision.allowed:
            raise decision.error()
        base = access.base_url(scope, headers.host)
        if access.needs_challenge(caller):
            try:
                await access.challenge_browser(caller, token, _origin_of(base))
            except ServiceError as error:
                error.headers.update(decision.header_fields())  # the call was counted: say how much is left
                await _give_back_unsettled(caller)  # but the tool will not run: it used none of its cap
                raise
        return Admitted(
            scope=scope,
            receive=receive,
            caller=caller,
            headers=headers,
            body=body,
            base_url=base,
            tool=tool,
            arguments=arguments,
            response_headers=decision.headers(),
        )


class McpGate:
    """The gate for `/mcp` (anonymous welcome) and `/mcp-pro` (a valid key required)."""

    def __init__(self, access: Access, surface: Surface, send_error: ErrorSender, *, name: str, pro: bool) -> None:
        self.access = access
        self.surface = surface
        self.send_error = send_error
        self.name = name
        self.pro = pro

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            request = await self._admit(scope, receive)
        except ServiceError as error:
            if self.pro and error.status == 401:
                error.headers["WWW-Authenticate"] = 'Bearer realm="garage-tools", error="invalid_token"'
            await self.send_error(error, send)
            return
        except ClientDisconnect:
            return
        await self.surface(request, send)
        await _give_back_unsettled(request.caller)

    async def _admit(self, scope: Scope, receive: Receive) -> Admitted:
        access = self.access
        if scope["method"] != "POST":
            raise MethodNotAllowed(
                "This MCP endpoint is stateless: send each JSON-RPC message as a POST. It offers no event "
                "stream (GET) and no sessions to end (DELETE).",
                headers={"Allow": "POST"},
            )
        headers = RequestHeaders.read(scope)
        scope = trimmed_scope(scope, headers)
        if not access.origins.mcp_host_allowed(headers.host):
            raise HostNotAllowed(
                f"This server does not answer to the host {headers.host!r}. Operators: add it to "
                "GARAGE_TOOLS_ALLOWED_HOSTS or set GARAGE_TOOLS_PUBLIC_BASE_URL."
            )
        if not access.origins.mcp_origin_allowed(headers.origin):
            raise OriginNotAllowed(
                f"Browser pages from {headers.origin} may not call MCP here. Call the REST API "
                "(POST /api/v1/<tool>) from a browser, or ask the operator to admit the origin."
            )
        caller = await access.identify(scope, headers, self.name)
        if self.pro and caller.key_id is None:
            raise caller.credential_error or InvalidKey(
                "This endpoint needs an API key: send 'Authorization: Bearer svc_live_…'. "
                "Use /mcp for anonymous access."
            )
        if headers.content_type is None or not is_json_media_type(headers.content_type):
            raise UnsupportedMediaType("Send MCP messages as JSON with 'Content-Type: application/json'.")
        named = access.registry.find(headers.mcp_header("mcp-name") or "")
        limit = named.max_body_bytes + MCP_ENVELOPE_BYTES if named is not None else access.mcp_body_limit
        body = await read_body(
            receive,
            declared_length=headers.content_length,
            limit=limit,
            seconds=access.body_timeout,
            deadlines=access.body_deadlines,
        )
        request = Admitted(
            scope=scope,
            receive=receive,
            caller=caller,
            headers=headers,
            body=body,
            base_url=access.base_url(scope, headers.host),
        )
        try:
            request.message = orjson.loads(body)
        except orjson.JSONDecodeError:
            return request  # the MCP SDK answers with its own parse error
        call = _tool_call_name(request.message)
        if call is None:
            if _is_request(request.message):
                decision = await access.rate_limit(caller, [access.limits.mcp_protocol])
                if not decision.allowed:
                    request.denial = decision.error()
                    request.response_headers = [h for h in decision.headers() if h[0] == b"retry-after"]
            return request
        request.tool = access.registry.find(call)
        note_tool(call)  # for the request metrics: on MCP only the body names the tool
        if caller.credential_error is not None:
            request.denial = caller.credential_error
            return request
        if request.tool is not None and len(body) > request.tool.max_body_bytes + MCP_ENVELOPE_BYTES:
            request.denial = PayloadTooLarge(
                f"The arguments are over {request.tool.max_body_bytes} bytes, the most {call} accepts."
            )
            return request
        decision, request.caller = await access.count_call(caller, request.tool)
        request.response_headers = decision.headers()
        if not decision.allowed:
            request.denial = decision.error()
        return request


async def _give_back_unsettled(caller: Caller) -> None:
    """Give back a usage-cap reservation `invoke` did not settle: the call ended before the tool ran (a challenge
    refused, the MCP SDK answered the message itself, an unsupported protocol revision)."""
    if caller.reservation is not None:
        await caller.reservation.give_back()


def unsupported_protocol_version(headers: RequestHeaders) -> str | None:
    """The `MCP-Protocol-Version` value when it names no revision this server knows."""
    version = headers.mcp_header("mcp-protocol-version")
    return version if version is not None and version not in KNOWN_PROTOCOL_VERSIONS else None


def _tool_call_name(message: Any) -> str | None:
    if not isinstance(message, dict) or message.get("method") != "tools/call" or "id" not in message:
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else ""


def _is_request(message: Any) -> bool:
    return isinstance(message, dict) and "id" in message and isinstance(message.get("method"), str)


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
    if token is None:
        return
    if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
        message = f"must be a string of at most {MAX_TOKEN_LENGTH} characters"
        raise InvalidArguments(
            f"Invalid arguments: {CHALLENGE_FIELD}: {message}",
            details=[FieldProblem(field=CHALLENGE_FIELD, message=message)],
        )
