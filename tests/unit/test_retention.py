"""Retention: `data purge` deletes what is past its period and nothing else; `data forget` one person's data.

On SQLite and PostgreSQL, through the store functions and through the `garage-tools data` command.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from garage_tools.cli.data import retention_of
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from garage_tools.store.models import (
    ApiKey,
    Developer,
    InspectionRecord,
    LeadEvent,
    LoginToken,
    OAuthClient,
    OAuthGrant,
    OAuthToken,
    OutboxMessage,
    PartnerAuditEntry,
    PortalSession,
)
from garage_tools.store.retention import forget, purge
from tests.databases import throwaway_url

NOW = datetime(2027, 6, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)
RETENTION = retention_of(Settings(_env_file=None))  # type: ignore[call-arg]  # the defaults: 730, 365, 30 and 730 days


def report(report_id: str, email: str, age: timedelta) -> InspectionRecord:
    return InspectionRecord(
        id=report_id,
        created_at=NOW - age,
        request_hash="0" * 64,
        email=email,
        zip="84770",
        name="Jo Tanner",
        consent_marketing=False,
        consent_contact_share=True,
        score=39,
        grade="F",
        email_requested=True,
        submission={},
        report={},
    )


def lead(age: timedelta, *, report_id: str | None = None, email: str | None = None) -> LeadEvent:
    return LeadEvent(
        created_at=NOW - age,
        partner_id="red-rock-garage-doors",
        covered=True,
        zip="84770",
        issue="broken_spring",
        lead_heat="hot",
        surface="rest",
        source="inspection" if report_id else "routing",
        report_id=report_id,
        contact_name="Jo Tanner" if email else None,
        contact_email=email,
    )


def mail(status: str, age: timedelta, to: str = "jo@example.com") -> OutboxMessage:
    return OutboxMessage(
        message_id=f"<{status}-{age.days}-{to}>",
        to_address=to,
        subject="Your report",
        text_body="…",
        kind="inspection_report",
        status=status,
        attempts=1,
        next_attempt_at=NOW - age,
        created_at=NOW - age,
    )


def grant(
    grant_id: str, email: str | None, *, allowed: bool = False, revoked: bool = False, expires: datetime = NOW - DAY
) -> OAuthGrant:
    return OAuthGrant(
        id=grant_id,
        client_id="app",
        email=email,
        redirect_uri="http://127.0.0.1:9/cb",
        redirect_uri_explicit=True,
        code_challenge="c" * 43,
        scope="pro",
        resource="https://doors.example.com/mcp-pro",
        created_at=NOW - 100 * DAY,
        expires_at=expires,
        allowed_at=NOW - 100 * DAY if allowed else None,
        revoked_at=NOW - DAY if revoked else None,
    )


def audit(action: str, age: timedelta) -> PartnerAuditEntry:
    return PartnerAuditEntry(
        created_at=NOW - age, partner_id="dixie", actor="office@dixie.example.com", action=action, detail={}
    )


def app_token(digit: str, grant_id: str, expires: datetime) -> OAuthToken:
    return OAuthToken(token_hash=digit * 64, grant_id=grant_id, kind="access", created_at=NOW - DAY, expires_at=expires)


async def fill(database: Database) -> None:
    """Something on each side of every period, and one person's data all over."""
    rows: list[Any] = [
        report("old-report-000000000000", "jo@example.com", 731 * DAY),
        report("new-report-000000000000", "jo@example.com", 729 * DAY),
        report("other-report-0000000000", "sam@example.com", 10 * DAY),
        lead(366 * DAY),
        lead(364 * DAY),
        lead(100 * DAY, report_id="old-report-000000000000", email="jo@example.com"),  # the report goes first
        lead(5 * DAY, report_id="other-report-0000000000", email="sam@example.com"),
        LoginToken(token_hash="a" * 64, email="jo@example.com", created_at=NOW - DAY, expires_at=NOW - DAY),
        LoginToken(token_hash="b" * 64, email="jo@example.com", created_at=NOW, expires_at=NOW + 15 * DAY / 1440),
        PortalSession(id_hash="c" * 64, email="jo@example.com", created_at=NOW - 40 * DAY, expires_at=NOW - DAY),
        PortalSession(id_hash="d" * 64, email="jo@example.com", created_at=NOW - DAY, expires_at=NOW + DAY),
        mail("sent", 31 * DAY),
        mail("dead", 31 * DAY),
        mail("pending", 31 * DAY),  # never delivered yet: never purged
        mail("sent", 29 * DAY),
        mail("sent", 40 * DAY, to="sam@example.com"),
        ApiKey(id="k1", owner_email="jo@example.com", name="laptop", secret_hash="e" * 64, created_at=NOW - DAY),
        Developer(email="jo@example.com", created_at=NOW - DAY, last_sign_in_at=NOW - DAY),
        OAuthClient(id="app", name="Assistant", redirect_uris=[], document={}, created_at=NOW - 100 * DAY),
        grant("live", "jo@example.com", allowed=True),
        grant("revoked", "jo@example.com", allowed=True, revoked=True),
        grant("unused", "jo@example.com", allowed=True),
        grant("expired-request", None),
        grant("waiting", None, expires=NOW + DAY),
        app_token("1", "live", NOW - DAY),  # an access token that expired
        app_token("2", "live", NOW + 80 * DAY),  # its refresh token
        app_token("3", "revoked", NOW + 80 * DAY),
        app_token("4", "unused", NOW - DAY),
        audit("sign_in", 731 * DAY),
        audit("profile.update", 729 * DAY),
    ]
    async with database.session() as session, session.begin():
        session.add_all(rows)


async def remaining(database: Database, model: Any, column: Any) -> list[Any]:
    async with database.session() as session:
        return sorted((await session.scalars(select(column))).all(), key=str)


async def test_purge_deletes_what_is_past_its_retention_and_nothing_else(database: Database) -> None:
    await fill(database)
    dry = await purge(database, RETENTION, dry_run=True, clock=lambda: NOW)
    assert len(await remaining(database, InspectionRecord, InspectionRecord.id)) == 3  # a dry run deletes nothing

    done = await purge(database, RETENTION, clock=lambda: NOW)
    expected = {
        "inspection_reports": 1,
        "leads": 1,
        "service_request_events": 0,  # see test_service_request_store.py
        "service_requests": 0,
        "referrals": 0,
        "sign_in_links": 1,
        "portal_sessions": 1,
        "emails": 3,
        "app_tokens": 3,  # an expired access token, and the tokens of the revoked and the unused grant
        "connected_apps": 3,  # revoked, expired while waiting for the person, unused past its refresh token
        "audit_entries": 1,
    }
    assert dry.counts == done.counts == expected and done.reports_unlinked == 1
    assert await remaining(database, InspectionRecord, InspectionRecord.id) == [
        "new-report-000000000000",
        "other-report-0000000000",
    ]
    async with database.session() as session:
        leads = (await session.scalars(select(LeadEvent).order_by(LeadEvent.created_at))).all()
        outbox = (await session.scalars(select(OutboxMessage))).all()
    assert [(row.report_id, row.contact_email) for row in leads] == [
        (None, None),  # 364 days old: kept
        (None, "jo@example.com"),  # kept (100 days), but its report is gone, and so is the link
        ("other-report-0000000000", "sam@example.com"),
    ]
    assert sorted((row.status, (NOW - _aware(row.created_at)).days) for row in outbox) == [
        ("pending", 31),
        ("sent", 29),
    ]
    assert await remaining(database, LoginToken, LoginToken.token_hash) == ["b" * 64]
    assert await remaining(database, PortalSession, PortalSession.id_hash) == ["d" * 64]
    assert await remaining(database, ApiKey, ApiKey.id) == ["k1"]  # kept while their owner has them
    assert await remaining(database, OAuthGrant, OAuthGrant.id) == ["live", "waiting"]
    assert await remaining(database, OAuthToken, OAuthToken.token_hash) == ["2" * 64]
    assert await remaining(database, PartnerAuditEntry, PartnerAuditEntry.action) == ["profile.update"]

    again = await purge(database, RETENTION, clock=lambda: NOW)
    assert again.total == 0 and again.reports_unlinked == 0


async def test_forget_deletes_one_persons_data_and_leaves_the_rest(database: Database) -> None:
    await fill(database)
    done = await forget(database, " Jo@Example.com ")
    assert done.counts == {
        "inspection_reports": 2,
        "leads": 1,
        "service_request_events": 0,
        "service_requests": 0,
        "sign_in_links": 2,
        "portal_sessions": 2,
        "emails": 4,
        "app_tokens": 4,
        "connected_apps": 3,
        "api_keys": 1,
        "developer_accounts": 1,
    }
    assert await remaining(database, InspectionRecord, InspectionRecord.id) == ["other-report-0000000000"]
    assert await remaining(database, LeadEvent, LeadEvent.contact_email) == [None, None, "sam@example.com"]
    assert await remaining(database, OutboxMessage, OutboxMessage.to_address) == ["sam@example.com"]
    assert await remaining(database, Developer, Developer.email) == []


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_the_data_purge_command_prints_what_it_deleted(kind: str, tmp_path: Path) -> None:
    async with throwaway_url(kind, tmp_path) as url:
        database = Database(url)
        try:
            await database.migrate()
            await fill(database)
            # Relative to now, since the command reads the clock: move the filled rows into the present.
            shift = datetime.now(UTC) - NOW
            async with database.session() as session, session.begin():
                for model in (
                    InspectionRecord,
                    LeadEvent,
                    LoginToken,
                    PortalSession,
                    OutboxMessage,
                    OAuthGrant,
                    OAuthToken,
                    PartnerAuditEntry,
                ):
                    for row in (await session.scalars(select(model))).all():
                        for column in ("created_at", "expires_at"):
                            if hasattr(row, column):
                                setattr(row, column, _aware(getattr(row, column)) + shift)
            env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
            env |= {"GARAGE_TOOLS_DATABASE_URL": url, "GARAGE_TOOLS_RETENTION_LEAD_DAYS": "200"}
            run = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "garage_tools", "data", "purge"],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            )
            lines = run.stdout.splitlines()
            assert lines[0] == (
                "keeping inspection reports 730 days, leads 200 days, delivered mail 30 days, "
                "partner audit entries 730 days"
            )
            assert lines[1:] == [
                "deleted 1 inspection reports",
                "deleted 2 leads",  # 366 and 364 days old: past a 200-day period
                "deleted 0 service request changes",
                "deleted 0 service requests",
                "deleted 0 referrals",
                "deleted 1 sign-in links",
                "deleted 1 portal sessions",
                "deleted 3 e-mails",
                "deleted 3 app codes and tokens",
                "deleted 3 connected apps",
                "deleted 1 partner audit entries",
                "unlinked 1 leads from those reports",
            ]
            assert len(await remaining(database, LeadEvent, LeadEvent.id)) == 2
        finally:
            await database.dispose()
