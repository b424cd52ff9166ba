"""The browser-challenge verifier, through its real HTTP client, against a stand-in siteverify on loopback."""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from pydantic import SecretStr

from garage_tools.access.challenge import TURNSTILE_SCRIPT_URL, TURNSTILE_VERIFY_URL, ChallengeVerifier
from garage_tools.errors import ChallengeFailed, ChallengeRequired, ServiceError, ServiceUnavailable
from garage_tools.settings import Settings
from tests.fakes.siteverify import DUMMY_TOKEN, FAIL_SECRET, PASS_SECRET, SPENT_SECRET, FakeSiteverify, Misbehaviour

MakeVerifier = Callable[..., ChallengeVerifier]


@pytest.fixture
async def make_verifier(siteverify: FakeSiteverify) -> AsyncIterator[MakeVerifier]:
    """Verifiers pointed at the stand-in; all closed after the test."""
    made: list[ChallengeVerifier] = []

    def make(secret: str = PASS_SECRET, **options: Any) -> ChallengeVerifier:
        options.setdefault("verify_url", siteverify.url)
        verifier = ChallengeVerifier(SecretStr(secret), **options)
        made.append(verifier)
        return verifier

    yield make
    for verifier in made:
        await verifier.aclose()


def assert_error(error: ServiceError, status: int, code: str) -> None:
    body = error.envelope()["error"]
    assert (body["status"], body["code"]) == (status, code)


async def test_good_token_passes_and_sends_secret_ip_and_idempotency_key(
    make_verifier: MakeVerifier, siteverify: FakeSiteverify
) -> None:
    await make_verifier().verify("token-good", remote_ip="203.0.113.7")

    [sent] = siteverify.requests
    assert sent.secret == PASS_SECRET
    assert sent.response == "token-good"
    assert sent.remoteip == "203.0.113.7"
    assert sent.idempotency_key is not None
    assert uuid.UUID(sent.idempotency_key).version == 4


async def test_remote_ip_is_optional(make_verifier: MakeVerifier, siteverify: FakeSiteverify) -> None:
    await make_verifier().verify("token-no-ip", remote_ip=None)
    assert siteverify.requests[0].remoteip is None


async def test_rejected_token_fails(make_verifier: MakeVerifier) -> None:
    with pytest.raises(ChallengeFailed) as caught:
        await make_verifier(FAIL_SECRET).verify("token-bad", remote_ip=None)
    assert_error(caught.value, 403, "challenge_failed")
    assert "turnstile.reset()" in caught.value.message


async def test_already_spent_token_fails_and_says_to_get_a_new_one(make_verifier: MakeVerifier) -> None:
    with pytest.raises(ChallengeFailed) as caught:
        await make_verifier(SPENT_SECRET).verify("token-spent", remote_ip=None)
    assert_error(caught.value, 403, "challenge_failed")
    assert "already used" in caught.value.message


async def test_a_token_works_for_one_request_only(make_verifier: MakeVerifier, siteverify: FakeSiteverify) -> None:
    verifier = make_verifier()
    await verifier.verify("token-once", remote_ip=None)
    with pytest.raises(ChallengeFailed, match="already used"):
        await verifier.verify("token-once", remote_ip=None)
    first, second = siteverify.requests
    assert first.idempotency_key != second.idempotency_key


async def test_answer_lost_to_a_500_is_retried_safely(make_verifier: MakeVerifier, siteverify: FakeSiteverify) -> None:
    # The first attempt spends the token but its answer is lost; the retry must not read as a reuse.
    siteverify.misbehave("http_500", times=1)
    await make_verifier().verify("token-retried", remote_ip=None)
    first, second = siteverify.requests
    assert first.response == second.response == "token-retried"
    assert first.idempotency_key == second.idempotency_key


async def test_persistent_500_fails_closed_after_one_retry(
    make_verifier: MakeVerifier, siteverify: FakeSiteverify
) -> None:
    siteverify.misbehave("http_500")
    with pytest.raises(ServiceUnavailable) as caught:
        await make_verifier().verify("token-500", remote_ip=None)
    assert_error(caught.value, 503, "service_unavailable")
    assert caught.value.headers["Retry-After"] == "5"
    assert len(siteverify.requests) == 2


async def test_internal_error_is_retried_then_fails_closed(
    make_verifier: MakeVerifier, siteverify: FakeSiteverify
) -> None:
    verifier = make_verifier()
    siteverify.misbehave("internal_error", times=1)
    await verifier.verify("token-internal-once", remote_ip=None)

    siteverify.misbehave("internal_error")
    with pytest.raises(ServiceUnavailable):
        await verifier.verify("token-internal-always", remote_ip=None)


async def test_slow_verifier_fails_closed(make_verifier: MakeVerifier, siteverify: FakeSiteverify) -> None:
    siteverify.misbehave("slow")
    with pytest.raises(ServiceUnavailable) as caught:
        await make_verifier(timeout_seconds=0.2).verify("token-slow", remote_ip=None)
    assert_error(caught.value, 503, "service_unavailable")


async def test_answer_that_is_not_json_fails_closed(make_verifier: MakeVerifier, siteverify: FakeSiteverify) -> None:
    siteverify.misbehave("not_json")
    with pytest.raises(ServiceUnavailable):
        await make_verifier().verify("token-html", remote_ip=None)


async def test_unreachable_verifier_fails_closed() -> None:
    with socket.socket() as closed:  # bound but not listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        async with ChallengeVerifier(SecretStr(PASS_SECRET), verify_url=f"http://127.0.0.1:{port}/") as verifier:
            with pytest.raises(ServiceUnavailable):
                await verifier.verify("token-nowhere", remote_ip=None)


async def test_our_own_bad_secret_is_not_blamed_on_the_caller(
    make_verifier: MakeVerifier, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="garage_tools"), pytest.raises(ServiceUnavailable):
        await make_verifier("0x-not-a-real-secret").verify("token-x", remote_ip=None)
    assert "GARAGE_TOOLS_CHALLENGE_SECRET" in caplog.text
    assert "0x-not-a-real-secret" not in caplog.text


async def test_token_from_another_hostname_fails(make_verifier: MakeVerifier, siteverify: FakeSiteverify) -> None:
    siteverify.hostname = "phish.example.net"
    with pytest.raises(ChallengeFailed) as caught:
        await make_verifier(hostnames=["app.example.com"]).verify("token-elsewhere", remote_ip=None)
    assert "phish.example.net" in caught.value.message


async def test_token_from_an_allowed_hostname_passes_whatever_the_case(
    make_verifier: MakeVerifier, siteverify: FakeSiteverify
) -> None:
    siteverify.hostname = "App.Example.com"
    await make_verifier(hostnames=["other.example.org", "app.example.COM"]).verify("token-home", remote_ip=None)


async def test_token_for_another_action_fails(make_verifier: MakeVerifier, siteverify: FakeSiteverify) -> None:
    verifier = make_verifier(action="diagnose")
    siteverify.action = "login"
    with pytest.raises(ChallengeFailed) as caught:
        await verifier.verify("token-login", remote_ip=None)
    assert 'data-action="diagnose"' in caught.value.message

    siteverify.action = "diagnose"
    await verifier.verify("token-diagnose", remote_ip=None)


@pytest.mark.parametrize("token", [None, "", "   "])
async def test_missing_token_is_required(
    token: str | None, make_verifier: MakeVerifier, siteverify: FakeSiteverify
) -> None:
    with pytest.raises(ChallengeRequired) as caught:
        await make_verifier().verify(token, remote_ip="203.0.113.7")
    assert_error(caught.value, 403, "challenge_required")
    assert "challengeToken" in caught.value.message
    assert siteverify.requests == []


async def test_over_long_token_fails_without_asking(make_verifier: MakeVerifier, siteverify: FakeSiteverify) -> None:
    verifier = make_verifier()
    with pytest.raises(ChallengeFailed, match="2048"):
        await verifier.verify("x" * 2049, remote_ip=None)
    assert siteverify.requests == []
    await verifier.verify("y" * 2048, remote_ip=None)


async def test_secret_and_token_are_never_logged(
    make_verifier: MakeVerifier, siteverify: FakeSiteverify, caplog: pytest.LogCaptureFixture
) -> None:
    token = "token-that-must-stay-private"
    with caplog.at_level(logging.DEBUG):
        cases: list[tuple[str, Misbehaviour | None]] = [
            (PASS_SECRET, "http_500"),
            (PASS_SECRET, "not_json"),
            (FAIL_SECRET, None),
        ]
        for secret, how in cases:
            siteverify.reset()
            if how:
                siteverify.misbehave(how)
            with pytest.raises(ServiceError):
                await make_verifier(secret).verify(token, remote_ip=None)
    assert caplog.records  # the failures were logged, just not their secrets
    assert PASS_SECRET not in caplog.text
    assert FAIL_SECRET not in caplog.text
    assert token not in caplog.text


async def test_without_a_secret_the_challenge_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_SECRET", "")
    verifier = ChallengeVerifier.from_settings(Settings(_env_file=None))
    assert not verifier.enabled
    assert verifier.describe() == "browser challenge: off (no GARAGE_TOOLS_CHALLENGE_SECRET)"
    await verifier.verify(None, remote_ip=None)
    await verifier.aclose()


async def test_settings_configure_the_verifier(siteverify: FakeSiteverify, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_SECRET", PASS_SECRET)
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_VERIFY_URL", siteverify.url)
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_HOSTNAMES", "app.example.com, example.com")
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_ACTION", "diagnose")
    siteverify.action = "diagnose"
    settings = Settings(_env_file=None)
    assert PASS_SECRET not in repr(settings)
    async with ChallengeVerifier.from_settings(settings) as verifier:
        assert verifier.enabled
        assert verifier.describe().startswith(f"browser challenge: on, verifying with 127.0.0.1:{siteverify.port}")
        await verifier.verify("token-configured", remote_ip=None)


def test_default_settings_verify_with_turnstile() -> None:
    settings = Settings(_env_file=None)
    assert settings.challenge_secret is None
    assert settings.challenge_verify_url == TURNSTILE_VERIFY_URL
    assert settings.challenge_timeout_seconds == 3


@pytest.mark.parametrize("name", ["challenge_verify_url", "challenge_script_url"])
def test_challenge_urls_must_be_absolute(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(f"GARAGE_TOOLS_{name.upper()}", "challenges.cloudflare.com/turnstile")
    with pytest.raises(ValueError, match=name):
        Settings(_env_file=None)


def test_pages_get_the_site_key_and_script_and_the_log_misses_a_site_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_SECRET", PASS_SECRET)
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_SITE_KEY", " ")
    without = ChallengeVerifier.from_settings(Settings(_env_file=None))
    assert without.site_key is None and without.script_url == TURNSTILE_SCRIPT_URL
    assert "no GARAGE_TOOLS_CHALLENGE_SITE_KEY" in without.describe()
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_SITE_KEY", "1x00000000000000000000AA")
    monkeypatch.setenv("GARAGE_TOOLS_CHALLENGE_SCRIPT_URL", "http://127.0.0.1:9/turnstile.js")
    configured = ChallengeVerifier.from_settings(Settings(_env_file=None))
    assert (configured.site_key, configured.script_url) == (
        "1x00000000000000000000AA",
        "http://127.0.0.1:9/turnstile.js",
    )
    assert "SITE_KEY" not in configured.describe()


@pytest.mark.skipif(
    not os.environ.get("GARAGE_TOOLS_TEST_ONLINE"), reason="set GARAGE_TOOLS_TEST_ONLINE=1 to call Cloudflare"
)
async def test_real_turnstile_with_its_test_secrets() -> None:
    async with ChallengeVerifier(SecretStr(PASS_SECRET)) as passing:
        await passing.verify(DUMMY_TOKEN, remote_ip=None)
    async with ChallengeVerifier(SecretStr(FAIL_SECRET)) as failing:
        with pytest.raises(ChallengeFailed):
            await failing.verify(DUMMY_TOKEN, remote_ip=None)
