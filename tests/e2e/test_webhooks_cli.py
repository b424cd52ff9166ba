"""`garage-tools partners webhooks add/list/remove` and `garage-tools mail worker` delivering webhooks, as
real processes against SQLite and PostgreSQL: the secret is printed once, the address guard refuses
loopback unless the allow setting names it, and a worker killed with SIGKILL mid-delivery loses nothing:
another delivers the same event (same `webhook-id`) once the lease runs out."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select

from garage_tools.store.database import Database
from garage_tools.store.models import OutboxMessage, WebhookEndpoint
from garage_tools.store.webhooks import enqueue_event
from tests.databases import throwaway_url
from tests.fakes.webhook_receiver import WebhookReceiver
from tests.polling import eventually_async

DIXIE = "dixie-door-and-spring"
ALLOW_LOOPBACK = {"GARAGE_TOOLS_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1"}


@dataclass
class Deployment:
    workdir: Path
    env: dict[str, str]
    database: Database

    def command(self, *args: str, **extra_env: str) -> list[str]:
        return [sys.executable, "-m", "garage_tools", *args]

    async def cli(self, *args: str, **extra_env: str) -> tuple[int, str, str]:
        process = await asyncio.create_subprocess_exec(
            *self.command(*args),
            cwd=self.workdir,
            env={**self.env, **extra_env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), timeout=60)
        assert process.returncode is not None
        return process.returncode, out.decode(), err.decode()

    async def start_worker(self, **extra_env: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            *self.command("mail", "worker"),
            cwd=self.workdir,
            env={**self.env, "GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.1", **extra_env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def deployment(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Deployment]:
    async with throwaway_url(request.param, tmp_path) as url:
        database = Database(url)
        await database.migrate()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
        env |= {"GARAGE_TOOLS_DATABASE_URL": url, "GARAGE_TOOLS_LOG_LEVEL": "warning"}
        try:
            yield Deployment(tmp_path, env, database)
        finally:
            await database.dispose()


async def test_add_prints_the_secret_once_list_shows_it_and_remove_takes_it_away(deployment: Deployment) -> None:
    code, out, err = await deployment.cli("partners", "webhooks", "add", DIXIE, "http://127.0.0.1:9/hooks")
    assert code != 0 and "https://" in err  # loopback over http, without the allow setting
    code, out, err = await deployment.cli(
        "partners", "webhooks", "add", DIXIE, "http://127.0.0.1:9/hooks", **ALLOW_LOOPBACK
    )
    assert code == 0, err
    secret = out.strip()
    assert secret.startswith("whsec_") and "\n" not in secret  # stdout holds the secret alone, for scripts
    async with deployment.database.session() as session:
        row = (await session.execute(select(WebhookEndpoint))).scalar_one()
    assert secret.encode() not in row.secret_sealed
    assert (deployment.workdir / "var" / "secrets.key").stat().st_mode & 0o077 == 0

    code, listed, _ = await deployment.cli("partners", "webhooks", "list")
    assert code == 0 and row.id in listed and DIXIE in listed and "http://127.0.0.1:9/hooks" in listed
    assert secret not in listed and secret[6:] not in listed

    code, _, err = await deployment.cli("partners", "webhooks", "add", "no-such-partner", "https://1.1.1.1/x")
    assert code != 0 and "no partner" in err
    code, out, _ = await deployment.cli("partners", "webhooks", "remove", row.id)
    assert code == 0 and row.id in out
    code, _, err = await deployment.cli("partners", "webhooks", "remove", row.id)
    assert code != 0 and "no endpoint" in err
    _, listed, _ = await deployment.cli("partners", "webhooks", "list")
    assert row.id not in listed


async def test_a_worker_killed_mid_delivery_loses_nothing(deployment: Deployment) -> None:
    # A webhook delivery's lease is its own: (5 s + 5 s) + 10 s here, whatever the mail transport's.
    settings = {**ALLOW_LOOPBACK, "GARAGE_TOOLS_WEBHOOK_TIMEOUT_SECONDS": "5"}
    with WebhookReceiver() as receiver:
        code, out, err = await deployment.cli("partners", "webhooks", "add", DIXIE, receiver.url, **settings)
        assert code == 0, err
        receiver.secret, receiver.hold = out.strip(), True
        async with deployment.database.session() as session, session.begin():
            assert await enqueue_event(session, DIXIE, "request.created", {"requestId": "req_9"}) == 1

        doomed = await deployment.start_worker(**settings)
        try:
            assert await asyncio.to_thread(receiver.holding.wait, 60), "the first worker never delivered"
        finally:
            doomed.kill()  # SIGKILL: no clean-up of any kind
            await doomed.communicate()
        async with deployment.database.session() as session:
            row = (await session.execute(select(OutboxMessage))).scalar_one()
        assert (row.status, row.attempts) == ("sending", 1)  # in the dead worker's hands, not lost

        receiver.hold = False
        receiver.let_go.set()
        successor = await deployment.start_worker(**settings)
        try:

            async def sent() -> bool:
                async with deployment.database.session() as session:
                    return await session.scalar(select(OutboxMessage.status)) == "sent"

            # The lease (20 s) has to run out first.
            await eventually_async(sent, seconds=60, every=0.1, what="the successor to send the message")
        finally:
            successor.send_signal(signal.SIGTERM)
            await asyncio.wait_for(successor.communicate(), timeout=20)
    assert {r.webhook_id for r in receiver.received} == {row.message_id}  # the same event, at least once
    assert any(r.verified == {**r.verified, "type": "request.created"} for r in receiver.verified())
