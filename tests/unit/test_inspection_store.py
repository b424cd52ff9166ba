"""submitInspection against a real store (SQLite and PostgreSQL): reports, idempotency, and the report e-mail
through the outbox to an SMTP server on loopback."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from garage_tools.access.caller import Caller, Tier
from garage_tools.errors import InvalidHeader
from garage_tools.knowledge.loader import Knowledge
from garage_tools.mail import Mail, MailWorker, Outbox
from garage_tools.mail.transports import SmtpTransport
from garage_tools.partners.service import Partners
from garage_tools.registry import ToolContext, ToolData, dump, invoke
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from garage_tools.store.inspections import InspectionRepository, NewInspection
from garage_tools.store.models import InspectionRecord, OutboxMessage
from garage_tools.tools import build_registry
from garage_tools.tools.inspection.models import SubmitInspectionOutput
from garage_tools.tools.inspection.report import public_report
from tests.conftest import free_port
from tests.fakes.clock import FakeClock
from tests.fakes.smtp_sink import SmtpSink

BASE = "https://doors.example.com"
REGISTRY = build_registry()


def submission(**changes: Any) -> dict[str, Any]:
    valid: dict[str, Any] = {
        "recipient": {"email": "Alex.Rivera@Example.com", "zip": "94110", "name": "Alex Rivera"},
        "consent": {"marketing": True, "contactShare": False},
        "door": {"size": "16x7", "motorBrand": "Genie"},
        "items": {
            "springs": {"status": "fix", "note": "Gap in the left coil"},
            "rollers": {"status": "watch"},
            "photo-eyes": {"status": "ok"},
        },
        "notes": "Call me on 415 555 0199 after six.",
        "emailReport": True,
    }
    return {**valid, **changes}


class Harness:
    def __init__(self, database: Database, knowledge: Knowledge) -> None:
        self.database = database
        self.knowledge = knowledge
        self.clock = FakeClock()
        self.outbox = Outbox(database, domain="doors.example.com", clock=self.clock)
        self.partners = Partners.over(database)  # a ToolData field; submitInspection does not use it

    def context(self, key: str | None = None, caller: Caller | None = None) -> ToolContext:
        return ToolContext(
            knowledge=self.knowledge,
            caller=caller or Caller.anonymous("rest", "203.0.113.9"),
            base_url=BASE,
            data=ToolData(database=self.database, outbox=self.outbox, partners=self.partners),
            idempotency_key=key,
        )

    async def submit(self, arguments: dict[str, Any], key: str | None = None, **context: Any) -> SubmitInspectionOutput:
        result = await invoke(REGISTRY, "submitInspection", arguments, self.context(key, **context))
        assert isinstance(result, SubmitInspectionOutput)
        return result

    async def count(self, model: type[Any]) -> int:
        async with self.database.session() as session:
            return int(await session.scalar(select(func.count()).select_from(model)) or 0)


@pytest.fixture
def harness(database: Database, knowledge: Knowledge) -> Harness:
    return Harness(database, knowledge)


async def test_a_submission_is_stored_with_its_consent_and_read_back_without_personal_data(harness: Harness) -> None:
    answer = await harness.submit(submission())
    assert answer.report_url == f"{BASE}/reports/{answer.report_id}" and len(answer.report_id) == 22
    assert answer.report_json_url == answer.report_url + ".json"
    assert (answer.grade, answer.score, answer.replayed, answer.email_queued) == ("F", 39, False, True)
    assert (answer.consent.marketing, answer.consent.contact_share) == (True, False)
    assert answer.first_name == "Alex"

    async with harness.database.session() as session:
        row = await session.get(InspectionRecord, answer.report_id)
    assert row is not None
    assert (row.email, row.zip, row.name) == ("alex.rivera@example.com", "94110", "Alex Rivera")
    assert (row.consent_marketing, row.consent_contact_share, row.score, row.grade) == (True, False, 39, "F")
    assert row.submission["items"]["springs"] == {"status": "fix", "note": "Gap in the left coil"}

    stored = await InspectionRepository(harness.database).get(answer.report_id)
    assert stored is not None
    shown = dump(public_report(stored, BASE))
    text = str(shown)
    for private in ("alex.rivera", "Rivera", "94110", "415 555 0199"):
        assert private not in text, private
    assert shown["firstName"] == "Alex" and shown["reportUrl"] == answer.report_url
    assert shown["flaggedItems"][0]["note"] == "Gap in the left coil"
    assert "arguments" not in shown["nextStep"]
    assert shown["score"] == 39 and shown["door"] == {"size": "16x7", "motorBrand": "Genie"}


async def test_the_report_mail_is_queued_with_the_report_and_only_when_asked(harness: Harness) -> None:
    asked = await harness.submit(submission())
    await harness.submit(submission(emailReport=False))
    assert await harness.count(InspectionRecord) == 2
    assert await harness.count(OutboxMessage) == 1
    mail = await harness.outbox.latest_to("alex.rivera@example.com")
    assert mail is not None and mail.kind == "inspection_report" and mail.status == "pending"
    assert mail.subject == "Your garage door inspection: grade F (39/100). Stop using the door until it is repaired"
    assert asked.report_url in mail.text and mail.html is not None and asked.report_url in mail.html
    assert mail.text.startswith("Hi Alex,") and "Gap in the left coil" in mail.text
    assert "415 555 0199" in mail.text  # the owner's own notes go to the owner only


async def test_no_mail_is_queued_when_the_report_is_not_stored(harness: Harness) -> None:
    reports = InspectionRepository(harness.database)
    new = NewInspection(
        id="x" * 22,
        created_at=harness.clock(),
        idempotency_hash=None,
        request_hash="0" * 64,
        email="a@example.com",
        zip="94110",
        name=None,
        consent_marketing=False,
        consent_contact_share=False,
        score=100,
        grade="A",
        email_requested=True,
        submission={},
        report={},
    )

    async def queue_then_fail(session: Any) -> str | None:
        await harness.outbox.enqueue(session, Mail(to="a@example.com", subject="s", text="t"))
        raise RuntimeError("the process dies before commit")

    with pytest.raises(RuntimeError):
        await reports.add(new, also=queue_then_fail)
    assert await reports.get(new.id) is None
    assert await harness.count(OutboxMessage) == 0


# --- idempotency ------------------------------------------------------------------------------


async def test_a_retry_with_the_same_key_returns_the_same_report_and_sends_one_mail(harness: Harness) -> None:
    first = await harness.submit(submission(), key="retry-7f3c")
    again = await harness.submit(submission(), key="retry-7f3c")
    assert again.report_id == first.report_id and again.replayed is True and first.replayed is False
    assert dump(again) == {**dump(first), "replayed": True}
    assert await harness.count(InspectionRecord) == 1
    assert await harness.count(OutboxMessage) == 1
    other = await harness.submit(submission(), key="another-key")
    plain = await harness.submit(submission())
    assert len({first.report_id, other.report_id, plain.report_id}) == 3


async def test_concurrent_retries_store_one_report(harness: Harness) -> None:
    answers = await asyncio.gather(*(harness.submit(submission(), key="same-key-racing") for _ in range(4)))
    assert len({answer.report_id for answer in answers}) == 1
    assert sorted(answer.replayed for answer in answers) == [False, True, True, True]
    assert await harness.count(InspectionRecord) == 1
    assert await harness.count(OutboxMessage) == 1


async def test_a_key_reused_for_another_inspection_is_refused(harness: Harness) -> None:
    await harness.submit(submission(), key="k-1")
    with pytest.raises(InvalidHeader, match="already used for a different inspection"):
        await harness.submit(submission(items={"springs": {"status": "ok"}}), key="k-1")
    assert await harness.count(InspectionRecord) == 1


async def test_keys_are_scoped_to_the_caller_and_must_be_printable(harness: Harness) -> None:
    public = await harness.submit(submission(), key="k-2")
    keyed = Caller(tier=Tier.PRO, surface="rest", key_id="abc123")
    pro = await harness.submit(submission(), key="k-2", caller=keyed)
    assert pro.report_id != public.report_id and pro.replayed is False
    for bad in ("", "x" * 256, "naïve", "tab\there"):
        with pytest.raises(InvalidHeader, match="Idempotency-Key"):
            await harness.submit(submission(), key=bad)


# --- the report e-mail, delivered -------------------------------------------------------------


def smtp_worker(outbox: Outbox, port: int, **options: Any) -> MailWorker:
    transport = SmtpTransport("127.0.0.1", port, starttls=False, timeout=5)
    return MailWorker(
        outbox, transport, sender="Garage Door Tools <no-reply@doors.example.com>", rng=lambda: 0.5, **options
    )


async def test_the_report_mail_arrives_as_text_and_html_with_a_stable_message_id(harness: Harness) -> None:
    answer = await harness.submit(submission())
    async with harness.database.session() as session:
        row = await session.get(InspectionRecord, answer.report_id)
    assert row is not None and row.mail_message_id
    with SmtpSink() as sink:
        assert (await smtp_worker(harness.outbox, sink.port).run_once()).sent == 1
    [received] = sink.received
    assert received.rcpt_tos == ["alex.rivera@example.com"] and received.message_id == row.mail_message_id
    plain, html = received.message.iter_parts()
    assert answer.report_url in plain.get_content() and answer.report_url in html.get_content()
    assert (
        html.get_content_type() == "text/html" and "<strong>Torsion or extension springs</strong>" in html.get_content()
    )


async def test_smtp_down_then_up_delivers_the_report_exactly_once(harness: Harness) -> None:
    port = free_port()
    answer = await harness.submit(submission(), key="down-up")
    worker = smtp_worker(harness.outbox, port)
    assert (await worker.run_once()).retrying == 1
    await harness.submit(submission(), key="down-up")  # the homeowner retries meanwhile: still one mail
    with SmtpSink(port) as sink:
        harness.clock.advance(30)
        assert (await worker.run_once()).sent == 1
        harness.clock.advance(7200)
        assert (await worker.drain()).claimed == 0
    assert len(sink.received) == 1 and answer.report_url in sink.received[0].message.get_body(("plain",)).get_content()  # type: ignore[union-attr]


async def test_a_worker_stopped_mid_batch_loses_no_report_mail_and_repeats_none(harness: Harness) -> None:
    answers = [
        await harness.submit(submission(recipient={"email": f"o{n}@example.com", "zip": "94110"})) for n in range(4)
    ]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    with SmtpSink() as sink:
        sink.on_accept = lambda received: loop.call_soon_threadsafe(stop.set) if len(sink.received) == 1 else None
        first = await smtp_worker(harness.outbox, sink.port, batch_size=4).run_once(stop)
        assert (first.sent, first.released) == (1, 3)
        restarted = smtp_worker(harness.outbox, sink.port, batch_size=4)
        assert (await restarted.drain()).sent == 3
        harness.clock.advance(7200)
        assert (await restarted.drain()).claimed == 0
    assert sorted(r.rcpt_tos[0] for r in sink.received) == [f"o{n}@example.com" for n in range(4)]
    assert len(set(sink.message_ids())) == 4
    bodies = " ".join(r.message.get_body(("plain",)).get_content() for r in sink.received)  # type: ignore[union-attr]
    assert all(answer.report_url in bodies for answer in answers)


async def test_the_first_retry_delay_is_a_setting(harness: Harness) -> None:
    await harness.submit(submission())
    worker = smtp_worker(harness.outbox, free_port(), first_retry=timedelta(seconds=2))
    assert (await worker.run_once()).retrying == 1
    async with harness.database.session() as session:
        due = await session.scalar(select(OutboxMessage.next_attempt_at))
    assert due is not None and due.replace(tzinfo=None) == (harness.clock() + timedelta(seconds=1.5)).replace(
        tzinfo=None
    )
    settings = Settings(_env_file=None, mail_retry_seconds=2)  # type: ignore[call-arg]
    assert MailWorker.from_settings(settings, harness.database).first_retry == timedelta(seconds=2)
    assert Settings(_env_file=None).mail_retry_seconds == 30  # type: ignore[call-arg]
