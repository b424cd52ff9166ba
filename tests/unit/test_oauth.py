"""OAuth grants and tokens through the real store, on SQLite and PostgreSQL, with a clock that moves when told:
every lifetime (the pending request, the code, the access and the refresh token) is tested at its edge."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp.server.auth.provider import AuthorizationParams, TokenError
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
from pydantic import AnyUrl
from sqlalchemy import inspect, select

from garage_tools.access.keys import KeyCache
from garage_tools.access.oauth import (
    ACCESS_LIFETIME,
    CODE_LIFETIME,
    PENDING_LIFETIME,
    REFRESH_GRACE,
    REFRESH_LIFETIME,
    OAuthService,
    redirect_uri_problem,
)
from garage_tools.access.oauth_resources import same_resource
from garage_tools.store.database import Database
from garage_tools.store.models import OAuthToken
from garage_tools.store.oauth import OAuthRepository
from tests.databases import migrate_to, throwaway_url
from tests.fakes.clock import FakeClock

ISSUER = "https://doors.example.com"
RESOURCE = f"{ISSUER}/mcp-pro"
REDIRECT = "http://127.0.0.1:4321/callback"
EMAIL = "dev@example.com"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def oauth(database: Database, clock: FakeClock) -> OAuthService:
    return OAuthService(OAuthRepository(database, clock), KeyCache(ttl=60, clock=lambda: clock().timestamp()), clock)


async def client_of(oauth: OAuthService) -> OAuthClientInformationFull:
    metadata = OAuthClientMetadata(
        redirect_uris=[AnyUrl(REDIRECT)], client_name="Test", token_endpoint_auth_method="none"
    )
    return await oauth.register(metadata)


async def allowed_code(oauth: OAuthService, client: OAuthClientInformationFull, resource: str = RESOURCE) -> str:
    """A code the person allowed for `resource`, as the consent page's Allow gives it."""
    params = AuthorizationParams(
        state="s",
        scopes=["pro"],
        code_challenge="c" * 43,
        redirect_uri=AnyUrl(REDIRECT),
        redirect_uri_provided_explicitly=True,
        resource=resource,
    )
    path = await oauth.at(ISSUER).authorize(client, params)
    grant = await oauth.pending(path.rsplit("/", 1)[1])
    assert grant is not None
    target = await oauth.allow(grant, EMAIL, ISSUER)
    assert target is not None and target.startswith(REDIRECT + "?code=")
    return target.split("code=", 1)[1].split("&", 1)[0]


async def test_tokens_live_their_lifetimes_and_refresh_rotates(oauth: OAuthService, clock: FakeClock) -> None:
    client = await client_of(oauth)
    code = await oauth.load_authorization_code(client, await allowed_code(oauth, client))
    assert code is not None and code.subject == EMAIL and code.resource == RESOURCE
    tokens = await oauth.exchange_authorization_code(client, code)
    assert (await oauth.verify(tokens.access_token)) is not None
    clock.advance(ACCESS_LIFETIME.total_seconds() - 1)
    assert (await oauth.verify(tokens.access_token)) is not None
    clock.advance(1)
    assert (await oauth.verify(tokens.access_token)) is None  # expired, though still in the cache
    assert tokens.refresh_token
    refresh = await oauth.load_refresh_token(client, tokens.refresh_token)
    assert refresh is not None
    rotated = await oauth.exchange_refresh_token(client, refresh, ["pro"])
    assert rotated.refresh_token != tokens.refresh_token
    assert (await oauth.verify(rotated.access_token)) is not None
    assert rotated.refresh_token
    clock.advance(REFRESH_LIFETIME.total_seconds())
    assert (await oauth.load_refresh_token(client, rotated.refresh_token)) is None


async def test_a_reused_refresh_token_revokes_the_family_at_once(oauth: OAuthService, clock: FakeClock) -> None:
    client = await client_of(oauth)
    code = await oauth.load_authorization_code(client, await allowed_code(oauth, client))
    assert code is not None
    tokens = await oauth.exchange_authorization_code(client, code)
    assert tokens.refresh_token
    first = await oauth.load_refresh_token(client, tokens.refresh_token)
    assert first is not None
    rotated = await oauth.exchange_refresh_token(client, first, ["pro"])
    clock.advance(REFRESH_GRACE.total_seconds() + 1)
    assert (await oauth.load_refresh_token(client, tokens.refresh_token)) is None  # used, past the grace window
    assert (await oauth.verify(rotated.access_token)) is None  # revoked in this process: at once
    assert await oauth.connected(EMAIL) == []


async def test_a_refresh_retried_within_the_grace_window_gets_the_same_tokens(
    oauth: OAuthService, clock: FakeClock, database: Database
) -> None:
    client = await client_of(oauth)
    code = await oauth.load_authorization_code(client, await allowed_code(oauth, client))
    assert code is not None
    tokens = await oauth.exchange_authorization_code(client, code)
    assert tokens.refresh_token
    first = await oauth.load_refresh_token(client, tokens.refresh_token)
    assert first is not None
    # Two exchanges of one token at once (a client that retried on a timeout): both get the one new pair.
    one, two = await asyncio.gather(*(oauth.exchange_refresh_token(client, first, ["pro"]) for _ in range(2)))
    assert (one.access_token, one.refresh_token) == (two.access_token, two.refresh_token)
    clock.advance(REFRESH_GRACE.total_seconds() - 1)
    again = await oauth.load_refresh_token(client, tokens.refresh_token)
    assert again is not None
    retried = await oauth.exchange_refresh_token(client, again, ["pro"])
    assert (retried.access_token, retried.refresh_token) == (one.access_token, one.refresh_token)
    assert retried.expires_in is not None and one.expires_in is not None and retried.expires_in < one.expires_in
    assert (await oauth.verify(one.access_token)) is not None and len(await oauth.connected(EMAIL)) == 1
    async with database.session() as session:  # what the store keeps opens with the spent token only
        kept = [row for row in (await session.scalars(select(OAuthToken.successor))).all() if row]
    assert len(kept) == 1 and one.access_token.encode() not in kept[0] and one.refresh_token.encode() not in kept[0]
    clock.advance(2)
    assert (await oauth.load_refresh_token(client, tokens.refresh_token)) is None  # past the window: revoked
    assert (await oauth.verify(one.access_token)) is None


async def test_a_lost_race_past_the_grace_window_revokes(oauth: OAuthService, clock: FakeClock) -> None:
    client = await client_of(oauth)
    code = await oauth.load_authorization_code(client, await allowed_code(oauth, client))
    assert code is not None
    tokens = await oauth.exchange_authorization_code(client, code)
    assert tokens.refresh_token
    first = await oauth.load_refresh_token(client, tokens.refresh_token)
    assert first is not None
    rotated = await oauth.exchange_refresh_token(client, first, ["pro"])
    clock.advance(REFRESH_GRACE.total_seconds() + 1)
    with pytest.raises(TokenError):  # a second exchange of the same token (a race lost) is refused too
        await oauth.exchange_refresh_token(client, first, ["pro"])
    assert (await oauth.verify(rotated.access_token)) is None  # revoked in this process: at once
    assert rotated.refresh_token and (await oauth.load_refresh_token(client, rotated.refresh_token)) is None
    assert await oauth.connected(EMAIL) == []


async def test_codes_and_pending_requests_expire(oauth: OAuthService, clock: FakeClock) -> None:
    client = await client_of(oauth)
    code = await allowed_code(oauth, client)
    clock.advance(CODE_LIFETIME.total_seconds())
    assert (await oauth.load_authorization_code(client, code)) is None
    params = AuthorizationParams(
        state=None,
        scopes=None,
        code_challenge="c" * 43,
        redirect_uri=AnyUrl(REDIRECT),
        redirect_uri_provided_explicitly=False,
        resource=None,
    )
    grant_id = (await oauth.at(ISSUER).authorize(client, params)).rsplit("/", 1)[1]
    pending = await oauth.pending(grant_id)
    assert pending is not None and pending.resource == RESOURCE  # no indicator: bound to /mcp-pro all the same
    clock.advance(PENDING_LIFETIME.total_seconds())
    assert await oauth.pending(grant_id) is None
    assert await oauth.allow(pending, EMAIL, ISSUER) is None


async def test_a_revocation_elsewhere_takes_effect_within_the_cache_time(
    database: Database, oauth: OAuthService, clock: FakeClock
) -> None:
    client = await client_of(oauth)
    code = await oauth.load_authorization_code(client, await allowed_code(oauth, client))
    assert code is not None
    tokens = await oauth.exchange_authorization_code(client, code)
    grant = await oauth.verify(tokens.access_token)  # now cached here
    assert grant is not None
    elsewhere = OAuthService(OAuthRepository(database, clock))
    assert (await elsewhere.revoke(grant.id, email="someone@else.example")) is None  # not theirs
    assert (await elsewhere.revoke(grant.id, email=EMAIL)) is not None
    assert (await oauth.verify(tokens.access_token)) is not None  # this process learns it within the cache time
    clock.advance(60)
    assert (await oauth.verify(tokens.access_token)) is None


def test_redirect_uris_and_resources() -> None:
    for good in (REDIRECT, "http://localhost:3334/cb", "http://[::1]:80/cb", "https://claude.ai/api/mcp/auth_callback"):
        assert redirect_uri_problem(good) is None, good
    for bad in ("http://evil.example/cb", "http://127.0.0.1.evil.example/cb", "https://a.example/cb#x", "myapp://cb"):
        assert redirect_uri_problem(bad) is not None, bad
    assert same_resource("HTTPS://Doors.Example.com/mcp-pro/", RESOURCE)
    assert not same_resource("https://doors.example.com/mcp", RESOURCE)


async def test_a_grant_for_the_answers_endpoint_is_bound_to_it(oauth: OAuthService) -> None:
    client = await client_of(oauth)
    code = await oauth.load_authorization_code(client, await allowed_code(oauth, client, f"{ISSUER}/v1/"))
    assert code is not None and code.resource == f"{ISSUER}/v1"  # the resource served, as the service names it
    with pytest.raises(TokenError) as other:  # asked for /mcp-pro with a code for /v1
        await oauth.at(ISSUER, requested=RESOURCE).exchange_authorization_code(client, code)
    assert other.value.error == "invalid_target"
    tokens = await oauth.at(ISSUER, requested=f"{ISSUER}/v1").exchange_authorization_code(client, code)
    grant = await oauth.verify(tokens.access_token)
    assert grant is not None and grant.resource == "/v1"
    assert oauth.at(ISSUER).target("https://elsewhere.example/v1") is None


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_migration_0010_adds_the_oauth_tables_and_goes_back(kind: str, tmp_path: Path) -> None:
    async with throwaway_url(kind, tmp_path) as url:
        database = Database(url)
        try:
            await database.migrate()

            def tables(sync: object) -> set[str]:
                return set(inspect(sync).get_table_names())

            async with database.engine.begin() as connection:
                assert {"oauth_clients", "oauth_grants", "oauth_tokens"} <= await connection.run_sync(tables)
            await migrate_to(database, "0009")
            async with database.engine.begin() as connection:
                assert not {"oauth_clients", "oauth_grants", "oauth_tokens"} & await connection.run_sync(tables)
        finally:
            await database.dispose()
