"""The `Authorization` header becomes a tier: a valid key (or OAuth access token) means pro, no key public,
anything else an error."""

from __future__ import annotations

from garage_tools.access.caller import Tier
from garage_tools.access.keys import KeyService
from garage_tools.access.oauth import ACCESS_PREFIX, AccessGrant, OAuthService
from garage_tools.errors import InvalidHeader, InvalidKey, ServiceError, ServiceUnavailable
from garage_tools.key_format import PREFIX
from garage_tools.store.api_keys import KeyRecord
from garage_tools.values import value


@value
class Credentials:
    tier: Tier
    key_id: str | None = None
    error: ServiceError | None = None
    only_on: str | None = None  # the one endpoint an OAuth access token is bound to (RFC 8707)
    plan: str | None = None  # the key's (or connected app's) own plan; None: the default plan


ANONYMOUS = Credentials(tier=Tier.PUBLIC)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header; "" for a header of another shape."""
    stripped = authorization.strip() if authorization is not None else ""
    if not stripped:
        return None
    scheme, _, token = stripped.partition(" ")
    token = token.strip()
    if not token or scheme.lower() != "bearer":
        return ""
    return token


async def authenticate(authorization: list[str], keys: KeyService, apps: OAuthService | None = None) -> Credentials:
    """The credentials an `Authorization` header list carries: an API key, or an OAuth access token of `apps`."""
    known = known_header_credentials(authorization, keys, apps)
    return known if known is not None else await authenticate_token(bearer_token(authorization[0]), keys, apps)


def known_header_credentials(
    authorization: list[str], keys: KeyService, apps: OAuthService | None = None
) -> Credentials | None:
    """`known_credentials` of an `Authorization` header list.

    Two headers are refused: RFC 9110 forbids repeating a singleton header, and servers that
    pick different ones (the first, the last) let one request mean two callers.
    """
    if len(authorization) > 1:
        return Credentials(
            tier=Tier.PUBLIC,
            error=InvalidHeader(f"Send one Authorization header; this request has {len(authorization)}."),
        )
    return known_credentials(bearer_token(authorization[0] if authorization else None), keys, apps)


def known_credentials(token: str | None, keys: KeyService, apps: OAuthService | None = None) -> Credentials | None:
    """The credentials of the one `Authorization` header's token (as `bearer_token` read it; None: no header), when
    this process can tell them without its store: no header, a token of no valid shape, or a key or access token
    its caches hold. None when only the store can tell.

    A keyed call is answered here, with no coroutine, once its key is in the cache: the gate asks this before it
    weighs a store look-up (`Access`), and `authenticate_token` asks it first.
    """
    if token is None:
        return ANONYMOUS
    if apps is not None and token.startswith(ACCESS_PREFIX):
        answered, grant = apps.cached(token)
        return _grant_credentials(grant) if answered else None
    if not token:
        return _key_credentials(token, None)
    answered, record = keys.cached(token)
    return _key_credentials(token, record) if answered else None


class KnownHeaders:
    """The credentials of the `Authorization` headers of recent keyed calls, told again with one look-up.

    Telling a cached key took some 30 calls, a dozen of them Python functions: reading the header, the key's hash
    (remembered), the cache and its clock, and a new `Credentials`. They made a keyed call about a tenth dearer than
    an anonymous one (24k instructions). An active
    API key's header is kept here with its credentials for as long as the key cache trusts the key's record, and no
    longer:
    - a revocation or a new plan made through this process makes the cache forget, and that forgets every header
      kept here at once (`KeyCache.generation`);
    - one made in another process reaches this one when the record's cache entry expires, as before.
    Every call told here still records its key's use. OAuth access tokens are not kept (they take the usual way).
    Bounded: cleared when full, as the other caches of recent requests are.
    """

    MAX_REMEMBERED = 4096

    def __init__(self, keys: KeyService, apps: OAuthService | None = None) -> None:
        self.keys = keys
        self.apps = apps
        #: header value -> (trusted until, on the key cache's clock; the cache's generation then; credentials; record)
        self._seen: dict[str, tuple[float, int, Credentials, KeyRecord]] = {}

    def credentials(self, authorization: list[str]) -> Credentials | None:
        """`known_header_credentials` of `authorization`: from memory when its one header is a key told lately."""
        if len(authorization) == 1:
            seen = self._seen.get(authorization[0])
            if seen is not None:
                until, generation, credentials, record = seen
                cache = self.keys.cache
                if generation == cache.generation and cache.clock() < until:
                    self.keys.record_use(record)
                    return credentials
                del self._seen[authorization[0]]
        known = known_header_credentials(authorization, self.keys, self.apps)
        if known is not None and known.key_id is not None and known.only_on is None and len(authorization) == 1:
            self._remember(authorization[0], known)
        return known

    def _remember(self, header: str, credentials: Credentials) -> None:
        """Keep the credentials of a header that named an active API key, as long as the cache trusts the key."""
        token = bearer_token(header)
        trusted = self.keys.trusted(token) if token else None
        if trusted is None:
            return
        if len(self._seen) >= self.MAX_REMEMBERED:
            self._seen.clear()
        until, record = trusted
        self._seen[header] = (until, self.keys.cache.generation, credentials, record)


async def authenticate_token(token: str | None, keys: KeyService, apps: OAuthService | None = None) -> Credentials:
    """The credentials of the one `Authorization` header's token, as `bearer_token` read it (None: no header)."""
    known = known_credentials(token, keys, apps)
    if known is not None or not token:
        return known or ANONYMOUS  # `known_credentials` answers for no token and an empty one
    if apps is not None and token.startswith(ACCESS_PREFIX):
        try:
            grant = await apps.verify(token)
        except ServiceUnavailable as outage:
            error = ServiceUnavailable(
                "Access tokens cannot be checked right now because the store is unreachable; retry shortly.",
                retry_after=int(outage.headers.get("Retry-After", "5")),
            )
            return Credentials(tier=Tier.PUBLIC, error=error)
        return _grant_credentials(grant)
    try:
        record = await keys.verify(token)
    except ServiceUnavailable as outage:
        error = ServiceUnavailable(
            "API keys cannot be checked right now because the key store is unreachable; "
            "retry shortly. Calls without a key are unaffected.",
            retry_after=int(outage.headers.get("Retry-After", "5")),
        )
        return Credentials(tier=Tier.PUBLIC, error=error)
    return _key_credentials(token, record)


def _key_credentials(token: str, record: KeyRecord | None) -> Credentials:
    """Pro for an active key's record; for anything else, the error that says what was wrong with `token`."""
    if record is None:
        hint = (
            "The Authorization header must be 'Bearer <key>'."
            if token == ""
            else f"The API key is not valid or has been revoked. Keys start with '{PREFIX}'."
        )
        return Credentials(tier=Tier.PUBLIC, error=InvalidKey(hint))
    return Credentials(tier=Tier.PRO, key_id=record.id, plan=record.plan)


def _grant_credentials(grant: AccessGrant | None) -> Credentials:
    """Pro for a live OAuth grant, on the one endpoint it was issued for; an error for anything else."""
    if grant is None:
        hint = "The access token is not valid, has expired or was revoked: refresh it, or connect the app again."
        return Credentials(tier=Tier.PUBLIC, error=InvalidKey(hint))
    return Credentials(tier=Tier.PRO, key_id=f"oauth:{grant.id}", only_on=grant.resource, plan=grant.plan)
