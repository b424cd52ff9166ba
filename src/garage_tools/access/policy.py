"""The access decision: who is calling (address, key, tier), what a call counts against, and whether a
browser must pass the challenge. The HTTP gates in `surfaces/gate.py` apply it, in the same order on every
surface; the pages use its base URL, client addresses and limits.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import replace
from typing import Protocol

from starlette.types import Receive, Scope

from garage_tools.access.body import BodyDeadlines, read_body
from garage_tools.access.caller import Caller, Tier
from garage_tools.access.challenge import ChallengeVerifier
from garage_tools.access.client_ip import ClientAddressResolver, rate_limit_partition
from garage_tools.access.credentials import (
    ANONYMOUS,
    Credentials,
    KnownHeaders,
    authenticate_token,
    bearer_token,
)
from garage_tools.access.keys import KeyService
from garage_tools.access.limits import Limits, Per
from garage_tools.access.oauth import OAuthService
from garage_tools.access.oauth_resources import RESOURCE_OF_SURFACE
from garage_tools.access.origins import OriginPolicy, origin_of
from garage_tools.access.ratelimit import Decision, LimitReached, Policy, RateLimiter
from garage_tools.access.usage import UsageCounter
from garage_tools.errors import InvalidKey, RateLimited, ServiceError
from garage_tools.headers import RequestHeaders
from garage_tools.key_format import EXAMPLE
from garage_tools.values import value

_TIER_NAMES = {tier: tier.value for tier in Tier}  # enum attribute access is slow on the hot path


@value
class Challenge:
    """What a call offers the browser challenge: the token it carried (None: none) and the service's base URL
    (a page of the service itself is never challenged)."""

    token: object
    base_url: str


class BaseUrlOf(Protocol):
    """The public base URL for a request (`surfaces/urls.py`): of its `scope`, with its `headers` when in hand."""

    def __call__(self, scope: Scope, headers: RequestHeaders | None = None, /) -> str: ...


class Access:
    """The service-wide access policy: keys, client addresses, origins, limits, the challenge and body bounds."""

    def __init__(
        self,
        *,
        keys: KeyService,
        apps: OAuthService,
        limiter: RateLimiter,
        limits: Limits,
        challenge: ChallengeVerifier,
        origins: OriginPolicy,
        addresses: ClientAddressResolver,
        base_url: BaseUrlOf,
        body_timeout: float,
        usage: UsageCounter | None = None,
    ) -> None:
        self.keys = keys
        self.apps = apps
        self.limiter = limiter
        self.limits = limits
        self.challenge = challenge
        self.origins = origins
        self.addresses = addresses
        self.base_url = base_url
        self.body_timeout = body_timeout
        self.usage = usage
        self.body_deadlines = BodyDeadlines()
        self.known_headers = KnownHeaders(keys, apps)

    def client_ip(self, scope: Scope) -> str | None:
        """The address the request came from (through trusted proxies only)."""
        return self.addresses.resolve(scope, RequestHeaders.of(scope))

    async def identify(self, scope: Scope, headers: RequestHeaders, surface: str) -> Caller:
        """The caller of this request: its address, and the tier its key (or no key) gives it."""
        ip = self.addresses.resolve(scope, headers)
        partition = rate_limit_partition(ip)
        authorization = headers.authorization
        credentials = self.known_headers.credentials(authorization) if authorization else ANONYMOUS
        if credentials is None:  # a well-formed key or token the caches do not hold: the store must tell
            credentials = await self._looked_up(bearer_token(authorization[0]) or "", partition)
        if credentials.only_on is not None and RESOURCE_OF_SURFACE.get(surface) != credentials.only_on:
            message = (
                f"This access token was issued for {credentials.only_on} only (the OAuth resource it names). "
                f"Elsewhere, send an API key: 'Authorization: Bearer {EXAMPLE}'."
            )
            credentials = Credentials(tier=Tier.PUBLIC, error=InvalidKey(message))
        plan = self.limits.plan(credentials.plan, credentials.tier)
        if plan.per is Per.KEY and credentials.key_id is not None:
            partition = f"key:{credentials.key_id}"
        else:
            partition = f"{_TIER_NAMES[credentials.tier]}:{partition}"
        return Caller(
            tier=credentials.tier,
            surface=surface,
            ip=ip,
            key_id=credentials.key_id,
            origin=headers.origin,
            credential_error=credentials.error,
            partition=partition,
            plan=plan.name,
        )

    async def _looked_up(self, token: str, partition: str) -> Credentials:
        """The credentials of a token only the store can tell (`known_credentials` could not), unless the address
        keeps sending bad keys.

        Forged keys with a valid checksum are cheap to make and each unknown id costs a store
        lookup, so after `limits.auth_failures` bad keys an address gets 429 for its keyed calls
        until the window passes. Keys already in the cache never come here.
        """
        budget = await self.limiter.peek(partition, [self.limits.auth_failures])
        if not budget.allowed:
            error = RateLimited(
                f"Too many invalid API keys from this address: its keyed calls are refused for "
                f"{budget.retry_after} seconds. Calls without a key still work.",
                headers={"Retry-After": str(budget.retry_after)},
            )
            return Credentials(tier=Tier.PUBLIC, error=error)
        credentials = await authenticate_token(token, self.keys, self.apps)
        if isinstance(credentials.error, InvalidKey):
            await self.limiter.check(partition, [self.limits.auth_failures])
        return credentials

    def read_body(self, receive: Receive, headers: RequestHeaders, limit: int) -> Awaitable[bytes]:
        """The request body, refused over `limit` bytes or slower than the body timeout, or holding a character
        the service cannot keep (`access/body.py`). The reader's own coroutine: no second one on every call."""
        return read_body(
            receive,
            declared_length=headers.content_length,
            content_type=headers.content_type,
            limit=limit,
            seconds=self.body_timeout,
            deadlines=self.body_deadlines,
        )

    async def rate_limit(self, caller: Caller, policies: Sequence[Policy]) -> Decision:
        return await self.limiter.check(caller.partition, policies)

    async def count_rule(self, rule: str, ip: str | None, *, partition: str | None = None) -> Decision:
        """Count one request against rule `rule` of the table (`access/limits.py`), for the client address `ip`,
        or for `partition` when the rule counts something else (an e-mail address's hash). When it is full, the
        decision's `error()` is the refusal: use `refused(rule, decision)` for its words."""
        bucket = partition if partition is not None else rate_limit_partition(ip)
        return await self.limiter.check(f"{rule}:{bucket}", [self.limits.policy(rule)])

    def refused(self, rule: str, decision: Decision) -> RateLimited:
        """The 429 of a full rule, in words that name what it counts (no tier, no key advice: these are not tool
        calls), with `Retry-After` and the `RateLimit` fields."""
        return self.limits.refusal(rule, decision)

    async def admit_call(
        self, caller: Caller, tool: str, challenge: Challenge | None = None
    ) -> tuple[Decision, Caller]:
        """The one door of a tool call, whatever the surface (REST, MCP, the pages' own form posts): the caller's
        credential holds, the call fits its plan's limits and the tool's usage cap, and a browser that must passes
        the `challenge` (MCP offers none: browser pages reach it only from origins the operator admitted). Raises
        the refusal: `LimitReached` for a full limit; a refused challenge gives back the reservation, the tool will
        not run, and says what the call counted.

        The limits and the cap are counted in one atomic step. The cap's unit is reserved, not spent: the caller
        returned carries the reservation, for `invoke` to settle once the tool's outcome is known
        (`access/limits.py` `UsageCap`).
        """
        caller.refuse_bad_credential()
        policies, cap = self.limits.for_call(caller.plan, tool)
        decision = await self.limiter.check(caller.partition, policies, reserve=cap)
        if not decision.allowed:
            raise LimitReached(decision)
        if caller.key_id is not None and self.usage is not None:
            self.usage.note(caller.key_id)  # a dictionary increment; written in batches (`access/usage.py`)
        if decision.reservation is not None:
            caller = replace(caller, reservation=decision.reservation)
        if challenge is not None and self.needs_challenge(caller):
            try:
                await self.challenge_browser(caller, challenge.token, challenge.base_url)
            except ServiceError as error:
                await give_back_unsettled(caller)
                error.headers.update(decision.header_fields())
                raise
        return decision, caller

    def needs_challenge(self, caller: Caller) -> bool:
        """A browser caller without a key, while the challenge is on (its origin is checked next)."""
        return caller.origin is not None and self.challenge.enabled and not caller.has_bearer  # most have none

    def challenges(self, origin: str | None, base_url: str) -> bool:
        """Whether a page at `origin` calling without a key must pass the browser challenge: the challenge is
        on, and the page is neither the service itself nor a site the operator admitted."""
        if not self.challenge.enabled or origin is None:
            return False
        return not self.origins.is_same_site(origin, origin_of(base_url))

    async def challenge_browser(self, caller: Caller, token: object, base_url: str) -> None:
        """Verify the browser challenge unless the page is the service itself or a site the operator admitted."""
        if not self.challenges(caller.origin, base_url):
            return
        await self.challenge.verify(token if isinstance(token, str) else None, remote_ip=caller.ip)


async def give_back_unsettled(caller: Caller) -> None:
    """Give back a usage-cap reservation `invoke` did not settle: the call ended before the tool ran (a challenge
    refused, the MCP SDK answered the message itself, an unsupported protocol revision, a page's call that
    failed first)."""
    if caller.reservation is not None:
        await caller.reservation.give_back()
