"""submitInspection end to end: a real server (SQLite, then PostgreSQL) whose SMTP server is down at first.

REST and MCP submissions, the report page and its JSON, idempotent retries, and the report e-mail
arriving exactly once after the mail server comes up (the in-process worker retries with backoff,
shortened here through GARAGE_TOOLS_MAIL_RETRY_SECONDS).
"""

from __future__ import annotations

import asyncio
import html
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx
import pytest
from sqlalchemy import select

from garage_tools.store.database import Database
from garage_tools.store.models import OutboxMessage
from tests.conftest import POSTGRES_ADMIN_URL, LiveServer, free_port, start_server, stop_server
from tests.fakes.smtp_sink import SmtpSink
from tests.polling import eventually, eventually_async


@dataclass
class Deployment:
    server: LiveServer
    database_url: str
    smtp_port: int  # nothing listens here until a test starts a sink


def _postgres(action: str, name: str) -> None:
    async def run() -> None:
        admin = await asyncpg.connect(POSTGRES_ADMIN_URL)
        try:
            await admin.execute(action.format(name=name))
        finally:
            await admin.close()

    asyncio.run(run())


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def deployment(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    workdir = tmp_path_factory.mktemp(f"inspection-{request.param}")
    name = f"garage_tools_test_{uuid.uuid4().hex[:12]}"
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{workdir / 'var' / 'garage-tools.db'}"
    else:
        _postgres('CREATE DATABASE "{name}"', name)
        base = POSTGRES_ADMIN_URL.replace("postgresql://", "postgresql+asyncpg://").rsplit("/", 1)[0]
        url = f"{base}/{name}"
    port = free_port()
    server = start_server(
        workdir,
        {
            "GARAGE_TOOLS_DATABASE_URL": url,
            "GARAGE_TOOLS_SMTP_HOST": "127.0.0.1",
            "GARAGE_TOOLS_SMTP_PORT": str(port),
            "GARAGE_TOOLS_SMTP_STARTTLS": "false",
            "GARAGE_TOOLS_SMTP_TIMEOUT": "5",
            "GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.2",
            "GARAGE_TOOLS_MAIL_RETRY_SECONDS": "0.5",
            "GARAGE_TOOLS_MAIL_MAX_ATTEMPTS": "40",
        },
    )
    try:
        yield Deployment(server, url, port)
    finally:
        stop_server(server)
        if request.param == "postgresql":
            _postgres('DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', name)


@pytest.fixture
async def store(deployment: Deployment) -> AsyncIterator[Database]:
    """The server's database, opened from the test to look at the outbox."""
    database = Database(deployment.database_url)
    yield database
    await database.dispose()


def submission(email: str, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "recipient": {"email": email, "zip": "94110", "name": "Sam Okafor"},
        "consent": {"marketing": False, "contactShare": True},
        "items": {
            "springs": {"status": "ok"},
            "cables": {"status": "fix", "note": "Frayed strands by the bottom bracket"},
            "rollers": {"status": "watch"},
            "bottom-seal": {"status": "ok"},
        },
        "emailReport": True,
    }
    return {**body, **changes}


def post(deployment: Deployment, body: Any, **headers: str) -> httpx.Response:
    # Generous: a process's first report that needs a pro reads the US places for routing (about a second idle,
    # several on a loaded 2-core machine), as a process's first routeByZip call does.
    return httpx.post(f"{deployment.server.url}/api/v1/submitInspection", json=body, headers=headers, timeout=60)


async def outbox_rows(database: Database, address: str) -> list[OutboxMessage]:
    async with database.session() as session:
        rows = await session.scalars(select(OutboxMessage).where(OutboxMessage.to_address == address))
        return list(rows.all())


def test_validation_errors_name_the_problem(deployment: Deployment) -> None:
    unknown = post(deployment, submission("a@example.com", items={"springs": {"status": "ok"}, "wipers": {}}))
    assert unknown.status_code == 400
    error = unknown.json()["error"]
    assert error["code"] == "invalid_arguments" and "unknown inspection item ids: wipers" in error["message"]
    bad = post(deployment, submission("a@example", recipient={"email": "nope", "zip": "123"}))
    assert bad.status_code == 400
    assert {d["field"] for d in bad.json()["error"]["details"]} == {"recipient.email", "recipient.zip"}
    too_long = post(deployment, submission("a@example.com"), **{"Idempotency-Key": "k" * 256})
    assert too_long.status_code == 400 and too_long.json()["error"]["code"] == "invalid_header"


async def test_control_characters_are_refused_by_field_and_line_breaks_are_kept(
    deployment: Deployment, store: Database
) -> None:
    # A NUL in the notes once reached the outbox, which PostgreSQL refused: a 500 after validation.
    garbled = submission(
        "garbled@example.com",
        notes="Rust on the track\x00",
        door={"size": "16x7\n", "motorBrand": "Lift\x1bMaster"},
        items={"springs": {"status": "watch", "note": "\x07squeaks"}},
    )
    refused = post(deployment, garbled)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_text"  # refused at the edge
    # A line break passes the edge (notes may hold one) but not a field that must be one line.
    broken = post(deployment, submission("garbled@example.com", door={"size": "16x7\n"}))
    details = {d["field"]: d["message"] for d in broken.json()["error"]["details"]}
    assert details == {"door.size": "must be one line of text with no control characters"}
    assert await outbox_rows(store, "garbled@example.com") == []

    notes = "Left side:\r\n\tthe cable is frayed.\nRight side: fine."
    item = {"status": "watch", "note": "Squeaks\tat the top,\nquiet below."}
    # No e-mail: this module's server shares one outbox, whose deliveries another test counts.
    lines = submission("multi.line@example.com", notes=notes, emailReport=False, items={"springs": item})
    accepted = post(deployment, lines)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["flaggedItems"][0]["note"] == item["note"]


def test_the_report_page_is_readable_private_and_not_indexed(deployment: Deployment) -> None:
    answer = post(deployment, submission("sam.okafor@example.com", door={"size": "16x7"}, emailReport=False))
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["grade"] == "F" and report["flaggedItems"][0]["itemId"] == "cables"
    assert report["reportUrl"] == f"{deployment.server.url}/reports/{report['reportId']}"

    page = httpx.get(report["reportUrl"], headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["x-robots-tag"] == "noindex, nofollow" and page.headers["referrer-policy"] == "no-referrer"
    assert '<meta name="robots" content="noindex, nofollow">' in page.text
    assert "Garage door inspection for Sam" in page.text and "Frayed strands by the bottom bracket" in page.text
    assert "Lift cables" in page.text and "16x7" in page.text and "/static/inspection.js" in page.text
    for private in ("sam.okafor", "Okafor", "94110"):
        assert private not in page.text

    data = httpx.get(report["reportJsonUrl"])
    assert data.status_code == 200 and data.headers["x-robots-tag"] == "noindex, nofollow"
    shown = data.json()
    assert shown["reportId"] == report["reportId"] and shown["score"] == report["score"]
    assert shown["firstName"] == "Sam" and "arguments" not in shown["nextStep"]
    assert "94110" not in data.text and "sam.okafor" not in data.text

    missing = f"{deployment.server.url}/reports/{'A' * 22}"
    assert httpx.get(missing, headers={"Accept": "text/html"}).status_code == 404
    assert httpx.get(f"{missing}.json").json()["error"]["code"] == "not_found"
    assert httpx.get(f"{deployment.server.url}/reports/../../etc").status_code == 404


def test_a_retry_with_the_same_idempotency_key_returns_the_same_report(deployment: Deployment) -> None:
    key = str(uuid.uuid4())
    first = post(deployment, submission("retry@example.com", emailReport=False), **{"Idempotency-Key": key})
    again = post(deployment, submission("retry@example.com", emailReport=False), **{"Idempotency-Key": key})
    assert first.status_code == again.status_code == 200
    assert again.json()["reportId"] == first.json()["reportId"] and again.json()["replayed"] is True
    fresh = post(deployment, submission("retry@example.com", emailReport=False))
    assert fresh.json()["reportId"] != first.json()["reportId"]
    other = post(deployment, submission("other@example.com", emailReport=False), **{"Idempotency-Key": key})
    assert other.status_code == 400 and other.json()["error"]["code"] == "invalid_header"


def test_an_agent_submits_over_mcp(deployment: Deployment) -> None:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "inspection-test", "version": "1"},
    }
    arguments = submission("agent@example.com", emailReport=False)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "submitInspection", "arguments": arguments, "_meta": meta},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "submitInspection",
        "Idempotency-Key": "mcp-retry-1",
    }
    answers = [httpx.post(f"{deployment.server.url}/mcp", json=body, headers=headers, timeout=10) for _ in range(2)]
    results = [answer.json()["result"] for answer in answers]
    assert all(result["isError"] is False for result in results), results
    first, second = (result["structuredContent"] for result in results)
    assert first["reportId"] == second["reportId"] and second["replayed"] is True
    assert httpx.get(first["reportUrl"]).status_code == 200


async def test_smtp_down_then_up_delivers_the_report_mail_exactly_once(deployment: Deployment, store: Database) -> None:
    address = "down.then.up@example.com"
    key = str(uuid.uuid4())
    async with httpx.AsyncClient(base_url=deployment.server.url, timeout=10) as client:
        answer = await client.post(
            "/api/v1/submitInspection", json=submission(address), headers={"Idempotency-Key": key}
        )
        assert answer.status_code == 200 and answer.json()["emailQueued"] is True
        report_url = answer.json()["reportUrl"]

        async def failed_once() -> bool:
            rows = await outbox_rows(store, address)
            return bool(rows) and rows[0].attempts >= 1 and rows[0].last_error is not None

        await eventually_async(failed_once, seconds=30)  # the worker tried, and the server was not there
        retry = await client.post(
            "/api/v1/submitInspection", json=submission(address), headers={"Idempotency-Key": key}
        )
        assert retry.json()["replayed"] is True

    with SmtpSink(deployment.smtp_port) as sink:

        async def sent() -> bool:
            rows = await outbox_rows(store, address)
            return len(rows) == 1 and rows[0].status == "sent"

        await eventually_async(sent, seconds=30)
    [row] = await outbox_rows(store, address)
    assert row.attempts >= 2
    assert [received.rcpt_tos for received in sink.received] == [[address]]  # once: sent is never claimed again
    message = sink.received[0].message
    assert message["Message-ID"] == row.message_id
    assert message["Subject"].startswith("Your garage door inspection: grade F")
    plain = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert plain is not None and html is not None
    assert report_url in plain.get_content() and report_url in html.get_content()
    assert "sent 1" in deployment.server.cli("mail", "status").stdout


def test_the_form_page_is_served_with_every_item(deployment: Deployment) -> None:
    page = httpx.get(f"{deployment.server.url}/inspection")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    assert page.text.count('data-item="') == 24 and "<script>" not in page.text
    fallback = httpx.post(f"{deployment.server.url}/inspection", data={"email": "x@example.com"})
    assert fallback.status_code == 400 and "JavaScript" in fallback.text


#: What a homeowner must never read on the report, the form or the e-mail: tool, argument and field names.
MACHINE_WORDS = (
    "routeByZip",
    "getInspectionReferencePhotos",
    "submitInspection",
    "itemId",
    "issueKey",
    "leadHeat",
    "contactShare",
    "/api/v1",
    "broken_spring",
    "call_a_pro_now",
)


def visible_text(page: str) -> str:
    """The words of a page's <main>, without tags, scripts or attribute values."""
    main = page.split("<main", 1)[1].split("</main>", 1)[0]
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", main)))


def newest_inspection_lead(deployment: Deployment) -> tuple[Any, ...]:
    [row] = deployment.server.query(
        "SELECT partner_id, zip, lead_heat, door_size, report_id, contact_name, contact_email FROM lead_events "
        "WHERE source = 'inspection' ORDER BY id DESC LIMIT 1"
    )
    return row


SPRING_EMERGENCY = {
    "springs": {"status": "fix", "note": "Gap in the left coil"},
    "remotes": {"status": "fix"},
    "hinges": {"status": "watch"},
}


def test_with_consent_the_report_names_the_pro_who_got_the_lead(deployment: Deployment) -> None:
    body = submission(
        "jo.tanner@example.com",
        recipient={"email": "jo.tanner@example.com", "zip": "84770", "name": "Jo Tanner"},
        door={"size": "16x7"},
        items=SPRING_EMERGENCY,
        emailReport=False,
    )
    answer = post(deployment, body)
    assert answer.status_code == 200, answer.text
    report = answer.json()
    pro = report["nextStep"]["localPro"]
    assert pro["covered"] is True and pro["contactDetailsSent"] is True and pro["phone"] and pro["bookingUrl"]
    assert report["nextStep"]["tool"] == "routeByZip"  # agents keep their machine fields

    lead = newest_inspection_lead(deployment)
    assert lead == (pro["partnerId"], "84770", "hot", "16x7", report["reportId"], "Jo Tanner", "jo.tanner@example.com")

    page = httpx.get(report["reportUrl"])
    text = visible_text(page.text)
    for word in MACHINE_WORDS:
        assert word not in text, word
    assert "Stop using the door until a trained technician has fixed the problem you found with the torsion" in text
    assert pro["name"] in text and f"Call {pro['phone']}" in text and "Book online" in text
    assert "As you agreed, we have sent them your name, e-mail address and this report" in text
    digits = "".join(ch for ch in pro["phone"] if ch.isdigit())
    assert f'href="tel:+1{digits}"' in page.text and f'href="{pro["bookingUrl"]}"' in page.text
    for private in ("jo.tanner", "Tanner", "84770"):
        assert private not in page.text

    # The pictures are inline: the springs' FIX picture and a healthy one, the remotes' too; none for hinges.
    pictures = re.findall(r'<img src="(/photos/[^"]+)"', page.text)
    assert [p.split("?")[0] for p in pictures] == [
        "/photos/springs-fix.webp",
        "/photos/springs-healthy.webp",
        "/photos/remotes-fix.webp",
        "/photos/remotes-healthy.webp",
    ]
    for path in pictures:
        served = httpx.get(f"{deployment.server.url}{path}")
        assert served.status_code == 200 and served.headers["content-type"] == "image/webp"
    jpeg = httpx.get(f"{deployment.server.url}{pictures[0]}&format=jpeg")  # what the e-mail shows
    assert jpeg.headers["content-type"] == "image/jpeg" and jpeg.content[:3] == b"\xff\xd8\xff"
    assert jpeg.headers["etag"] != httpx.get(f"{deployment.server.url}{pictures[0]}").headers["etag"]


def test_without_consent_the_report_still_names_a_pro_but_only_a_referral_is_counted(deployment: Deployment) -> None:
    body = submission(
        "no.consent@example.com",
        recipient={"email": "no.consent@example.com", "zip": "84770", "name": "Robin Hale"},
        consent={"marketing": True, "contactShare": False},
        items=SPRING_EMERGENCY,
        emailReport=False,
    )
    report = post(deployment, body).json()
    pro = report["nextStep"]["localPro"]
    assert pro["covered"] is True and pro["contactDetailsSent"] is False
    referrals = "SELECT partner_id, zip, heat FROM referrals WHERE source = 'inspection'"
    expected = (pro["partnerId"], "84770", "hot")
    # Written in the background, off the request.
    eventually(lambda: expected in deployment.server.query(referrals), seconds=15)
    unshared = "SELECT count(*) FROM lead_events WHERE source = 'inspection' AND contact_email IS NULL"
    assert deployment.server.query(unshared) == [(0,)]  # no lead without consent
    text = visible_text(httpx.get(report["reportUrl"]).text)
    assert pro["name"] in text and "We have not passed on your details" in text


def test_the_form_speaks_plainly_and_says_what_consent_shares(deployment: Deployment) -> None:
    text = visible_text(httpx.get(f"{deployment.server.url}/inspection").text)
    for word in MACHINE_WORDS:
        assert word not in text, word
    assert "we also send that pro your name, e-mail address and the report" in text


#: English that a Spanish report page or e-mail must not show (the reference pictures' captions aside).
ENGLISH_ON_THE_REPORT = (
    "Stop using the door until", "What else to do", "Your local pro", "Call (", "Book online", "Safety checks",
    "All 24 points", "How the score works", "Grade ", "Torsion or extension springs", "Needs fixing", "typical",
)  # fmt: skip


async def test_in_spanish_the_report_its_page_and_its_email_are_spanish(
    deployment: Deployment, store: Database
) -> None:
    # Last in the module: its e-mail stays queued (the mail server is down again), so no delivery count changes.
    address = "ana.spanish@example.com"
    body = submission(
        address,
        recipient={"email": address, "zip": "84770", "name": "Ana Ruiz"},
        door={"size": "16x7"},
        items=SPRING_EMERGENCY,
        lang="es-MX",
    )
    answer = post(deployment, body)
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["lang"] == "es" and report["grade"] == "F"  # keys, codes and grades stay English
    springs = report["flaggedItems"][0]
    assert (springs["itemId"], springs["status"], springs["urgency"]) == ("springs", "fix", "emergency")
    assert springs["label"] == "Resortes de torsión o de extensión" and springs["area"] == "Resortes y cables"
    assert springs["guidance"].startswith("Un resorte roto o con una abertura ya no sostiene el peso")
    assert report["gradeLabel"].startswith("No es segura hasta que la reparen")
    assert report["summary"].startswith("Calificación F (")
    assert report["nextStep"]["action"] == "call_a_pro_now" and report["nextStep"]["text"].startswith("Deje de usar")
    assert "atiende su zona" in report["nextStep"]["text"]

    # The page reads in the report's language, whatever the reader's browser asks for.
    async with httpx.AsyncClient(timeout=10) as client:
        page = await client.get(report["reportUrl"], headers={"Accept-Language": "en-US"})
    assert '<html lang="es"' in page.text
    text = visible_text(page.text)
    assert "Deje de usar la puerta" in text and "Los 24 puntos" in text and "Resortes y cables" in text
    assert f"Llamar al {report['nextStep']['localPro']['phone']}" in text and "Sin revisar" in text
    assert "Inspeccionada por el dueño de la casa el" in text and "es lo típico en" in text
    captions = re.findall(r"<figcaption>.*?</figcaption>", page.text, flags=re.S)
    rest = visible_text(re.sub(r"<figcaption>.*?</figcaption>", "", page.text, flags=re.S))
    assert captions and [words for words in ENGLISH_ON_THE_REPORT if words in rest] == []

    [row] = await outbox_rows(store, address)
    assert row.subject.startswith("Inspección de la puerta de su cochera: calificación F (")
    assert "Hola, Ana:" in row.text_body and "DEJE DE USAR LA PUERTA" in row.text_body
    assert [words for words in ENGLISH_ON_THE_REPORT if words in row.text_body] == []
    assert row.html_body is not None and '<html lang="es">' in row.html_body
    assert "Lo que hay que atender" in row.html_body
