"""The delivery worker: claims due messages from the outbox, sends them, records the outcome.

Delivery is **at-least-once**. A message is marked sent only after the server accepted it, so a
crash between the two (or a send that outlives its lease) means another attempt later, and the
recipient may get the same message twice. It always carries the same Message-ID, so mail clients
can tell the copies apart. A message is never lost: it stays in the outbox until it is sent or,
after `max_attempts`, set aside as dead for an operator to look at (`garage-tools mail status`).

Several workers may run at once (in each service process and as `garage-tools mail worker`):
claims are atomic, so no two workers hold the same message at the same time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, fields
from datetime import timedelta
from email.utils import parseaddr

from garage_tools.mail.message import QueuedMail, compose
from garage_tools.mail.outbox import Answer, Outbox
from garage_tools.mail.transports import PermanentFailure, Transport, transport_from_settings
from garage_tools.mail.webhooks import WebhookChannel, WebhookFailed
from garage_tools.observability.metrics import count_mail_delivery
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from garage_tools.store.webhooks import WEBHOOK

log = logging.getLogger(__name__)

BACKOFF_BASE = timedelta(seconds=30)
# A lease covers the sends of one claim plus this, for recording the outcome around them.
LEASE_MARGIN = timedelta(seconds=10)
BACKOFF_CAP = timedelta(hours=1)
_URL_CREDENTIALS = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]*):[^/\s@]*@", re.IGNORECASE)


def retry_delay(attempts: int, rng: Callable[[], float] = random.random, first: timedelta = BACKOFF_BASE) -> timedelta:
    """Exponential backoff after the `attempts`-th failure, with jitter so retries spread out.

    `first` (30 s by default), then twice that, four times… up to an hour, each scaled by a random
    factor in [0.5, 1).
    """
    base = min(BACKOFF_CAP, first * 2 ** max(0, attempts - 1))
    delay: timedelta = base * (0.5 + rng() / 2)
    return delay


def describe_error(error: BaseException, secrets: Iterable[str] = ()) -> str:
    """A short, single-line account of a failure, with any secret and URL password blanked out."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = _URL_CREDENTIALS.sub(r"\1:***@", text)
    return " ".join(text.split())[:500]


@dataclass(frozen=True, slots=True)
class BatchResult:
    claimed: int = 0
    sent: int = 0
    retrying: int = 0
    dead: int = 0
    released: int = 0

    def __add__(self, other: BatchResult) -> BatchResult:
        return BatchResult(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


class MailWorker:
    """Delivers the outbox through one transport. Run it with `run_forever`, or `start`/`stop`."""

    def __init__(
        self,
        outbox: Outbox,
        transport: Transport,
        *,
        sender: str,
        max_attempts: int = 8,
        poll_seconds: float = 5.0,
        batch_size: int = 1,
        lease: timedelta | None = None,
        rng: Callable[[], float] = random.random,
        secrets: Iterable[str] = (),
        first_retry: timedelta = BACKOFF_BASE,
        webhooks: WebhookChannel | None = None,
    ) -> None:
        self.outbox = outbox
        self.transport = transport
        self.sender = sender
        self._envelope_sender = parseaddr(sender)[1]
        self.max_attempts = max_attempts
        self.poll_seconds = poll_seconds
        self.batch_size = batch_size
        # A claim holds `batch_size` messages (one attempt each) until every one of them could have taken its
        # full deadline: that is how long a crashed worker's messages wait. One per claim by default, so at the
        # defaults (SMTP timeout 30 s, a send cut off at 90 s) it is 100 s, not a batch's ten minutes.
        self.lease = lease or timedelta(seconds=batch_size * transport.deadline) + LEASE_MARGIN
        self.webhooks = webhooks  # None: webhook rows wait for a worker that has them
        # A webhook delivery is leased by its own deadline (15 s at the defaults), not the mail transport's.
        self.webhook_lease = lease or (
            timedelta(seconds=batch_size * webhooks.transport.deadline) + LEASE_MARGIN if webhooks else None
        )
        self._rng = rng
        self.first_retry = first_retry
        self._secrets = tuple(secret for secret in secrets if secret)
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def from_settings(cls, settings: Settings, database: Database) -> MailWorker:
        password = settings.smtp_password.get_secret_value() if settings.smtp_password else ""
        outbox = Outbox.from_settings(database, settings)
        return cls(
            outbox,
            transport_from_settings(settings),
            sender=settings.mail_from,
            max_attempts=settings.mail_max_attempts,
            poll_seconds=settings.mail_poll_seconds,
            secrets=[password],
            first_retry=timedelta(seconds=settings.mail_retry_seconds),
            webhooks=WebhookChannel.from_settings(settings, database, outbox),
        )

    async def run_once(self, stop: asyncio.Event | None = None) -> BatchResult:
        """Claim one batch of due messages and deliver it; on `stop`, finish the message in hand
        and hand the rest back at once (instead of leaving them to the lease)."""
        claimed = await self.outbox.claim(self.batch_size, self.lease, self.webhook_lease)
        sent = retrying = dead = 0
        for index, mail in enumerate(claimed):
            if stop is not None and stop.is_set():
                released = await self.outbox.release(claimed[index:])
                return BatchResult(len(claimed), sent, retrying, dead, released)
            outcome = await self._deliver(mail)
            count_mail_delivery(outcome)
            sent += outcome == "sent"
            retrying += outcome == "retrying"
            dead += outcome == "dead"
        return BatchResult(len(claimed), sent, retrying, dead)

    async def drain(self, stop: asyncio.Event | None = None) -> BatchResult:
        """Deliver everything due now (batch after batch), then return: `mail worker --once`."""
        total = BatchResult()
        while stop is None or not stop.is_set():
            batch = await self.run_once(stop)
            total += batch
            if batch.claimed < self.batch_size:
                break
        return total

    async def run_forever(self, stop: asyncio.Event) -> None:
        """Deliver until `stop` is set, looking for due messages every `poll_seconds`.

        A store or transport outage is logged and waited out; it never ends the loop.
        """
        log.info("mail worker delivering to %s", self.transport.describe())
        failing = False
        while not stop.is_set():
            try:
                batch = await self.run_once(stop)
            except Exception as error:
                if not failing:  # once per outage, not once per poll
                    log.warning("mail worker paused: %s", describe_error(error, self._secrets))
                failing, batch = True, BatchResult()
            else:
                if failing:
                    log.info("mail worker resumed")
                failing = False
            if batch.claimed == self.batch_size and not stop.is_set():
                continue  # more may be waiting
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=self.poll_seconds)

    def start(self) -> None:
        """Run the worker in the background of the current event loop (for the app's lifespan)."""
        if self._task is None:
            self._stop.clear()
            self._task = asyncio.create_task(self.run_forever(self._stop), name="mail-worker")

    async def stop(self) -> None:
        """Ask the background worker to finish the message in hand, then wait for it.

        If that send hangs past its deadline the task is cancelled; its lease returns it later.
        """
        if self._task is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=self.transport.deadline + 5)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        finally:
            self._task = None

    async def _deliver(self, mail: QueuedMail) -> str:
        if mail.channel == WEBHOOK:
            return await self._deliver_webhook(mail)
        if mail.attempts > self.max_attempts:
            # Only reachable when workers died holding it: don't let one message take them all down.
            await self.outbox.mark_failed(mail, "gave up: the worker stopped while sending, too often", None)
            return "dead"
        try:
            message = compose(mail, self.sender)
            await self.transport.send(message, sender=self._envelope_sender, recipient=mail.to)
        except PermanentFailure as error:
            await self.outbox.mark_failed(mail, describe_error(error, self._secrets), None)
            log.warning("mail %s is dead: %s", mail.message_id, error)  # no address: logs keep no personal data
            return "dead"
        except Exception as error:
            reason = describe_error(error, self._secrets)
            if mail.attempts >= self.max_attempts:
                await self.outbox.mark_failed(mail, reason, None)
                log.warning("mail %s is dead after %d attempts: %s", mail.message_id, mail.attempts, reason)
                return "dead"
            retry_at = self.outbox.clock() + retry_delay(mail.attempts, self._rng, self.first_retry)
            await self.outbox.mark_failed(mail, reason, retry_at)
            log.info("mail %s attempt %d failed, retrying at %s: %s", mail.message_id, mail.attempts, retry_at, reason)
            return "retrying"
        if not await self.outbox.mark_sent(mail):
            log.warning("mail %s was sent after its lease ran out; it may be sent twice", mail.message_id)
        return "sent"

    async def _deliver_webhook(self, delivery: QueuedMail) -> str:
        """One attempt of a webhook delivery: as for mail, plus the endpoint's answer in the log and its
        failures counted (see `mail/webhooks.py`)."""
        channel = self.webhooks
        if channel is None:  # a worker built without webhooks (tests): leave it for one that has them
            await self.outbox.mark_failed(delivery, "no webhook transport", self.outbox.clock() + BACKOFF_BASE)
            return "retrying"
        if delivery.attempts > channel.max_attempts:
            await self.outbox.mark_failed(delivery, "gave up: the worker stopped while sending, too often", None)
            return "dead"
        try:
            answer = await channel.transport.send(delivery)
        except PermanentFailure as error:
            await self.outbox.mark_failed(delivery, describe_error(error), None)
            log.info("webhook %s is dead: %s", delivery.message_id, error)
            return "dead"
        except Exception as error:
            failed = isinstance(error, WebhookFailed)
            reason = str(error) if failed else describe_error(error, self._secrets)
            answer = error.answer if isinstance(error, WebhookFailed) else Answer(None, "")
            await channel.settle(delivery, ok=False)
            if delivery.attempts >= channel.max_attempts:
                await self.outbox.mark_failed(delivery, reason, None, answer)
                log.warning("webhook %s is dead after %d attempts: %s", delivery.message_id, delivery.attempts, reason)
                return "dead"
            retry_at = self.outbox.clock() + retry_delay(delivery.attempts, self._rng, channel.first_retry)
            await self.outbox.mark_failed(delivery, reason, retry_at, answer)
            log.info("webhook %s attempt %d failed, retrying at %s: %s", delivery.message_id, delivery.attempts,
                     retry_at, reason)  # fmt: skip
            return "retrying"
        await self.outbox.mark_sent(delivery, answer)
        await channel.settle(delivery, ok=True)
        return "sent"


@contextlib.asynccontextmanager
async def mail_worker_running(settings: Settings, database: Database) -> AsyncIterator[MailWorker | None]:
    """Run a mail worker in this process for the duration of the block, when the settings ask for one."""
    if not settings.mail_worker_in_process:
        yield None
        return
    worker = MailWorker.from_settings(settings, database)
    worker.start()
    try:
        yield worker
    finally:
        await worker.stop()
