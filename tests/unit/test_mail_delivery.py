"""The delivery worker against a real SMTP server on loopback, and the .eml file transport.

Time is a `FakeClock`: a test steps over a backoff delay or a lease instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import email
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import select

from garage_tools.mail import Mail, MailWorker, Outbox, mail_worker_running
from garage_tools.mail.transports import FileTransport, SmtpTransport, transport_from_settings
from garage_tools.mail.worker import describe_error, retry_delay
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from garage_tools.store.models import OutboxMessage
from tests.conftest import free_port
from tests.fakes.clock import FakeClock
from tests.fakes.smtp_sink import SmtpSink
from tests.polling import eventually_async

SENDER = "Garage Door Tools <no-reply@doors.example.com>"


async def next_attempt_at(database: Database) -> datetime:
    async with database.session() as session:
        moment = await session.scalar(select(OutboxMessage.next_attempt_at))
    assert moment is not None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def report(n: int = 0, *, to: str = "owner@example.com", html: bool = True) -> Mail:
    return Mail(
        to=to,
        subject=f"Inspection report {n}",
        text=f"Your door passed inspection {n}.",
        html=f"<p>Your door <b>passed</b> inspection {n}.</p>" if html else None,
        kind="inspection_report",
    )


def smtp(port: int) -> SmtpTransport:
    return SmtpTransport("127.0.0.1", port, starttls=False, timeout=5)


def worker_for(outbox: Outbox, port: int, **options: object) -> MailWorker:
    return MailWorker(outbox, smtp(port), sender=SENDER, rng=lambda: 0.5, **options)  # type: ignore[arg-type]


async def test_delivers_text_and_html_as_alternatives_with_the_stored_message_id(database: Database) -> None:
    outbox = Outbox(database, domain="doors.example.com", clock=FakeClock())
    with SmtpSink() as sink:
        html_id = await outbox.submit(report(1))
        text_id = await outbox.submit(report(2, html=False))
        result = await worker_for(outbox, sink.port).drain()
    assert result.sent == 2
    first, second = sink.received
    assert first.mail_from == "no-reply@doors.example.com" and first.rcpt_tos == ["owner@example.com"]
    assert first.message_id == html_id and second.message_id == text_id
    assert first.message["From"] == SENDER and first.message["Subject"] == "Inspection report 1"
    assert first.message.get_content_type() == "multipart/alternative"
    plain, html = first.message.iter_parts()
    assert plain.get_content_type() == "text/plain" and "passed inspection 1" in plain.get_content()
    assert html.get_content_type() == "text/html" and "<b>passed</b>" in html.get_content()
    assert second.message.get_content_type() == "text/plain"
    summary = await outbox.summary()
    assert summary.counts == {"pending": 0, "sending": 0, "sent": 2, "dead": 0}


async def test_smtp_down_then_up_delivers_exactly_once_with_the_same_message_id(database: Database) -> None:
    clock = FakeClock()
    outbox = Outbox(database, clock=clock)
    port = free_port()  # nothing listens here yet
    message_id = await outbox.submit(report())
    worker = worker_for(outbox, port)

    assert (await worker.run_once()).retrying == 1
    summary = await outbox.summary()
    assert summary.counts["pending"] == 1
    with SmtpSink(port) as sink:
        assert (await worker.run_once()).claimed == 0  # not due yet: backing off
        clock.advance(retry_delay(1, lambda: 0.5).total_seconds())
        assert (await worker.run_once()).sent == 1
        clock.advance(3600)
        assert (await worker.run_once()).claimed == 0
    assert sink.message_ids() == [message_id]
    latest = await outbox.latest_to("owner@example.com")
    assert latest is not None and latest.status == "sent" and latest.attempts == 2


async def test_backoff_grows_then_the_message_is_dead_after_max_attempts(database: Database) -> None:
    clock = FakeClock()
    outbox = Outbox(database, clock=clock)
    await outbox.submit(report())
    worker = MailWorker(
        outbox,
        SmtpTransport("127.0.0.1", free_port(), starttls=False, username="mailer", password="hunter2-pw", timeout=5),
        sender=SENDER,
        max_attempts=4,
        rng=lambda: 0.5,
        secrets=["hunter2-pw"],
    )
    waits = []
    for _ in range(3):
        assert (await worker.run_once()).retrying == 1
        due = await next_attempt_at(database)
        waits.append(due - clock())
        clock.now = due - timedelta(seconds=1)
        assert (await worker.run_once()).claimed == 0  # not a second early
        clock.now = due
    assert waits == [timedelta(seconds=s) for s in (22.5, 45, 90)]  # 30 s doubling, x0.75 from the jitter
    assert (await worker.run_once()).dead == 1
    clock.advance(86400)
    assert (await worker.run_once()).claimed == 0  # dead stays dead
    summary = await outbox.summary()
    assert summary.counts["dead"] == 1
    [dead] = summary.dead
    assert dead.attempts == 4 and dead.last_error and "Connect" in dead.last_error
    assert "hunter2" not in dead.last_error


def test_retry_delay_is_exponential_with_jitter_and_capped() -> None:
    assert retry_delay(1, lambda: 0.0) == timedelta(seconds=15)
    assert retry_delay(1, lambda: 0.999) < timedelta(seconds=30)
    assert retry_delay(3, lambda: 0.0) == timedelta(seconds=60)
    assert retry_delay(40, lambda: 0.999) < timedelta(hours=1)


def test_errors_are_recorded_without_secrets() -> None:
    error = ConnectionError("login as mailer:hunter2-pw failed via smtp://mailer:hunter2-pw@mx.example.com:587")
    text = describe_error(error, ["hunter2-pw"])
    assert "hunter2" not in text and "smtp://mailer:***@mx.example.com" in text
    assert describe_error(ConnectionError("postgresql://app:s3cret@db/x down")).count("s3cret") == 0


async def test_a_refused_recipient_is_dead_at_once(database: Database) -> None:
    outbox = Outbox(database, clock=FakeClock())
    with SmtpSink(refuse={"gone@example.com"}) as sink:
        await outbox.submit(report(to="gone@example.com"))
        await outbox.submit(report(to="here@example.com"))
        result = await worker_for(outbox, sink.port).drain()
    assert (result.sent, result.dead) == (1, 1)
    [dead] = (await outbox.summary()).dead
    assert dead.to == "gone@example.com" and dead.attempts == 1 and "550" in (dead.last_error or "")


async def test_two_workers_at_once_send_every_message_exactly_once(database: Database) -> None:
    clock = FakeClock()
    second_database = Database(database.url)  # its own engine and connections, like another process
    try:
        outboxes = [Outbox(database, clock=clock), Outbox(second_database, clock=clock)]
        ids = {await outboxes[0].submit(report(n)) for n in range(30)}
        with SmtpSink() as sink:
            workers = [worker_for(outbox, sink.port, batch_size=3) for outbox in outboxes]
            totals = await asyncio.gather(*(worker.drain() for worker in workers))
        assert sorted(sink.message_ids()) == sorted(ids)
        assert sum(total.sent for total in totals) == 30
        assert all(total.sent > 0 for total in totals)  # both really took part
    finally:
        await second_database.dispose()


async def test_a_worker_that_dies_mid_batch_loses_nothing_and_repeats_nothing(database: Database) -> None:
    clock = FakeClock()
    outbox = Outbox(database, clock=clock)
    ids = [await outbox.submit(report(n)) for n in range(5)]
    with SmtpSink() as sink:
        sink.hold_after = 2  # the third message is in hand when the worker dies
        doomed = worker_for(outbox, sink.port, batch_size=5)
        task = asyncio.create_task(doomed.run_once())
        assert await asyncio.to_thread(sink.holding.wait, 10)
        task.cancel()  # as good as a killed process: none of our clean-up runs
        sink.let_go.set()  # (only so aiosmtplib's polite QUIT on cancel gets its answer)
        with pytest.raises(asyncio.CancelledError):
            await task

        successor = worker_for(outbox, sink.port, batch_size=5)
        assert (await successor.run_once()).claimed == 0  # the dead worker's lease still holds them
        clock.advance(doomed.lease.total_seconds() + 1)
        assert (await successor.run_once()).sent == 3
    assert sink.message_ids() == ids
    assert (await outbox.summary()).counts["sent"] == 5


async def test_a_stopped_worker_finishes_the_message_in_hand_and_hands_back_the_rest(database: Database) -> None:
    outbox = Outbox(database, clock=FakeClock())
    ids = [await outbox.submit(report(n)) for n in range(5)]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    with SmtpSink() as sink:
        sink.on_accept = lambda received: loop.call_soon_threadsafe(stop.set) if len(sink.received) == 2 else None
        result = await worker_for(outbox, sink.port, batch_size=5).run_once(stop)
        assert (result.sent, result.released) == (2, 3)
        # A new worker takes the rest at once, without waiting for a lease.
        assert (await worker_for(outbox, sink.port).drain()).sent == 3
    assert sink.message_ids() == ids


async def test_file_transport_writes_whole_eml_files_and_a_retry_replaces_its_own(
    database: Database, tmp_path: Path
) -> None:
    clock = FakeClock()
    outbox = Outbox(database, domain="doors.example.com", clock=clock)
    transport = FileTransport(tmp_path / "mail")
    message_id = await outbox.submit(report())
    worker = MailWorker(outbox, transport, sender=SENDER)
    assert (await worker.run_once()).sent == 1

    files = list((tmp_path / "mail").iterdir())
    assert len(files) == 1 and files[0].suffix == ".eml"
    parsed = email.message_from_bytes(files[0].read_bytes(), policy=policy.default)
    assert parsed["Message-ID"] == message_id and parsed["To"] == "owner@example.com"
    assert parsed.get_content_type() == "multipart/alternative"

    # Sending the same message again (at-least-once) rewrites that file; no temporary files linger.
    await transport.send(parsed, sender="no-reply@doors.example.com", recipient="owner@example.com")  # type: ignore[arg-type]
    assert list((tmp_path / "mail").iterdir()) == files


async def test_in_process_worker_delivers_to_files_and_stops_cleanly(database: Database, tmp_path: Path) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path, database_url=database.url, mail_poll_seconds=0.05
    )
    async with mail_worker_running(settings, database) as worker:
        assert worker is not None
        message_id = await Outbox.from_settings(database, settings).submit(report())

        async def written() -> bool:  # the worker polls every 50 ms
            return any((tmp_path / "mail").glob("*.eml"))

        await eventually_async(written, seconds=10, what="the worker to write the message to a file")
    [written] = (tmp_path / "mail").glob("*.eml")
    assert message_id in written.read_text()
    assert (await Outbox(database).summary()).counts["sent"] == 1

    disabled = settings.model_copy(update={"mail_worker_in_process": False})
    async with mail_worker_running(disabled, database) as nothing:
        assert nothing is None


async def test_starttls_is_required_by_default_so_nothing_goes_out_in_clear(database: Database) -> None:
    outbox = Outbox(database, clock=FakeClock())
    await outbox.submit(report())
    with SmtpSink() as sink:  # offers no STARTTLS
        transport = SmtpTransport("127.0.0.1", sink.port, username="mailer", password="hunter2-pw", timeout=5)
        result = await MailWorker(outbox, transport, sender=SENDER, secrets=["hunter2-pw"]).run_once()
    assert result.retrying == 1 and sink.received == []
    latest = await outbox.latest_to("owner@example.com")
    assert latest is not None and latest.status == "pending"


def test_settings_choose_the_transport_and_keep_the_password_out_of_sight(tmp_path: Path) -> None:
    files = transport_from_settings(Settings(_env_file=None, data_dir=tmp_path))  # type: ignore[call-arg]
    assert isinstance(files, FileTransport) and files.directory == tmp_path / "mail"
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        smtp_host="mx.example.com",
        smtp_port=465,
        smtp_tls=True,
        smtp_username="mailer",
        smtp_password="hunter2-pw",
    )
    assert transport_from_settings(settings).describe() == "smtp://mailer@mx.example.com:465 (tls)"
    assert "hunter2" not in repr(settings) and "hunter2" not in str(settings.model_dump())
    with pytest.raises(ValueError, match="mail_from"):
        Settings(_env_file=None, mail_from="Garage Door Tools")  # type: ignore[call-arg]


async def test_at_the_defaults_a_crashed_workers_message_waits_under_two_minutes(tmp_path: Path) -> None:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'garage-tools.db'}")
    try:
        smtp = MailWorker.from_settings(Settings(_env_file=None, smtp_host="mx.example.com"), database)  # type: ignore[call-arg]
        files = MailWorker.from_settings(Settings(_env_file=None, data_dir=tmp_path), database)  # type: ignore[call-arg]
    finally:
        await database.dispose()
    # One message per claim, each given its whole send (three 30 s SMTP waits), plus a margin to record it.
    assert (smtp.batch_size, smtp.transport.deadline, smtp.lease) == (1, 90.0, timedelta(seconds=100))
    assert smtp.lease + timedelta(seconds=smtp.poll_seconds) < timedelta(minutes=2)
    assert files.lease == timedelta(seconds=40)
