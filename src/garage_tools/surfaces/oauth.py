"""The OAuth 2.1 endpoints that let hosted AI connectors reach `/mcp-pro` (MCP authorization, 2025-11-25).

- `/.well-known/oauth-protected-resource/mcp-pro` (RFC 9728): what `/mcp-pro` is and who issues its tokens;
  the same document at the root, for clients that look only there.
- `/.well-known/oauth-authorization-server` (RFC 8414): this service is the authorization server. It is no
  OpenID provider, so `/.well-known/openid-configuration` is a plain 404.
- `POST /register` (RFC 7591), `GET /authorize`, `POST /token`, `POST /revoke` (RFC 7009).

This module only translates HTTP: the rules are `access/oauth.py`, the person's part (sign-in and consent)
is the portal's (`web/portal/connect.py`). The SDK's token handler runs over our `OAuthService`
(authorization, registration and revocation are ours: the SDK's redirects errors to any registered URI and
assume confidential clients); bodies are read first through
the access policy's bounded reader, as every body is. Errors here answer in OAuth's own shape
(`{"error": "invalid_grant", "error_description": …}`, RFC 6749 §5.2), which OAuth clients parse; the
service's envelope is kept for refusals before OAuth (too large, too slow, too many).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.client_auth import ClientAuthenticator
from mcp.server.auth.provider import RegistrationError
from mcp.shared.auth import OAuthClientMetadata, OAuthMetadata, ProtectedResourceMetadata
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.body import replay
from garage_tools.access.client_ip import rate_limit_partition
from garage_tools.access.oauth import RESOURCE_PATH, SCOPE, OAuthService, resource_url, same_resource
from garage_tools.access.oauth_requests import AuthorizationProblem, parameters
from garage_tools.access.policy import Access
from garage_tools.access.ratelimit import Policy
from garage_tools.errors import ServiceError
from garage_tools.headers import RequestHeaders
from garage_tools.surfaces.responses import error_response, json_response

PROTECTED_RESOURCE = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER = "/.well-known/oauth-authorization-server"
MAX_BODY = 8 * 1024  # a registration or token request is a few hundred bytes
REGISTRATIONS_PER_IP = Policy.parse("oauth-register-ip", "20/hour")
#: A person starts an authorization now and then; a flood from one address stores nothing past this.
AUTHORIZATIONS_PER_IP = Policy.parse("oauth-authorize-ip", "60/minute")
#: Hosted connectors refresh for many people from few addresses: generous, but not unbounded.
TOKENS_PER_IP = Policy.parse("oauth-token-ip", "300/minute")
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
#: A page telling a person why an authorization cannot go on (the pages live above this layer: app.py wires it).
ProblemPage = Callable[[Request, str], Response]
#: Metadata is the same for every caller of one host; it moves only with the operator's base URL.
CACHED = {"Cache-Control": "public, max-age=300"}


def oauth_error(code: str, description: str, status: int = 400) -> Response:
    """An error in OAuth's own shape (RFC 6749 §5.2, RFC 7591 §3.2.2), which OAuth clients parse."""
    return json_response({"error": code, "error_description": description}, status, NO_STORE)


class OAuthEndpoints:
    def __init__(self, oauth: OAuthService, access: Access, problem_page: ProblemPage | None = None) -> None:
        self.oauth = oauth
        self.access = access
        self.problem_page = problem_page

    def _base(self, request: Request) -> str:
        return self.access.base_url(request.scope)

    def _service(self, request: Request) -> OAuthService:
        return self.oauth.at(resource_url(self._base(request)))

    async def resource_metadata(self, request: Request) -> Response:
        base = self._base(request)
        document = ProtectedResourceMetadata.model_validate(
            {
                "resource": resource_url(base),
                "authorization_servers": [base],
                "scopes_supported": [SCOPE],
                "resource_name": "Garage Door Tools, pro tier",
                "resource_documentation": f"{base}/developers",
            }
        )
        return json_response(document.model_dump(mode="json", exclude_none=True), headers=CACHED)

    async def server_metadata(self, request: Request) -> Response:
        base = self._base(request)
        document = OAuthMetadata.model_validate(
            {
                "issuer": base,
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": f"{base}/token",
                "registration_endpoint": f"{base}/register",
                "revocation_endpoint": f"{base}/revoke",
                "scopes_supported": [SCOPE],
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_methods_supported": ["none"],
                "revocation_endpoint_auth_methods_supported": ["none"],
                "code_challenge_methods_supported": ["S256"],
                "authorization_response_iss_parameter_supported": True,
                "service_documentation": f"{base}/developers",
                "client_id_metadata_document_supported": False,
            }
        )
        return json_response(document.model_dump(mode="json", exclude_none=True), headers=CACHED)

    async def register(self, request: Request) -> Response:
        """Dynamic client registration: public clients only (PKCE, no secret); redirect URIs checked."""
        if (refused := await self._limited(request, "oauth-register", REGISTRATIONS_PER_IP)) is not None:
            return refused
        try:
            body = await self._body(request)
            metadata = OAuthClientMetadata.model_validate_json(body)
        except ServiceError as error:
            return error_response(error)
        except ValidationError as invalid:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in invalid.errors())
            return oauth_error("invalid_client_metadata", problems[:500])
        try:
            information = await self.oauth.register(metadata)
        except RegistrationError as problem:
            return oauth_error(problem.error, problem.error_description or problem.error)
        return json_response(information.model_dump(mode="json", exclude_none=True), 201, NO_STORE)

    async def authorize(self, request: Request) -> Response:
        """Check the whole request (client, redirect URI, PKCE, scope, resource, every length) and send the person
        to consent; nothing is stored before that.

        A request that fails a check is answered here, never on the app's redirect URI: anyone can register
        one, so sending errors there would make this an open redirect (RFC 9700 §4.11.2). A person gets the
        service's page, a program OAuth's JSON error. The app hears back once the person has decided.
        """
        if (refused := await self._limited(request, "oauth-authorize", AUTHORIZATIONS_PER_IP)) is not None:
            return refused
        service = self._service(request)
        try:
            query = parameters(request.scope.get("query_string", b""))
            checked = await service.authorization_request(query)
        except AuthorizationProblem as problem:
            accept = RequestHeaders.of(request.scope).accept or ""
            if self.problem_page is not None and "text/html" in accept:
                return self.problem_page(request, problem.description)
            return oauth_error(problem.error, problem.description)
        consent = await service.authorize(checked.client, checked.params)
        return RedirectResponse(consent, status_code=302, headers=NO_STORE)

    async def token(self, request: Request) -> Response:
        """Swap a code (with its PKCE verifier) or a refresh token for fresh tokens bound to `/mcp-pro`."""
        if (refused := await self._limited(request, "oauth-token", TOKENS_PER_IP)) is not None:
            return refused
        try:
            body = await self._body(request)
        except ServiceError as error:
            return error_response(error)
        form = _form(body)
        expected = resource_url(self._base(request))
        resource = form.get("resource")
        if resource is not None and not same_resource(resource, expected):
            return oauth_error("invalid_target", f"This server issues tokens for {expected} only.")
        service = self._service(request)
        handler = TokenHandler(service, ClientAuthenticator(service))
        response: Response = await handler.handle(Request(request.scope, replay(body, request.receive)))
        return response

    async def revoke(self, request: Request) -> Response:
        """RFC 7009: a client gives up its tokens (the whole grant goes with them). Unknown tokens, and other
        clients' tokens, are answered the same 200, so the answer tells nothing about them."""
        try:
            body = await self._body(request)
        except ServiceError as error:
            return error_response(error)
        form = _form(body)
        client = await self.oauth.get_client(str(form.get("client_id") or ""))
        if client is None:
            return oauth_error("invalid_client", "Send the client_id this server registered for the app.", 401)
        await self.oauth.revoke_for(client.client_id, str(form.get("token") or ""))
        return Response(status_code=200, headers=NO_STORE)

    async def _limited(self, request: Request, name: str, policy: Policy) -> Response | None:
        """The 429 (the envelope) when the caller's address is over `policy`, else None. Counted per address:
        an API key changes nothing here, so the message offers none."""
        partition = rate_limit_partition(self.access.client_ip(request.scope))
        decision = await self.access.limiter.check(f"{name}:{partition}", [policy])
        return None if decision.allowed else error_response(decision.error(per="this address", advice=None))

    async def _body(self, request: Request) -> bytes:
        return await self.access.read_body(request.receive, RequestHeaders.of(request.scope), MAX_BODY)


def _form(body: bytes) -> dict[str, Any]:
    try:
        return dict(parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=20))
    except (UnicodeDecodeError, ValueError):
        return {}


def oauth_routes(oauth: OAuthService, access: Access, problem_page: ProblemPage | None = None) -> list[BaseRoute]:
    """The OAuth routes, for `create_app`'s route list."""
    endpoints = OAuthEndpoints(oauth, access, problem_page)
    return [
        Route(PROTECTED_RESOURCE + RESOURCE_PATH, endpoints.resource_metadata, methods=["GET"]),
        Route(PROTECTED_RESOURCE, endpoints.resource_metadata, methods=["GET"]),
        Route(AUTHORIZATION_SERVER, endpoints.server_metadata, methods=["GET"]),
        Route("/register", endpoints.register, methods=["POST"]),
        Route("/authorize", endpoints.authorize, methods=["GET"]),
        Route("/token", endpoints.token, methods=["POST"]),
        Route("/revoke", endpoints.revoke, methods=["POST"]),
    ]
