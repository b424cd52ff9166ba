"""The edges of OAuth requests (`access/oauth_requests.py`) and the sweep of requests nobody answered, through the
real store on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
from pydantic import AnyUrl
from sqlalchemy import func, inspect, select

from garage_tools.access.oauth import PENDING_LIFETIME, SCOPE, OAuthService
from garage_tools.access.oauth_requests import (
    AuthorizationProblem,
    authorization_request,
    matching_redirect,
    parameters,
    same_loopback_redirect,
)
from garage_tools.store.database import Database
from garage_tools.store.models import OAuthGrant
from garage_tools.store.oauth import SWEEP_EVERY, OAuthRepository
from tests.databases import migrate_to, throwaway_url
from tests.fakes.clock import FakeClock

BASE = "https://doors.example.com"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


async def registered(oauth: OAuthService, *uris: str, name: str = "Test") -> OAuthClientInformationFull:
    metadata = OAuthClientMetadata(
        redirect_uris=[AnyUrl(uri) for uri in uris], client_name=name, token_endpoint_auth_method="none"
    )
    return await oauth.register(metadata)


def query(redirect: str, **changes: str) -> dict[str, str]:
    return {
        "client_id": "c",
        "response_type": "code",
        "redirect_uri": redirect,
        "code_challenge": CHALLENGE,
        "code_challenge_method": "S256",
        "scope": SCOPE,
        **changes,
    }


async def pending_rows(database: Database) -> int:
    async with database.session() as session:
        return int(await session.scalar(select(func.count()).select_from(OAuthGrant)) or 0)


async def test_requests_nobody_answered_are_swept_as_new_ones_come(database: Database) -> None:
    clock = FakeClock()
    oauth = OAuthService(OAuthRepository(database, clock), clock=clock, base_url=BASE)
    client = await registered(oauth, "https://app.example/cb")
    for _ in range(5):
        checked = await oauth.authorization_request(query("https://app.example/cb", client_id=client.client_id))
        await oauth.authorize(checked.client, checked.params)
    assert await pending_rows(database) == 5
    clock.advance((PENDING_LIFETIME + SWEEP_EVERY).total_seconds())
    await oauth.authorize(checked.client, checked.params)
    assert await pending_rows(database) == 1  # the five expired ones went; the new one waits


def test_loopback_redirects_match_on_scheme_host_and_path_with_any_port() -> None:
    assert same_loopback_redirect("http://127.0.0.1:50123/cb", "http://127.0.0.1/cb")
    assert same_loopback_redirect("http://[::1]:6000/cb?x=1", "http://[::1]:7000/cb?x=1")
    assert same_loopback_redirect("http://localhost:6000/cb", "http://localhost:7000/cb")
    assert not same_loopback_redirect("http://127.0.0.1:50123/other", "http://127.0.0.1/cb")
    assert not same_loopback_redirect("http://localhost:50123/cb", "http://127.0.0.1/cb")
    assert not same_loopback_redirect("https://127.0.0.1:50123/cb", "https://127.0.0.1/cb")  # loopback is http
    assert not same_loopback_redirect("https://app.example:8443/cb", "https://app.example/cb")
    assert not same_loopback_redirect("http://user@127.0.0.1:1/cb", "http://127.0.0.1/cb")
    assert not same_loopback_redirect("http://127.0.0.1:99999/cb", "http://127.0.0.1/cb")


async def test_each_parameter_is_checked_and_bounded(database: Database) -> None:
    oauth = OAuthService(OAuthRepository(database), base_url=BASE)
    client = await registered(oauth, "https://app.example/cb", "http://127.0.0.1/cb")
    good = query("https://app.example/cb")
    assert authorization_request(good, client, SCOPE).params.code_challenge == CHALLENGE
    bad = {
        "response_type": "token",
        "code_challenge": "short",
        "code_challenge_method": "plain",
        "scope": "pro admin",
        "state": "s" * 501,
        "redirect_uri": "https://app.example/other",
    }
    for name, value in bad.items():
        with pytest.raises(AuthorizationProblem):
            authorization_request({**good, name: value}, client, SCOPE)
    with pytest.raises(AuthorizationProblem):
        matching_redirect(client, None)  # two registered: which one?
    with pytest.raises(AuthorizationProblem):
        parameters(b"client_id=a&client_id=b")
    with pytest.raises(AuthorizationProblem):
        parameters(b"&".join(b"p%d=1" % n for n in range(30)))


async def test_a_registered_name_is_kept_cleaned(database: Database) -> None:
    oauth = OAuthService(OAuthRepository(database), base_url=BASE)
    client = await registered(oauth, "https://app.example/cb", name="Good\u202e\u200b\r\nApp")
    assert client.client_name == "Good App"


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_migration_0013_adds_the_sealed_successor_and_goes_back(kind: str, tmp_path: Path) -> None:
    async with throwaway_url(kind, tmp_path) as url:
        database = Database(url)
        try:
            await database.migrate()

            def columns(sync: object) -> set[str]:
                return {column["name"] for column in inspect(sync).get_columns("oauth_tokens")}

            async with database.engine.begin() as connection:
                assert "successor" in await connection.run_sync(columns)
            await migrate_to(database, "0012")
            async with database.engine.begin() as connection:
                assert "successor" not in await connection.run_sync(columns)
        finally:
            await database.dispose()
