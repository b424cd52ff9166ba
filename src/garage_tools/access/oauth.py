"""OAuth 2.1 for `/mcp-pro` and `/v1`: the rules of clients, grants and tokens (HTTP: `surfaces/oauth.py`).

Hosted AI connectors cannot be given a static key; they follow the MCP authorization specification. A
client registers itself (public: no secret, PKCE S256 instead), sends the person to `/authorize`, the
person signs in to the developer portal and allows it, and the client swaps the code for tokens bound to
the resource it names (RFC 8707) with the one scope `pro`: `/mcp-pro` (the default, what MCP connectors ask for)
or `/v1` (the OpenAI-compatible answers, for chat and voice products). A token works only where it was issued
for: each resource has its own metadata, and a token for one is refused on the other.

Tokens are opaque, like API keys: `svc_at_` / `svc_rt_` and 256 random bits, only their SHA-256 stored
(`access/tokens.py`). An access token lives an hour and is the developer's pro identity exactly as a
API key is: the same gate, limits and key cache (so a revocation in another process takes effect
within the key cache time). A refresh token lives 90 days and is rotated on every use; presenting a spent
one (or a spent code) revokes the whole grant, since one of the two parties holding it is not the client,
except within `REFRESH_GRACE` of its use: a client that retried after a timeout gets the same new tokens.

`OAuthService` answers the SDK's `OAuthAuthorizationServerProvider` protocol, so the SDK's authorize and
token handlers can run over it; `at(base_url)` binds it to the public URLs of its resources for one request.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    IdentityAssertionParams,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

from garage_tools.access.keys import KeyCache
from garage_tools.access.oauth_requests import (
    MAX_ID,
    AuthorizationProblem,
    AuthorizationRequest,
    authorization_request,
    client_id_of,
    redirect_uri_problem,
    registration_problem,
)
from garage_tools.access.oauth_resources import (
    RESOURCE_NAMES,
    RESOURCE_PATH,
    resource_path,
    resource_url,
    same_resource,
)
from garage_tools.access.tokens import new_secret, secret_hash
from garage_tools.inputs import shown
from garage_tools.sealing import seal, unseal
from garage_tools.store.oauth import ACCESS, CODE, REFRESH, GrantRecord, NewToken, OAuthRepository, TokenRecord
from garage_tools.store.portal import Clock, utc_now

log = logging.getLogger(__name__)

SCOPE = "pro"
#: The consent page, under the portal so the portal's session cookie (path `/developers`) reaches it.
CONSENT_PATH = "/developers/authorize/"
ACCESS_PREFIX = "svc_at_"
REFRESH_PREFIX = "svc_rt_"
ACCESS_LIFETIME = timedelta(hours=1)
REFRESH_LIFETIME = timedelta(days=90)
CODE_LIFETIME = timedelta(minutes=5)
#: How long an authorization waits for the person: long enough to sign in by an e-mailed link (15 minutes).
PENDING_LIFETIME = timedelta(minutes=30)
#: How long a rotated refresh token, presented again, gets the same new tokens rather than revoking the grant:
#: long enough for a client that retries after a timeout, too short to be of use to a thief who is not fast.
REFRESH_GRACE = timedelta(seconds=10)
MAX_REDIRECT_URIS = 10
MAX_CLIENT_NAME = 200
_TOKEN_LENGTH = len(ACCESS_PREFIX) + len(new_secret())


@dataclass(frozen=True, slots=True)
class AccessGrant:
    """What an access token proves, as cached by token hash: the grant (`id`), whose it is and until when."""

    id: str
    email: str
    expires_at: datetime
    client_id: str = ""
    plan: str | None = None  # the grant's own plan; None: the default plan
    resource: str = RESOURCE_PATH  # the path of the resource it was issued for: where it works


class GrantCode(AuthorizationCode):
    grant_id: str


class GrantRefreshToken(RefreshToken):
    grant_id: str
    successor: bytes | None = None  # set when this is a retry within the grace window: what it gave before


class OAuthService:
    """Register clients, hold authorizations for the person's decision, issue, rotate, verify and revoke tokens."""

    def __init__(
        self,
        repository: OAuthRepository,
        cache: KeyCache[AccessGrant] | None = None,
        clock: Clock = utc_now,
        base_url: str = "",
        requested: str | None = None,
    ) -> None:
        self.repository = repository
        self.cache: KeyCache[AccessGrant] = cache or KeyCache(ttl=0)
        self.clock = clock
        #: The public URLs of the resources, the default first.
        self.resources = [resource_url(base_url, path) for path in RESOURCE_NAMES]
        self.resource = self.resources[0]
        self.requested = requested  # the resource a token request names, if it names one

    def at(self, base_url: str, requested: str | None = None) -> OAuthService:
        """This service, for a request to the service at `base_url` (its public URL); `requested` is the resource
        a token request names (RFC 8707), checked against the grant's when the tokens are issued."""
        return OAuthService(self.repository, self.cache, self.clock, base_url, requested)

    def target(self, given: str | None) -> str | None:
        """The resource URL a client's indicator names (the default for none), or None for one not served here."""
        if given is None:
            return self.resource
        return next((resource for resource in self.resources if same_resource(given, resource)), None)

    def _check_target(self, granted: str | None) -> None:
        """A token request that names a resource must name the one its grant was issued for (RFC 8707 §2.2)."""
        if self.requested is not None and (granted is None or not same_resource(self.requested, granted)):
            raise TokenError("invalid_target", f"This grant is for {granted}; connect the app again for another.")

    # -- registration (RFC 7591) ------------------------------------------------------------------

    async def register(self, metadata: OAuthClientMetadata) -> OAuthClientInformationFull:
        """Register a public client: its redirect URIs checked, PKCE instead of a secret, scope `pro`.

        A server may replace what a client asked for (RFC 7591 §3.2.1): every client is registered with
        `token_endpoint_auth_method` "none" and the grants this server has, and told so in the answer.
        """
        uris = [str(uri) for uri in metadata.redirect_uris or []]
        if len(uris) > MAX_REDIRECT_URIS:
            raise RegistrationError("invalid_redirect_uri", f"Register at most {MAX_REDIRECT_URIS} redirect URIs.")
        for uri in uris:
            if (problem := redirect_uri_problem(uri)) is not None:
                raise RegistrationError("invalid_redirect_uri", problem)
        if (problem := registration_problem(metadata.model_dump(mode="json", exclude_none=True))) is not None:
            raise RegistrationError("invalid_client_metadata", problem)
        if "authorization_code" not in metadata.grant_types or "code" not in metadata.response_types:
            raise RegistrationError("invalid_client_metadata", "This server offers the authorization code grant only.")
        if metadata.scope is not None and set(metadata.scope.split()) - {SCOPE}:
            raise RegistrationError("invalid_client_metadata", f"The one scope offered is {SCOPE!r}.")
        name = shown(metadata.client_name or "", MAX_CLIENT_NAME) or "An unnamed application"
        information = OAuthClientInformationFull.model_validate(
            {
                **metadata.model_dump(exclude_none=True),
                "client_name": name,
                "client_id": secrets.token_urlsafe(18),
                "client_id_issued_at": int(time.time()),
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "scope": SCOPE,
            }
        )
        document = information.model_dump(mode="json", exclude_none=True)
        await self.repository.add_client(information.client_id, name, uris, document)
        return information

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if not client_id or len(client_id) > MAX_ID:
            return None
        record = await self.repository.client(client_id)
        return OAuthClientInformationFull.model_validate(record.document) if record else None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        raise RegistrationError("invalid_client_metadata", "Register through POST /register.")

    # -- the person's decision ----------------------------------------------------------------------

    async def authorization_request(self, query: Mapping[str, str]) -> AuthorizationRequest:
        """An `/authorize` request checked in full (`access/oauth_requests.py`), or `AuthorizationProblem`."""
        client_id = client_id_of(query)
        client = await self.get_client(client_id)
        if client is None:
            raise AuthorizationProblem("invalid_request", f"no app is registered here as {client_id!r}")
        request = authorization_request(query, client, SCOPE)
        if self.target(request.params.resource) is None:
            served = " or ".join(self.resources)
            raise AuthorizationProblem("invalid_target", f"this server issues tokens for {served} only")
        return request

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """Hold the request for the person's decision; the consent page's path (where `/authorize` redirects).
        Requests nobody answered are purged as new ones come (at most once a minute per process)."""
        now = self.clock()
        grant = GrantRecord(
            id=secrets.token_hex(16),  # hex: a base64 id opening with "-" reads as an option to `apps revoke`
            client_id=client.client_id,
            email=None,
            redirect_uri=str(params.redirect_uri),
            redirect_uri_explicit=params.redirect_uri_provided_explicitly,
            code_challenge=params.code_challenge,
            state=params.state,
            scope=SCOPE,
            resource=self.target(params.resource) or self.resource,
            created_at=now,
            expires_at=now + PENDING_LIFETIME,
            allowed_at=None,
            revoked_at=None,
        )
        await self.repository.add_grant(grant)
        return CONSENT_PATH + grant.id

    async def pending(self, grant_id: str) -> GrantRecord | None:
        """The authorization waiting for a decision under this id, or None (unknown, decided or expired)."""
        if not grant_id or len(grant_id) > MAX_ID:
            return None
        grant = await self.repository.grant(grant_id)
        if grant is None or grant.allowed_at or grant.revoked_at or grant.expires_at <= self.clock():
            return None
        return grant

    async def allow(self, grant: GrantRecord, email: str, issuer: str) -> str | None:
        """The person allowed it: the client's redirect URI with a fresh code, or None if no longer pending.

        `iss` names this server in the answer (RFC 9207), so a client talking to several cannot be fooled
        into sending this code to another."""
        code = new_secret()
        if not await self.repository.decide(grant.id, email, NewToken(secret_hash(code), CODE, CODE_LIFETIME)):
            return None
        log.info("oauth: grant %s allowed for client %s", grant.id, grant.client_id)
        return construct_redirect_uri(grant.redirect_uri, code=code, state=grant.state, iss=issuer)

    async def deny(self, grant: GrantRecord, issuer: str) -> str | None:
        """The person said no: the client's redirect URI with `access_denied`, or None if no longer pending."""
        if not await self.repository.decide(grant.id, None, None):
            return None
        description = "The person declined to connect this application."
        return construct_redirect_uri(
            grant.redirect_uri, error="access_denied", error_description=description, state=grant.state, iss=issuer
        )

    # -- codes and tokens ---------------------------------------------------------------------------

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> GrantCode | None:
        if len(authorization_code) > MAX_ID:
            return None
        record = await self.repository.token(secret_hash(authorization_code), CODE)
        if record is None or record.grant.client_id != client.client_id:
            return None
        if record.used_at is not None:
            await self._replayed(record.grant.id, "authorization code")
            return None
        if not record.grant.live or record.expires_at <= self.clock():
            return None
        grant = record.grant
        return GrantCode(
            code=authorization_code,
            scopes=grant.scope.split(),
            expires_at=record.expires_at.timestamp(),
            client_id=grant.client_id,
            code_challenge=grant.code_challenge,
            redirect_uri=AnyUrl(grant.redirect_uri),
            redirect_uri_provided_explicitly=grant.redirect_uri_explicit,
            resource=grant.resource,
            subject=grant.email,
            grant_id=grant.id,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: GrantCode
    ) -> OAuthToken:
        self._check_target(authorization_code.resource)
        return await self._rotate(authorization_code.code, authorization_code.grant_id, "authorization code")

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> GrantRefreshToken | None:
        if not refresh_token.startswith(REFRESH_PREFIX) or len(refresh_token) > MAX_ID + len(REFRESH_PREFIX):
            return None
        record = await self.repository.token(secret_hash(refresh_token), REFRESH)
        if record is None or record.grant.client_id != client.client_id:
            return None
        successor = None
        if record.used_at is not None:
            if not self._in_grace(record):
                await self._replayed(record.grant.id, "refresh token")
                return None
            successor = record.successor
        if not record.grant.live or record.expires_at <= self.clock():
            return None
        return GrantRefreshToken(
            successor=successor,
            token=refresh_token,
            client_id=record.grant.client_id,
            scopes=record.grant.scope.split(),
            expires_at=int(record.expires_at.timestamp()),
            resource=record.grant.resource,
            subject=record.grant.email,
            grant_id=record.grant.id,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: GrantRefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self._check_target(refresh_token.resource)
        if refresh_token.successor is not None:  # a retry within the grace window: what the first use gave
            return await self._given_before(refresh_token.token, refresh_token.successor, refresh_token.grant_id)
        return await self._rotate(refresh_token.token, refresh_token.grant_id, "refresh token")

    async def _rotate(self, spent: str, grant_id: str, what: str) -> OAuthToken:
        """Spend a code or refresh token and issue a fresh access and refresh token in its place.

        A refresh token keeps the new pair sealed under itself (`sealing.seal`: the store holds its hash
        only, so nobody who reads the store can open it), for a retry within `REFRESH_GRACE`."""
        access, refresh = ACCESS_PREFIX + new_secret(), REFRESH_PREFIX + new_secret()
        issued = [
            NewToken(secret_hash(access), ACCESS, ACCESS_LIFETIME),
            NewToken(secret_hash(refresh), REFRESH, REFRESH_LIFETIME),
        ]
        answer = OAuthToken(
            access_token=access,
            expires_in=int(ACCESS_LIFETIME.total_seconds()),
            scope=SCOPE,
            refresh_token=refresh,
        )
        successor = None
        if spent.startswith(REFRESH_PREFIX):
            kept = {"answer": answer.model_dump(mode="json"), "at": self.clock().timestamp()}
            successor = seal(spent, orjson.dumps(kept).decode())
        if not await self.repository.exchange(secret_hash(spent), grant_id, issued, successor):
            record = await self.repository.token(secret_hash(spent), REFRESH) if successor else None
            if record is not None and record.successor is not None and self._in_grace(record):
                return await self._given_before(spent, record.successor, grant_id)  # a concurrent retry won
            await self._replayed(grant_id, what)  # a concurrent use of the same one won
            raise TokenError("invalid_grant", f"The {what} was already used.")
        return answer

    def _in_grace(self, record: TokenRecord) -> bool:
        return record.used_at is not None and self.clock() - record.used_at <= REFRESH_GRACE

    async def _given_before(self, spent: str, successor: bytes, grant_id: str) -> OAuthToken:
        """The tokens a refresh token was exchanged for, opened with the token itself; revoked if they cannot be."""
        opened = unseal(spent, successor)
        if opened is None:
            await self._replayed(grant_id, "refresh token")
            raise TokenError("invalid_grant", "The refresh token was already used.")
        kept = orjson.loads(opened)
        answer = OAuthToken.model_validate(kept["answer"])
        age = int(self.clock().timestamp() - float(kept["at"]))
        log.info("oauth: a refresh of grant %s was retried within the grace window: the same tokens again", grant_id)
        return answer.model_copy(update={"expires_in": max(1, int(ACCESS_LIFETIME.total_seconds()) - age)})

    async def _replayed(self, grant_id: str, what: str) -> None:
        log.warning("oauth: a spent %s of grant %s was presented again: the grant is revoked", what, grant_id)
        await self.revoke(grant_id)

    # -- the gate's side ----------------------------------------------------------------------------

    def cached(self, token: str) -> tuple[bool, AccessGrant | None]:
        """What this process can tell of `token` without the store: (answered, its live grant, or None).

        Answered is False only for an access token the cache does not hold (now); anything that is not an access
        token is answered: None.
        """
        if not token.startswith(ACCESS_PREFIX) or len(token) != _TOKEN_LENGTH:
            return True, None
        found, grant = self.cache.get(secret_hash(token))
        return (True, self._live(grant)) if found else (False, None)

    async def verify(self, token: str) -> AccessGrant | None:
        """The live grant an access token belongs to, or None (unknown, expired, revoked, or not one)."""
        answered, grant = self.cached(token)
        if answered:
            return grant
        token_hash = secret_hash(token)
        record = await self.repository.token(token_hash, ACCESS)
        grant = None
        if record is not None and record.grant.live and record.grant.email is not None:
            grant = AccessGrant(
                record.grant.id,
                record.grant.email,
                record.expires_at,
                record.grant.client_id,
                record.grant.plan,
                resource_path(record.grant.resource or ""),
            )
        self.cache.put(token_hash, grant)
        return self._live(grant)

    def _live(self, grant: AccessGrant | None) -> AccessGrant | None:
        return None if grant is None or grant.expires_at <= self.clock() else grant

    async def load_access_token(self, token: str) -> AccessToken | None:
        grant = await self.verify(token)
        if grant is None:
            return None
        expires = int(grant.expires_at.timestamp())
        return AccessToken(
            token=token, client_id=grant.client_id, scopes=[SCOPE], expires_at=expires, subject=grant.email
        )

    async def revoke_for(self, client_id: str, token: str) -> None:
        """A client gives up an access or refresh token of its own (RFC 7009): its whole grant is revoked."""
        if token.startswith(REFRESH_PREFIX) and len(token) <= MAX_ID + len(REFRESH_PREFIX):
            record = await self.repository.token(secret_hash(token), REFRESH)
            grant_id = record.grant.id if record and record.grant.client_id == client_id else None
        else:
            access = await self.verify(token)
            grant_id = access.id if access and access.client_id == client_id else None
        if grant_id is not None:
            await self.revoke(grant_id)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        if isinstance(token, GrantRefreshToken):
            await self.revoke(token.grant_id)
        elif (grant := await self.verify(token.token)) is not None:
            await self.revoke(grant.id)

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "This server offers the authorization code grant only.")

    # -- connected apps -----------------------------------------------------------------------------

    async def connected(self, email: str | None) -> list[GrantRecord]:
        """The applications `email` (everyone: None) has connected and not revoked, newest first."""
        return await self.repository.connected(email)

    async def set_plan(self, grant_id: str, plan: str | None) -> GrantRecord | None:
        """Put a connected app on `plan`; this process's cache forgets it at once, others within the key cache time."""
        record = await self.repository.set_plan(grant_id, plan)
        self.cache.forget(grant_id)
        return record

    async def revoke(self, grant_id: str, email: str | None = None) -> GrantRecord | None:
        """Revoke a grant and all its tokens (only `email`'s when given); at once in this process, elsewhere
        within the key cache time."""
        if not grant_id or len(grant_id) > MAX_ID:
            return None
        record = await self.repository.revoke(grant_id, email=email)
        self.cache.forget(grant_id)
        return record
