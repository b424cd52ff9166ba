"""`garage-tools mail …` as an operator runs it, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from garage_tools.mail import Mail, Outbox
from garage_tools.store.database import Database
from garage_tools.store.models import OutboxMessage
from tests.conftest import free_port
from tests.databases import throwaway_url
from tests.fakes.smtp_sink import SmtpSink
from tests.polling import eventually_async

DB_PASSWORD = "pg-Secret-1"
SMTP_PASSWORD = "smtp-Secret-9"


@dataclass
class Deployment:
    """A working directory and environment for the CLI, and the same database opened in the test."""

    workdir: Path
    env: dict[str, str]
    database: Database

    async def cli(self, *args: str, **extra_env: str) -> tuple[int, str, str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "garage_tools",
            *args,
            cwd=self.workdir,
            env={**self.env, **extra_env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), timeout=60)
        assert process.returncode is not None
        return process.returncode, out.decode(), err.decode()

    async def start_worker(self, *options: str, **extra_env: str) -> asyncio.subprocess.Process:
        """`garage-tools mail worker` running on its own, polling often."""
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "garage_tools",
            "mail",
            "worker",
            *options,
            cwd=self.workdir,
            env={**self.env, "GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.1", **extra_env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )

    async def submit(self, to: str, subject: str, text: str) -> str:
        return await Outbox(self.database).submit(Mail(to=to, subject=subject, text=text, kind="magic_link"))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def deployment(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Deployment]:
    async with throwaway_url(request.param, tmp_path, password=DB_PASSWORD) as url:
        database = Database(url)
        await database.migrate()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
        env |= {"GARAGE_TOOLS_DATABASE_URL": url, "GARAGE_TOOLS_LOG_LEVEL": "warning"}
        try:
            yield Deployment(tmp_path, env, database)
        finally:
            await database.dispose()


async def test_latest_prints_the_newest_message_to_that_address(deployment: Deployment) -> None:
    await deployment.submit("dev@example.com", "Sign in (old)", "https://doors.example.com/login/old")
    await deployment.submit("other@example.com", "Not yours", "https://doors.example.com/login/other")
    await deployment.submit("dev@example.com", "Sign in", "Open https://doors.example.com/login/abc123")
    code, out, _ = await deployment.cli("mail", "latest", "--to", "Dev@Example.com")
    assert code == 0
    assert "Subject: Sign in\n" in out and "https://doors.example.com/login/abc123" in out
    assert "old" not in out and "other" not in out

    code, _, err = await deployment.cli("mail", "latest", "--to", "nobody@example.com")
    assert code == 1 and "no mail to nobody@example.com" in err


async def test_worker_once_delivers_to_eml_files_without_smtp(deployment: Deployment) -> None:
    ids = [await deployment.submit(f"u{n}@example.com", f"Hello {n}", "Hi") for n in range(2)]
    code, out, _ = await deployment.cli("mail", "worker", "--once")
    assert code == 0 and "sent 2" in out, out
    written = sorted(path.read_text() for path in (deployment.workdir / "var" / "mail").glob("*.eml"))
    assert len(written) == 2 and all(any(i in text for text in written) for i in ids)

    code, out, _ = await deployment.cli("mail", "status")
    assert code == 0 and "pending 0" in out and "sent 2" in out and "dead 0" in out
    assert "oldest waiting" not in out


async def test_status_lists_dead_messages_and_never_shows_a_password(deployment: Deployment) -> None:
    message_id = await deployment.submit("dev@example.com", "Sign in", "https://doors.example.com/login/x")
    smtp = {
        "GARAGE_TOOLS_SMTP_HOST": "127.0.0.1",
        "GARAGE_TOOLS_SMTP_PORT": str(free_port()),  # nothing listens: every attempt fails
        "GARAGE_TOOLS_SMTP_STARTTLS": "false",
        "GARAGE_TOOLS_SMTP_USERNAME": "mailer",
        "GARAGE_TOOLS_SMTP_PASSWORD": SMTP_PASSWORD,
        "GARAGE_TOOLS_MAIL_MAX_ATTEMPTS": "1",
    }
    code, out, err = await deployment.cli("mail", "worker", "--once", **smtp)
    assert code == 0 and "dead 1" in out, out + err
    code, status, status_err = await deployment.cli("mail", "status", **smtp)
    assert code == 0
    assert "dead 1" in status and f"dead {message_id} to dev@example.com" in status
    assert "Connect" in status  # the last error says why
    assert f"smtp://mailer@127.0.0.1:{smtp['GARAGE_TOOLS_SMTP_PORT']}" in status
    for output in (out, err, status, status_err):
        assert SMTP_PASSWORD not in output and DB_PASSWORD not in output


async def test_worker_stops_on_sigterm_after_delivering(deployment: Deployment) -> None:
    process = await deployment.start_worker()
    try:
        message_id = await deployment.submit("dev@example.com", "Sign in", "https://doors.example.com/login/y")
        outbox = deployment.workdir / "var" / "mail"

        async def written() -> bool:
            return any(message_id in path.read_text() for path in outbox.glob("*.eml"))

        # Start-up plus one poll.
        await eventually_async(written, seconds=30, every=0.1, what="the worker to write the message's .eml file")
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=20)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0 and "mail worker stopped" in err.decode()


async def test_a_worker_of_its_own_serves_its_deliveries_for_prometheus(deployment: Deployment) -> None:
    port = free_port()
    process = await deployment.start_worker("--metrics-port", str(port))
    sent = 'garage_tools_mail_deliveries_total{outcome="sent"} 2.0'
    try:
        for address in ("one@example.com", "two@example.com"):
            await deployment.submit(address, "Your report", "https://doors.example.com/reports/x")
        async with httpx.AsyncClient() as client:

            async def scraped() -> bool:  # refused until the worker listens: not yet
                text = (await client.get(f"http://127.0.0.1:{port}/metrics")).text
                assert sent in text, f"the last scrape:\n{text}"  # shown if the wait times out
                return True

            # Start-up plus a poll or two.
            await eventually_async(scraped, seconds=30, every=0.1, what="the worker's metrics to show two deliveries")
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.communicate(), timeout=20)


async def test_a_worker_killed_mid_delivery_leaves_the_message_to_another_within_its_lease(
    deployment: Deployment,
) -> None:
    smtp_timeout = 2.0  # so the lease is 3 * 2 s + 10 s, and the test waits seconds, not the default 100
    lease = timedelta(seconds=3 * smtp_timeout + 10)
    loop = asyncio.get_running_loop()
    delivered: asyncio.Future[datetime] = loop.create_future()
    with SmtpSink() as sink:
        sink.hold_after = 0  # the first message stays in the worker's hands, mid-DATA
        sink.on_accept = lambda _: loop.call_soon_threadsafe(delivered.set_result, datetime.now(UTC))
        smtp = {
            "GARAGE_TOOLS_SMTP_HOST": "127.0.0.1",
            "GARAGE_TOOLS_SMTP_PORT": str(sink.port),
            "GARAGE_TOOLS_SMTP_STARTTLS": "false",
            "GARAGE_TOOLS_SMTP_TIMEOUT": str(smtp_timeout),
        }
        message_id = await deployment.submit("dev@example.com", "Sign in", "https://doors.example.com/login/z")
        doomed = await deployment.start_worker(**smtp)
        try:
            assert await asyncio.to_thread(sink.holding.wait, 60), "the first worker never started sending"
        finally:
            doomed.kill()  # SIGKILL: no clean-up of any kind
            await doomed.communicate()
        sink.let_go.set()  # (the held session answers a worker that is gone)
        async with deployment.database.session() as session:
            row = (await session.execute(select(OutboxMessage))).scalar_one()
        claimed_until = row.claimed_until if row.claimed_until.tzinfo else row.claimed_until.replace(tzinfo=UTC)
        assert row.status == "sending" and row.attempts == 1
        assert claimed_until - datetime.now(UTC) <= lease  # the lease the settings derive, not ten minutes

        successor = await deployment.start_worker(**smtp)
        try:
            sent_at = await asyncio.wait_for(delivered, timeout=lease.total_seconds() + 30)
        finally:
            successor.send_signal(signal.SIGTERM)
            await asyncio.wait_for(successor.communicate(), timeout=20)
    assert sink.message_ids() == [message_id]  # sent once, by the second worker
    assert claimed_until <= sent_at <= claimed_until + timedelta(seconds=10)  # as soon as the lease ran out
    assert (await Outbox(deployment.database).summary()).counts["sent"] == 1
