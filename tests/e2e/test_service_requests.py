"""Service requests through a real server (both legs): the REST contract and its refusals in the envelope, the
homeowner's form and status page without JavaScript (send, see, cancel), the e-mails, partner isolation on the
homeowner's pages, and unanswered requests passed on by `serve`'s own sweep and by `garage-tools requests
sweep`, with a response time of about a second."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.polling import eventually

DIXIE = "dixie-door-and-spring"


def office(partner_id: str) -> str:
    return f"office@{partner_id}.example.com"


def mails_to(server: LiveServer, address: str) -> list[tuple[str, str, str]]:
    rows = server.query("SELECT subject, text_body, kind FROM outbox WHERE to_address = $1 ORDER BY id", address)
    return [(str(s), str(t), str(k)) for s, t, k in rows]


def body(**changes: Any) -> dict[str, Any]:
    valid: dict[str, Any] = {
        "partnerId": DIXIE,
        "zip": "84770",
        "description": "loud bang and the door won't open",
        "contact": {"name": "Dana Reyes", "phone": "(435) 555-0199"},
        "consent": {"contactShare": True},
        "windows": [{"date": (date.today() + timedelta(days=2)).isoformat(), "partOfDay": "morning"}],
    }
    return {**valid, **changes}


def csrf_of(page: httpx.Response) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("requests"), {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1"})
    yield live
    stop_server(live)


def client(server: LiveServer, n: int) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"X-Forwarded-For": f"198.18.7.{n}"}, timeout=15)


def test_the_tool_answers_a_number_and_link_and_refuses_plainly(server: LiveServer) -> None:
    api = client(server, 1)
    answer = api.post("/api/v1/requestService", json=body())
    assert answer.status_code == 200, answer.text
    found = answer.json()
    assert found["status"] == "received" and re.fullmatch(r"R-\d{4}-\d{4}", found["requestId"])
    assert (
        found["statusUrl"].startswith(f"{server.url}/requests/") and found["partner"]["name"] == "Dixie Door & Spring"
    )
    eventually(
        lambda: any(found["requestId"] in subject for subject, _, _ in mails_to(server, office(DIXIE))), seconds=5
    )
    for changes, code in (
        ({"consent": {"contactShare": False}}, "consent_required"),
        ({"partnerId": "nobody-here"}, "unknown_partner"),
        ({"zip": "94110"}, "partner_not_serving"),
        ({"contact": {"name": "Dana"}}, "invalid_arguments"),
    ):
        refused = api.post("/api/v1/requestService", json=body(**changes))
        assert refused.status_code == 400 and refused.json()["error"]["code"] == code, refused.text
    assert "requestService" in api.get("/openapi.json").text
    assert "requestService" in api.get("/llms.txt").text


def test_without_javascript_a_homeowner_sends_sees_and_cancels(server: LiveServer) -> None:
    browser = client(server, 2)
    form = browser.get("/requests/new", params={"partner": DIXIE, "zip": "84770", "description": "loud bang"})
    assert form.status_code == 200 and "Ask Dixie Door &amp; Spring to come out" in form.text
    assert "noindex" in form.headers["x-robots-tag"]
    fields = {
        "csrf": csrf_of(form),
        "partner": DIXIE,
        "zip": "84770",
        "description": "loud bang and the door won't open",
        "name": "Sam Rivera",
        "email": "sam.rivera@example.com",
        "day": (date.today() + timedelta(days=1)).isoformat(),
        "part": "morning",
    }
    unticked = browser.post("/requests/new", data=fields)
    assert unticked.status_code == 400 and "Tick the box" in unticked.text
    sent = browser.post("/requests/new", data={**fields, "consent": "yes"})
    assert sent.status_code == 303, sent.text
    page = browser.get(sent.headers["location"])
    number = re.search(r"Request (R-\d{4}-\d{4}) sent", page.text)
    assert page.status_code == 200 and number, page.text
    assert "Sent to Dixie Door &amp; Spring" in page.text and "Cancel my request" in page.text
    eventually(lambda: any(number.group(1) in s for s, _, _ in mails_to(server, "sam.rivera@example.com")), seconds=5)
    [(_, confirmation, _)] = mails_to(server, "sam.rivera@example.com")
    status_path = sent.headers["location"].split("?", 1)[0]
    assert f"{server.url}{status_path}" in confirmation

    # Another browser holding the link but not the page's token cannot cancel; a made-up link opens nothing.
    stranger = client(server, 3)
    assert stranger.post(f"{status_path}/cancel", data={"csrf": "x" * 40}).status_code == 403
    assert stranger.get("/requests/" + "A" * 32).status_code == 404
    cancelled = browser.post(f"{status_path}/cancel", data={"csrf": csrf_of(page)})
    assert cancelled.status_code == 303
    after = browser.get(status_path)
    assert "You cancelled this request." in after.text and "Cancel my request" not in after.text
    eventually(lambda: any("You cancelled" in s for s, _, _ in mails_to(server, "sam.rivera@example.com")), seconds=5)
    assert any("Cancelled" in s for s, _, _ in mails_to(server, office(DIXIE)))


def test_a_spanish_reader_gets_the_form_and_the_status_page_in_spanish(server: LiveServer) -> None:
    browser = client(server, 4)
    browser.headers["Accept-Language"] = "es-US,es;q=0.9"
    form = browser.get("/requests/new", params={"partner": DIXIE, "zip": "84770"})
    assert '<html lang="es"' in form.text and "Pida a Dixie Door &amp; Spring que venga" in form.text
    assert "Enviar mi solicitud" in form.text and "Send my request" not in form.text
    fields = {
        "csrf": csrf_of(form),
        "partner": DIXIE,
        "zip": "84770",
        "description": "el portón hace un ruido de raspado",
        "name": "Ana Pérez",
        "phone": "(435) 555-0142",
        "day": (date.today() + timedelta(days=1)).isoformat(),
        "part": "morning",
    }
    unticked = browser.post("/requests/new", data=fields)
    assert unticked.status_code == 400 and "Marque la casilla" in unticked.text
    sent = browser.post("/requests/new", data={**fields, "consent": "yes"})
    assert sent.status_code == 303, sent.text
    page = browser.get(sent.headers["location"]).text
    number = re.search(r"Solicitud (R-\d{4}-\d{4}) enviada", page)
    assert number and "Enviada a Dixie Door &amp; Spring" in page and "Cancelar mi solicitud" in page
    assert "mañana" in page  # the time they chose, in their words
    [(language,)] = server.query("SELECT language FROM service_requests WHERE id = $1", number.group(1))
    assert language == "es"  # the pro is told the homeowner wrote in Spanish


def test_an_unanswered_request_is_passed_on_by_serve_and_by_the_command(tmp_path: Path) -> None:
    live = start_server(
        tmp_path,
        {
            "GARAGE_TOOLS_REQUEST_RESPONSE_HOURS": "0.0003",
            "GARAGE_TOOLS_REQUEST_BUSINESS_HOURS": "always",  # any time of day the test runs
            "GARAGE_TOOLS_REQUEST_SWEEP_SECONDS": "0.5",
        },
    )
    try:
        answer = httpx.post(f"{live.url}/api/v1/requestService", json=body(), timeout=15).json()

        def partner() -> str:
            [(found,)] = live.query("SELECT partner_id FROM service_requests WHERE id = $1", answer["requestId"])
            return str(found)

        eventually(lambda: partner() != DIXIE, seconds=15)  # about a second of silence, then serve's sweep
        moved = partner()
        eventually(lambda: any(answer["requestId"] in s for s, _, _ in mails_to(live, office(moved))), seconds=5)
        swept = live.cli("requests", "sweep")
        assert swept.stdout.startswith("sweep: ")
    finally:
        stop_server(live)
