"""The browser challenge through a real server: which callers need a token, and what they get without one.

The servers verify tokens with the stand-in siteverify (tests/fakes/siteverify.py) on loopback.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.fakes.siteverify import FAIL_SECRET, PASS_SECRET, FakeSiteverify, Misbehaviour

PARTNER = "https://partner.example.com"
FOREIGN = "https://evil.example"
DIAGNOSE = "/api/v1/diagnose"


def challenge_env(siteverify: FakeSiteverify, secret: str) -> dict[str, str]:
    return {
        "GARAGE_TOOLS_CHALLENGE_SECRET": secret,
        "GARAGE_TOOLS_CHALLENGE_VERIFY_URL": siteverify.url,
        "GARAGE_TOOLS_CHALLENGE_TIMEOUT_SECONDS": "1",  # the "slow" misbehaviour then costs a second
        "GARAGE_TOOLS_ALLOWED_ORIGINS": PARTNER,
    }


def serve(tmp_path_factory: pytest.TempPathFactory, name: str, env: dict[str, str]) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp(name), env)
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory, siteverify_server: FakeSiteverify) -> Iterator[LiveServer]:
    """Challenge on, with a secret the stand-in accepts every fresh token for."""
    yield from serve(tmp_path_factory, "challenge-pass", challenge_env(siteverify_server, PASS_SECRET))


@pytest.fixture(scope="module")
def rejecting(tmp_path_factory: pytest.TempPathFactory, siteverify_server: FakeSiteverify) -> Iterator[LiveServer]:
    """Challenge on, with a secret for which the stand-in rejects every token."""
    yield from serve(tmp_path_factory, "challenge-fail", challenge_env(siteverify_server, FAIL_SECRET))


@pytest.fixture(scope="module")
def unguarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """No challenge secret; logging at info so the start-up line about the challenge is written."""
    yield from serve(
        tmp_path_factory, "challenge-off", {"GARAGE_TOOLS_ALLOWED_ORIGINS": PARTNER, "GARAGE_TOOLS_LOG_LEVEL": "info"}
    )


def diagnose(
    server: LiveServer,
    *,
    origin: str | None = None,
    token: str | None = None,
    authorization: str | None = None,
) -> httpx.Response:
    body: dict[str, object] = {"description": "the door reverses before it closes"}
    if token is not None:
        body["challengeToken"] = token
    headers = {}
    if origin is not None:
        headers["Origin"] = origin
    if authorization is not None:
        headers["Authorization"] = authorization
    return httpx.post(f"{server.url}{DIAGNOSE}", json=body, headers=headers, timeout=15)


def assert_error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (status, code)
    assert error["message"]


def assert_answered(response: httpx.Response) -> None:
    assert response.status_code == 200, response.text
    assert "error" not in response.json()


# Who must present a token.


def test_foreign_origin_without_token_is_asked_for_one(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    response = diagnose(guarded, origin=FOREIGN)
    assert_error(response, 403, "challenge_required")
    assert "challengeToken" in response.json()["error"]["message"]
    assert siteverify.requests == []  # nothing to verify


def test_foreign_origin_with_a_good_token_is_answered(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    assert_answered(diagnose(guarded, origin=FOREIGN, token="token-fresh"))
    [sent] = siteverify.requests
    assert (sent.secret, sent.response, sent.remoteip) == (PASS_SECRET, "token-fresh", "127.0.0.1")


def test_a_token_is_good_for_one_request(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    assert_answered(diagnose(guarded, origin=FOREIGN, token="token-once"))
    assert_error(diagnose(guarded, origin=FOREIGN, token="token-once"), 403, "challenge_failed")


def test_a_page_opened_from_disk_needs_a_token(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    assert_error(diagnose(guarded, origin="null"), 403, "challenge_required")
    assert_answered(diagnose(guarded, origin="null", token="token-from-disk"))


def test_an_allowlisted_partner_needs_no_token(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    assert_answered(diagnose(guarded, origin=PARTNER))
    assert siteverify.requests == []


def test_the_service_own_origin_needs_no_token(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    # No public base URL is set, so the service's origin is the one the request reached it on.
    assert guarded.url.startswith("http://127.0.0.1:")
    assert_answered(diagnose(guarded, origin=guarded.url))
    assert siteverify.requests == []


def test_a_lookalike_of_the_own_origin_needs_a_token(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    assert_error(diagnose(guarded, origin=guarded.url.replace("http://", "https://")), 403, "challenge_required")


def test_server_to_server_calls_need_no_token(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    assert_answered(diagnose(guarded))
    assert siteverify.requests == []


def test_a_valid_key_from_a_foreign_origin_needs_no_token(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    _, key = guarded.create_key()
    assert_answered(diagnose(guarded, origin=FOREIGN, authorization=f"Bearer {key}"))
    assert siteverify.requests == []


def test_an_invalid_key_from_a_foreign_origin_is_an_auth_error(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    response = diagnose(guarded, origin=FOREIGN, authorization="Bearer svc_live_notarealkey")
    assert_error(response, 401, "invalid_key")
    assert siteverify.requests == []


# Refusals a browser page can read.


def test_challenge_refusals_carry_cors_headers(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    required = diagnose(guarded, origin=FOREIGN)
    assert_answered(diagnose(guarded, origin=FOREIGN, token="token-cors"))
    spent = diagnose(guarded, origin=FOREIGN, token="token-cors")
    for response in (required, spent):
        assert response.status_code == 403
        assert response.headers["access-control-allow-origin"] == "*"


def test_challenge_refusals_still_report_the_rate_limit(guarded: LiveServer, siteverify: FakeSiteverify) -> None:
    response = diagnose(guarded, origin=FOREIGN)
    assert response.status_code == 403
    assert "ratelimit" in response.headers and "ratelimit-policy" in response.headers


def test_a_rejected_token_fails(rejecting: LiveServer, siteverify: FakeSiteverify) -> None:
    response = diagnose(rejecting, origin=FOREIGN, token="token-rejected")
    assert_error(response, 403, "challenge_failed")
    assert response.headers["access-control-allow-origin"] == "*"
    assert [sent.secret for sent in siteverify.requests] == [FAIL_SECRET]


# When siteverify cannot answer, the request is refused (fail closed) with a retry hint.


@pytest.mark.parametrize("how", ["http_500", "slow"])
def test_siteverify_outage_refuses_with_retry_after(
    how: Misbehaviour, guarded: LiveServer, siteverify: FakeSiteverify
) -> None:
    siteverify.misbehave(how)
    response = diagnose(guarded, origin=FOREIGN, token=f"token-during-{how}")
    assert_error(response, 503, "service_unavailable")
    assert int(response.headers["retry-after"]) > 0
    assert response.headers["access-control-allow-origin"] == "*"


# With no secret the challenge is off.


def test_without_a_secret_foreign_origins_are_answered(unguarded: LiveServer, siteverify: FakeSiteverify) -> None:
    assert_answered(diagnose(unguarded, origin=FOREIGN))
    assert_answered(diagnose(unguarded, origin="null"))
    assert siteverify.requests == []


def test_without_a_secret_the_start_up_log_says_the_challenge_is_off(unguarded: LiveServer) -> None:
    log = (unguarded.workdir / "server.log").read_text()
    assert sum("browser challenge: off" in line for line in log.splitlines()) == 1, log
