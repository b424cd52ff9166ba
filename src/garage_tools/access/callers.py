"""Who is calling: the `Authorization` header and the client address become a `Caller`."""

from __future__ import annotations

from garage_tools.access.keys import PREFIX, KeyService
from garage_tools.errors import InvalidKey
from garage_tools.registry import Caller, Tier


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header; "" for a header of another shape."""
    if authorization is None or not authorization.strip():
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return ""
    return token.strip()


async def identify(authorization: str | None, *, surface: str, ip: str | None, keys: KeyService) -> Caller:
    """A valid key means the pro tier, no key the public tier, and anything else `invalid_key`."""
    token = bearer_token(authorization)
    if token is None:
        return Caller(tier=Tier.PUBLIC, surface=surface, ip=ip)
    record = await keys.verify(token) if token else None
    if record is None:
        hint = (
            "The Authorization header must be 'Bearer <key>'."
            if token == ""
            else f"The API key is not valid or has been revoked. Keys start with '{PREFIX}'."
        )
        return Caller(tier=Tier.PUBLIC, surface=surface, ip=ip, credential_error=InvalidKey(hint))
    return Caller(tier=Tier.PRO, surface=surface, ip=ip, key_id=record.id)
