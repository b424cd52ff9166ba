"""The browser challenge: checking a Cloudflare Turnstile token with the siteverify API.

A browser page on an origin we do not know, calling without an API key, proves a person is
behind it by solving a Turnstile widget; the widget's token arrives in `challengeToken` and is
checked here, server to server. The access gate decides *when* a token is needed; this module
only decides whether one is good.

Turnstile itself checks the signature, the 300-second lifetime and single use. The rest is
ours: the hostname and action the token was issued for, and refusing the request (failing
closed) whenever siteverify cannot give an answer.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Iterable
from types import TracebackType
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, StrictBool, ValidationError

from garage_tools.errors import ChallengeFailed, ChallengeRequired, ServiceUnavailable
from garage_tools.settings import Settings

log = logging.getLogger(__name__)

TURNSTILE_VERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify"
TURNSTILE_SCRIPT_URL = "https://challenges.cloudflare.com/turnstile/v0/api.js"
CHALLENGE_FIELD = "challengeToken"
MAX_TOKEN_LENGTH = 2048  # Turnstile's own limit; anything longer is not a token
RETRY_AFTER_SECONDS = 5

#: siteverify error codes that mean our request was wrong (secret, shape): nothing a caller can fix.
OUR_MISTAKES = frozenset({"missing-input-secret", "invalid-input-secret", "bad-request"})
#: The one code siteverify documents as worth retrying.
TRANSIENT = "internal-error"
SPENT = "timeout-or-duplicate"

REQUIRED_MESSAGE = (
    f"This browser request needs a challenge token. Render the Turnstile widget on your page, wait for its "
    f"callback, and send the token it gives you (the `cf-turnstile-response` value) as `{CHALLENGE_FIELD}` in the "
    f"JSON body. Server-side callers can send `Authorization: Bearer <key>` instead."
)
TOO_LONG_MESSAGE = (
    f"`{CHALLENGE_FIELD}` is longer than {MAX_TOKEN_LENGTH} characters, so it is not a Turnstile token. "
    f"Send the widget's token unchanged."
)
REJECTED_MESSAGE = (
    f"The challenge token was rejected. Send the token exactly as the Turnstile widget produced it, from a "
    f"widget using this service's site key; call `turnstile.reset()` and send the new token as `{CHALLENGE_FIELD}`."
)
SPENT_MESSAGE = (
    f"The challenge token has expired or was already used: a token is valid for 300 seconds and for one "
    f"request. Call `turnstile.reset()` after each request and send the new token as `{CHALLENGE_FIELD}`."
)
UNAVAILABLE_MESSAGE = (
    f"The challenge token could not be checked right now. Retry the request in {RETRY_AFTER_SECONDS} seconds; "
    f"if the retry answers `challenge_failed`, call `turnstile.reset()` and send a new token."
)


class SiteverifyAnswer(BaseModel):
    """The parts of a siteverify answer we act on; other fields (cdata, metadata, messages) are ignored."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    success: StrictBool  # strict: a malformed answer must never read as a pass
    error_codes: list[str] | None = Field(default=None, alias="error-codes")
    hostname: str | None = None
    action: str | None = None
    challenge_ts: str | None = None


class _NoAnswer(Exception):
    """siteverify gave no usable answer; the message says why and is safe to log."""


class ChallengeVerifier:
    """Verifies challenge tokens with siteverify over one long-lived HTTP client.

    Without a secret the challenge is off: `enabled` is False and `verify` accepts everything.
    Close it with `aclose()` (or use it as an async context manager) when the service stops.
    """

    def __init__(
        self,
        secret: SecretStr | None,
        *,
        verify_url: str = TURNSTILE_VERIFY_URL,
        timeout_seconds: float = 3.0,
        hostnames: Iterable[str] = (),
        action: str | None = None,
        site_key: str | None = None,
        script_url: str = TURNSTILE_SCRIPT_URL,
    ) -> None:
        #: What a page needs to render the challenge (public): `GET /challenge` hands them out.
        self.site_key = site_key or None
        self.script_url = script_url
        self._secret = secret if secret is not None and secret.get_secret_value() else None
        self.verify_url = verify_url
        self.timeout_seconds = timeout_seconds
        self.hostnames = frozenset(name.strip().lower() for name in hostnames if name.strip())
        self.action = action or None
        self._client = (
            httpx.AsyncClient(timeout=timeout_seconds, headers={"User-Agent": "garage-tools challenge verifier"})
            if self._secret is not None
            else None
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> ChallengeVerifier:
        return cls(
            settings.challenge_secret,
            verify_url=settings.challenge_verify_url,
            timeout_seconds=settings.challenge_timeout_seconds,
            hostnames=settings.challenge_hostnames,
            action=settings.challenge_action,
            site_key=settings.challenge_site_key,
            script_url=settings.challenge_script_url,
        )

    @property
    def enabled(self) -> bool:
        """Whether browser callers must present a challenge token at all."""
        return self._secret is not None

    def describe(self) -> str:
        """One line for the start-up log."""
        if not self.enabled:
            return "browser challenge: off (no GARAGE_TOOLS_CHALLENGE_SECRET)"
        line = f"browser challenge: on, verifying with {urlsplit(self.verify_url).netloc}"
        if self.hostnames:
            line += f"; hostnames {', '.join(sorted(self.hostnames))}"
        if self.action:
            line += f"; action {self.action}"
        if self.site_key is None:
            line += "; no GARAGE_TOOLS_CHALLENGE_SITE_KEY, so the widget cannot pass it"
        return line

    async def verify(self, token: str | None, *, remote_ip: str | None) -> None:
        """Return if `token` is a good, unspent token for our hostnames and action; raise otherwise.

        Raises `ChallengeRequired` (403) for a missing or blank token and `ChallengeFailed` (403)
        for a token siteverify rejects or reports spent, one over 2048 characters, or one issued
        for another hostname or action.

        When siteverify cannot answer (timeout, connection error, 5xx, a body that is not its
        JSON, `internal-error` twice, or a refusal of our own secret) the request is refused,
        never let through, with `ServiceUnavailable` (503, `Retry-After`) rather than
        `challenge_failed`: the token may well be good, and a 403 would send the widget
        developer (and the person) to solve a fresh challenge that fails the same way, while a
        503 says "ours, retry shortly". It also keeps an outage apart from rejected tokens in
        monitoring. The token may have been spent by the attempt that lost its answer, so the
        message says to fetch a new token if the retry reports `challenge_failed`.

        One idempotency key per call makes the one retry after a transport error or 5xx safe
        (siteverify replays its first answer instead of calling the token spent), while a
        second request with the same token still gets a fresh key and so `challenge_failed`.
        The secret and the token are never logged.
        """
        if self._client is None or self._secret is None:
            return
        if token is None or not token.strip():
            raise ChallengeRequired(REQUIRED_MESSAGE)
        if len(token) > MAX_TOKEN_LENGTH:
            raise ChallengeFailed(TOO_LONG_MESSAGE)
        form = {
            "secret": self._secret.get_secret_value(),
            "response": token,
            "idempotency_key": str(uuid.uuid4()),
        }
        if remote_ip:
            form["remoteip"] = remote_ip
        self._judge(await self._ask(self._client, form))

    async def _ask(self, client: httpx.AsyncClient, form: dict[str, str]) -> SiteverifyAnswer:
        """siteverify's answer, retried once on a transport error, 5xx or `internal-error`, all within the budget."""
        try:
            async with asyncio.timeout(self.timeout_seconds):
                problem = ""
                for _attempt in range(2):
                    try:
                        response = await client.post(self.verify_url, data=form)
                    except httpx.RequestError as exc:
                        problem = type(exc).__name__  # the exception text is not logged: keep it to the class
                        continue
                    if response.status_code >= 500:
                        problem = f"HTTP {response.status_code}"
                        continue
                    answer = _parse(response)
                    if answer.error_codes and TRANSIENT in answer.error_codes:
                        problem = TRANSIENT
                        continue
                    return answer
                raise _NoAnswer(f"{problem} on both attempts")
        except TimeoutError:
            reason = f"no answer within {self.timeout_seconds:g} s"
        except _NoAnswer as exc:
            reason = str(exc)
        log.warning("browser challenge: %s gave no usable answer (%s); request refused", self._host, reason)
        raise ServiceUnavailable(UNAVAILABLE_MESSAGE, retry_after=RETRY_AFTER_SECONDS)

    def _judge(self, answer: SiteverifyAnswer) -> None:
        codes = set(answer.error_codes or ())
        if not answer.success:
            if codes & OUR_MISTAKES:
                log.error(
                    "browser challenge: %s refused our request (%s); check GARAGE_TOOLS_CHALLENGE_SECRET",
                    self._host,
                    ", ".join(sorted(codes)),
                )
                raise ServiceUnavailable(UNAVAILABLE_MESSAGE, retry_after=RETRY_AFTER_SECONDS)
            log.debug("browser challenge: token rejected (%s)", ", ".join(sorted(codes)) or "no error code")
            raise ChallengeFailed(SPENT_MESSAGE if SPENT in codes else REJECTED_MESSAGE)
        hostname = (answer.hostname or "").lower()
        if self.hostnames and hostname not in self.hostnames:
            log.debug("browser challenge: token solved on an unexpected hostname")
            where = f"a page at {hostname!r}" if hostname else "a page with no hostname"
            raise ChallengeFailed(
                f"The challenge was solved on {where}, which this service "
                f"does not accept. Serve the Turnstile widget from this service's own site, or ask its operator to "
                f"add your hostname to GARAGE_TOOLS_CHALLENGE_HOSTNAMES."
            )
        if self.action is not None and answer.action != self.action:
            log.debug("browser challenge: token issued for an unexpected action")
            issued_for = f"action {answer.action!r}" if answer.action else "no action"
            raise ChallengeFailed(
                f"The challenge token was issued for {issued_for}, but this service expects action "
                f'{self.action!r}. Render the Turnstile widget with `data-action="{self.action}"` and send its '
                f"new token as `{CHALLENGE_FIELD}`."
            )

    @property
    def _host(self) -> str:
        return urlsplit(self.verify_url).netloc

    async def aclose(self) -> None:
        """Close the HTTP client; the verifier cannot be used afterwards."""
        if self._client is not None:
            await self._client.aclose()

    async def __aenter__(self) -> ChallengeVerifier:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _parse(response: httpx.Response) -> SiteverifyAnswer:
    """A siteverify answer, leniently: unknown fields are fine, a body without a boolean `success` is not."""
    try:
        return SiteverifyAnswer.model_validate_json(response.content)
    except ValidationError:
        raise _NoAnswer(f"HTTP {response.status_code} with a body that is not a siteverify answer") from None
