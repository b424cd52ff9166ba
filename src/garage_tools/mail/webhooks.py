"""Webhook deliveries: the outbox's second transport, signed per the Standard Webhooks specification.

An event for an endpoint is an outbox row (`store/webhooks.py` queues it), so it is delivered by the same
worker, with the same claims, leases and at-least-once promise as e-mail. Each attempt is signed afresh with
the `standardwebhooks` library (`webhook-id` stays the same on every retry, `webhook-timestamp` is the
attempt's, `webhook-signature` covers both and the body), POSTed once, redirects not followed, and any 2xx
counts as delivered. Anything else (another status, no answer within the timeout, a refused address) is a
failed attempt: retried with backoff, counted against the endpoint, which is turned off after
`webhook_disable_after` failures in a row (and its partner e-mailed).

Endpoint URLs pass the SSRF guard (`garage_tools/outbound.py`) when they are added and again at each
attempt (a name may resolve elsewhere by then): https on port 443 to public addresses only, unless every
address is among `GARAGE_TOOLS_WEBHOOK_ALLOW_ADDRESSES`, which may then be reached over http on any port.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy.ext.asyncio import AsyncSession
from standardwebhooks.webhooks import Webhook

from garage_tools import __version__
from garage_tools.languages import N_, Phrase
from garage_tools.mail.message import Mail, QueuedMail
from garage_tools.mail.outbox import Answer, Outbox
from garage_tools.mail.transports import PermanentFailure
from garage_tools.outbound import (
    IPAddress,
    IPNetwork,
    Resolver,
    Unresolvable,
    in_networks,
    is_public_address,
    parse_networks,
    pinned,
    resolve,
    system_resolver,
)
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from garage_tools.store.secret_key import secrets_key
from garage_tools.store.webhooks import TEST_EVENT, DisabledNotice, WebhookRepository

MAX_URL = 2000
SNIPPET = 500  # characters of an endpoint's answer kept in the delivery log


class EndpointRefused(ValueError):
    """An endpoint URL the guard will not deliver to; `reason` says why in plain words, in any reader's language
    (a `Phrase`: the console's Webhooks page says it in its reader's); `str()` is the English."""

    def __init__(self, message: str, **values: object) -> None:
        self.reason = Phrase(message, **values)
        super().__init__(str(self.reason))


class WebhookFailed(Exception):
    """One attempt failed; `answer` is what the endpoint said (status None: it said nothing)."""

    def __init__(self, reason: str, answer: Answer) -> None:
        super().__init__(reason)
        self.answer = answer


@dataclass(frozen=True, slots=True)
class EndpointRules:
    """Which endpoint URLs may be reached. The defaults are production's, less the operator's allow list."""

    allow: tuple[IPNetwork, ...] = ()
    resolver: Resolver = system_resolver
    verify: ssl.SSLContext | bool = True

    @classmethod
    def from_settings(cls, settings: Settings) -> EndpointRules:
        return cls(allow=parse_networks(settings.webhook_allow_addresses))


async def check_endpoint_url(url: str, rules: EndpointRules) -> tuple[httpx.URL, IPAddress]:
    """The URL parsed and the address to deliver to, or `EndpointRefused` saying what is wrong with it."""
    text = url.strip()
    if not text or len(text) > MAX_URL or any(not c.isprintable() or c.isspace() for c in text):
        raise EndpointRefused(N_("Enter one web address of at most {limit} characters, with no spaces."), limit=MAX_URL)
    try:
        parsed = httpx.URL(text)
    except (httpx.InvalidURL, ValueError):
        raise EndpointRefused(N_("That is not a web address.")) from None
    if parsed.scheme not in ("https", "http") or not parsed.host:
        raise EndpointRefused(N_("The address must start with https:// and name a host."))
    if parsed.userinfo:
        raise EndpointRefused(N_("The address may not carry a user name or password; use the signing secret instead."))
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        addresses = await resolve(parsed.raw_host.decode("ascii"), port, rules.resolver)
    except Unresolvable:
        raise EndpointRefused(N_("The host {host} could not be found."), host=parsed.host) from None
    if addresses and all(in_networks(address, rules.allow) for address in addresses):
        return parsed, addresses[0]  # the operator's own network: http and any port allowed
    if parsed.scheme != "https":
        raise EndpointRefused(N_("The address must start with https://."))
    if port != 443:
        raise EndpointRefused(N_("The address must use the standard https port (443)."))
    if not addresses or not all(is_public_address(a) or in_networks(a, rules.allow) for a in addresses):
        raise EndpointRefused(
            N_(
                "That address leads to a private, local or otherwise non-public network; events are only sent to "
                "public https addresses."
            )
        )
    return parsed, addresses[0]


class WebhookTransport:
    """Signs and POSTs one delivery to its endpoint; returns the answer, or raises why it failed."""

    def __init__(self, repository: WebhookRepository, rules: EndpointRules, *, timeout: float = 10.0) -> None:
        self.repository = repository
        self.rules = rules
        self.timeout = timeout
        self.deadline = timeout + 5  # resolving and signing around the request itself

    @classmethod
    def from_settings(cls, settings: Settings, database: Database) -> WebhookTransport:
        repository = WebhookRepository(database, secrets_key(settings))
        return cls(repository, EndpointRules.from_settings(settings), timeout=settings.webhook_timeout_seconds)

    async def send(self, delivery: QueuedMail) -> Answer:
        """Deliver once. `PermanentFailure`: no point retrying (endpoint gone, turned off, secret lost)."""
        target = await self.repository.target(delivery.endpoint_id or "")
        if target is None:
            raise PermanentFailure("the endpoint was removed")
        if not target.enabled and delivery.subject != TEST_EVENT:
            raise PermanentFailure("the endpoint is turned off")
        if target.secret is None:
            raise PermanentFailure("its signing secret no longer unseals: the secrets key changed")
        try:
            async with asyncio.timeout(self.deadline):
                return await self._post(delivery, target.url, target.secret)
        except TimeoutError:
            raise WebhookFailed("no answer in time", Answer(None, "")) from None

    async def _post(self, delivery: QueuedMail, url: str, secret: str) -> Answer:
        try:
            parsed, address = await check_endpoint_url(url, self.rules)
        except EndpointRefused as refused:
            raise WebhookFailed(f"refused by the address guard: {refused}", Answer(None, str(refused))) from None
        now = datetime.now(UTC)
        headers = {
            "webhook-id": delivery.message_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(secret).sign(delivery.message_id, now, delivery.text),
            "Content-Type": "application/json",
            "User-Agent": f"garage-tools/{__version__} (webhooks)",
        }
        async with httpx.AsyncClient(
            verify=self.rules.verify, timeout=self.timeout, follow_redirects=False, trust_env=False
        ) as client:
            request = pinned(client, "POST", parsed, address, headers, content=delivery.text.encode())
            try:
                response = await client.send(request, stream=True)
            except httpx.HTTPError as error:
                reason = f"{type(error).__name__}: could not reach the endpoint"
                raise WebhookFailed(reason, Answer(None, "")) from None
            try:
                body = await _start_of(response)
            finally:
                await response.aclose()
        answer = Answer(response.status_code, body)
        if 200 <= response.status_code < 300:
            return answer
        raise WebhookFailed(f"the endpoint answered HTTP {response.status_code}", answer)


async def _start_of(response: httpx.Response) -> str:
    """The first `SNIPPET` characters of the answer: enough to see what went wrong, never a whole page."""
    received = bytearray()
    try:
        async for chunk in response.aiter_bytes():
            received += chunk
            if len(received) >= SNIPPET * 4:
                break
    except httpx.HTTPError:
        pass
    text = received.decode("utf-8", errors="replace")
    return " ".join(text.split())[:SNIPPET]


def disabled_notice(outbox: Outbox) -> DisabledNotice:
    """The partner's e-mail that an endpoint was turned off, queued with the change that turns it off."""

    async def tell(session: AsyncSession, name: str, addresses: list[str], url: str) -> None:
        text = (
            f"Hello {name},\n\n"
            f"We turned off your webhook endpoint\n\n  {url}\n\n"
            "because our last deliveries to it all failed. Events are not sent to it until it is turned on "
            "again. Sign in to your partner console, open Webhooks to see what it answered, fix the receiver "
            "and turn it back on.\n\nGarage Door Tools\n"
        )
        for address in addresses:
            mail = Mail(to=address, subject="Your webhook endpoint was turned off", text=text, kind="webhook_disabled")
            await outbox.enqueue(session, mail)

    return tell


@dataclass(frozen=True, slots=True)
class WebhookChannel:
    """What the mail worker needs to deliver webhook rows: the transport and the rules of retrying."""

    transport: WebhookTransport
    notice: DisabledNotice
    max_attempts: int = 12
    first_retry: timedelta = timedelta(seconds=4)
    disable_after: int = 15

    @classmethod
    def from_settings(cls, settings: Settings, database: Database, outbox: Outbox) -> WebhookChannel:
        return cls(
            WebhookTransport.from_settings(settings, database),
            disabled_notice(outbox),
            max_attempts=settings.webhook_max_attempts,
            first_retry=timedelta(seconds=settings.webhook_retry_seconds),
            disable_after=settings.webhook_disable_after,
        )

    async def settle(self, delivery: QueuedMail, ok: bool) -> None:
        """Count the attempt for its endpoint (success resets; enough failures in a row turn it off)."""
        if delivery.endpoint_id is not None:
            repository = self.transport.repository
            await repository.settle(delivery.endpoint_id, ok, disable_after=self.disable_after, notice=self.notice)
