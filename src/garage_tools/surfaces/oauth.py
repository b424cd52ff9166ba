"""The OAuth 2.1 endpoints that let hosted AI connectors reach `/mcp-pro` (MCP authorization, 2025-11-25), and
chat products reach `/v1` (the OpenAI-compatible answers) the same way.

- `/.well-known/oauth-protected-resource/mcp-pro` and `/…/v1` (RFC 9728): what each resource is and who issues
  its tokens; `/mcp-pro`'s also at the root, for clients that look only there.
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
from garage_tools.access.oauth import SCOPE, OAuthService
from garage_tools.access.oauth_requests import AuthorizationProblem, parameters
from garage_tools.access.oauth_resources import RESOURCE_NAMES, RESOURCE_PATH, resource_url
from garage_tools.access.policy import Access
from garage_tools.errors import ServiceError
from garage_tools.headers import RequestHeaders
from garage_tools.surfaces.responses import error_response, json_response

PROTECTED_RESOURCE = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER = "/.well-known/oauth-authorization-server"
MAX_BODY = 8 * 1024  # a registration or token request is a few hundred bytes
#: The rules of `access/limits.py` each endpoint counts, per client address.
REGISTER, AUTHORIZE, TOKEN = "oauth-register", "oauth-authorize", "oauth-token"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
#: A page telling a person why an authorization cannot go on (the pages live above this layer: app.py wires it).
ProblemPage = Callable[[Request, str], Response]
#: A page telling a person the service refused them for now (too many requests), with the error's status.
RefusalPage = Callable[[Request, ServiceError], Response]
#: Metadata is the same for every caller of one host; it moves only with the operator's base URL.
CACHED = {"Cache-Control": "public, max-age=300"}


def oauth_error(code: str, description: str, status: int = 400) -> Response:
    """An error in OAuth's own shape (RFC 6749 §5.2, RFC 7591 §3.2.2), which OAuth clients parse."""
    return json_response({"error": code, "error_description": description}, status, NO_STORE)


class OAuthEndpoints:
    def __init__(
        self,
        oauth: OAuthService,
        access: Access,
        problem_page: ProblemPage | None = None,
        refusal_page: RefusalPage | None = None,
    ) -> None:
        self.oauth = oauth
        self.access = access
        self.problem_page = problem_page
        self.refusal_page = refusal_page

    async def _limited(self, rule: str, request: Request) -> ServiceError | None:
        """The refusal when this request's address is over rule `rule`, else None (the request was counted)."""
        decision = await self.access.count_rule(rule, self.access.client_ip(request.scope))
        return None if decision.allowed else self.access.refused(rule, decision)

    def _base(self, request: Request) -> str:
        return self.access.base_url(request.scope)

    def _service(self, request: Request, requested: str | None = None) -> OAuthService:
        return self.oauth.at(self._base(request), requested)

    async def resource_metadata(self, request: Request) -> Response:
        """RFC 9728: what a resource is and who issues its tokens (`/mcp-pro` at the bare well-known path)."""
        base = self._base(request)
        path = request.url.path.removeprefix(PROTECTED_RESOURCE) or RESOURCE_PATH
        document = ProtectedResourceMetadata.model_validate(
            {
                "resource": resource_url(base, path),
                "authorization_servers": [base],
                "scopes_supported": [SCOPE],
                "resource_name": RESOURCE_NAMES[path],
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
        limited = await self._limited(REGISTER, request)
        if limited is not None:  # an API key changes nothing here: registrations are counted per address
            return error_response(limited)
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
        service's page, a program OAuth's JSON error. The app hears back once the person has decided. Too many
        requests from one address are refused before anything is stored, on the service's own page too.
        """
        accept = RequestHeaders.of(request.scope).accept or ""
        refused = await self._limited(AUTHORIZE, request)
        if refused is not None:
            if self.refusal_page is not None and "text/html" in accept:
                return self.refusal_page(request, refused)
            return error_response(refused)
        service = self._service(request)
        try:
            query = parameters(request.scope.get("query_string", b""))
            checked = await service.authorization_request(query)
        except AuthorizationProblem as problem:
            if self.problem_page is not None and "text/html" in accept:
                return self.problem_page(request, problem.description)
            return oauth_error(problem.error, problem.description)
        consent = await service.authorize(checked.client, checked.params)
        return RedirectResponse(consent, status_code=302, headers=NO_STORE)

    async def token(self, request: Request) -> Response:
        """Swap a code (with its PKCE verifier) or a refresh token for fresh tokens bound to the grant's resource.

        Too many requests from one address get 429 in OAuth's error shape, with `Retry-After`."""
        refused = await self._limited(TOKEN, request)
        if refused is not None:
            answer = oauth_error("temporarily_unavailable", refused.message, refused.status)
            answer.headers.update(refused.headers)
            return answer
        try:
            body = await self._body(request)
        except ServiceError as error:
            return error_response(error)
        form = _form(body)
        requested = form.get("resource")
        service = self._service(request, None if requested is None else str(requested))
        if requested is not None and service.target(str(requested)) is None:
            served = " or ".join(service.resources)
            return oauth_error("invalid_target", f"This server issues tokens for {served} only.")
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

    async def _body(self, request: Request) -> bytes:
        return await self.access.read_body(request.receive, RequestHeaders.of(request.scope), MAX_BODY)


def _form(body: bytes) -> dict[str, Any]:
    try:
        return dict(parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=20))
    except (UnicodeDecodeError, ValueError):
        return {}


def oauth_routes(
    oauth: OAuthService,
    access: Access,
    problem_page: ProblemPage | None = None,
    refusal_page: RefusalPage | None = None,
) -> list[BaseRoute]:
    """The OAuth routes, for `create_app`'s route list."""
    endpoints = OAuthEndpoints(oauth, access, problem_page, refusal_page)
    return [
        *(Route(PROTECTED_RESOURCE + path, endpoints.resource_metadata, methods=["GET"]) for path in RESOURCE_NAMES),
        Route(PROTECTED_RESOURCE, endpoints.resource_metadata, methods=["GET"]),
        Route(AUTHORIZATION_SERVER, endpoints.server_metadata, methods=["GET"]),
        Route("/register", endpoints.register, methods=["POST"]),
        Route("/authorize", endpoints.authorize, methods=["GET"]),
        Route("/token", endpoints.token, methods=["POST"]),
        Route("/revoke", endpoints.revoke, methods=["POST"]),
    ]
