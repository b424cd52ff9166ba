"""The console's request inbox through a real server: a partner sees who asked them to come out, accepts with an
arrival window the homeowner's status page and e-mail then show, declines with a reason (the request goes to the
next local pro and the homeowner is told), marks done; another partner can neither see nor change it. Embedded
stack, or PostgreSQL and Redis with GARAGE_TOOLS_TEST_STACK=postgres-redis."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from garage_tools.knowledge.data_files import DATA_DIR
from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_partner_console import DIXIE, RED_ROCK, Partner
from tests.e2e.test_service_requests import body, mails_to
from tests.polling import eventually

NAMES = {
    partner["id"]: partner["displayName"]
    for partner in json.loads((DATA_DIR / "sample_partners.json").read_text(encoding="utf-8"))["partners"]
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("inbox"),
        {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1", "GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.2"},
    )
    yield live
    stop_server(live)


@pytest.fixture(scope="module")
def dixie(server: LiveServer) -> Partner:
    return Partner(server).sign_in(DIXIE)


@pytest.fixture(scope="module")
def red_rock(server: LiveServer) -> Partner:
    return Partner(server).sign_in(RED_ROCK)


_homeowners = iter(range(10, 250))


def ask_for_a_pro(server: LiveServer, **changes: Any) -> tuple[dict[str, Any], str]:
    """A new homeowner's request to Dixie through REST, from their own address: the tool's answer, and the
    homeowner's e-mail address (a contact may send only three requests a day)."""
    n = next(_homeowners)
    email = f"dana{n}@example.com"
    contact = {"name": "Dana Reyes", "phone": f"(435) 555-{n:04d}", "email": email}
    with httpx.Client(base_url=server.url, headers={"X-Forwarded-For": f"198.18.9.{n}"}, timeout=15) as api:
        answer = api.post("/api/v1/requestService", json=body(contact=contact, **changes))
    assert answer.status_code == 200, answer.text
    return dict(answer.json()), email


def card_of(page: str, number: str) -> str:
    """One request's card on the inbox page."""
    found = re.search(rf'<li class="lead request[^"]*" id="{number}">(.*?)</li>', page, re.S)
    assert found, f"{number} is not on the page"
    return found.group(1)


def test_a_partner_accepts_with_a_window_the_homeowner_then_sees(
    server: LiveServer, dixie: Partner, red_rock: Partner
) -> None:
    sent, homeowner = ask_for_a_pro(server)
    number = sent["requestId"]
    inbox = dixie.client.get("/partners/requests")
    assert inbox.status_code == 200 and "1 new" in inbox.text
    card = card_of(inbox.text, number)
    assert "Dana Reyes" in card and 'href="tel:(435)555-' in card and "loud bang" in card
    assert number not in red_rock.client.get("/partners/requests").text  # only the partner it is offered to

    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    refused = dixie.post(f"/partners/requests/{number}/accept", day=tomorrow, **{"from": "11:00", "until": "09:00"})
    assert refused.status_code == 400 and "must come after its start" in refused.text
    stolen = red_rock.post(f"/partners/requests/{number}/accept", day=tomorrow, **{"from": "09:00", "until": "11:00"})
    assert stolen.status_code == 404

    accepted = dixie.post(f"/partners/requests/{number}/accept", day=tomorrow, **{"from": "09:00", "until": "11:00"})
    assert accepted.status_code == 303 and accepted.headers["location"].endswith(f"#{number}")
    card = card_of(dixie.client.get("/partners/requests").text, number)
    assert "Accepted" in card and "9:00 to 11:00" in card.replace("09:00", "9:00") and "You answered" in card

    status = httpx.get(sent["statusUrl"], timeout=15).text
    assert "09:00 to 11:00" in status
    eventually(lambda: any("09:00 to 11:00" in text for _, text, _ in mails_to(server, homeowner)))


def test_a_decline_goes_to_the_next_pro_and_the_homeowner_is_told(server: LiveServer, dixie: Partner) -> None:
    sent, homeowner = ask_for_a_pro(server)
    number = sent["requestId"]
    before = len(mails_to(server, homeowner))
    unsaid = dixie.post(f"/partners/requests/{number}/decline", reason="other", details="")
    assert unsaid.status_code == 400 and "Say in a few words" in unsaid.text
    declined = dixie.post(f"/partners/requests/{number}/decline", reason="booked", details="")
    assert declined.status_code == 303
    assert number not in dixie.client.get("/partners/requests").text
    [(next_pro,)] = server.query("SELECT partner_id FROM service_requests WHERE id = $1", number)
    assert next_pro != DIXIE  # the nearest other pro serving 84770
    card = card_of(Partner(server).sign_in(next_pro).client.get("/partners/requests").text, number)
    assert "passed on to you" in card and "New" in card
    eventually(lambda: len(mails_to(server, homeowner)) > before)
    told = " ".join(text for _, text, _ in mails_to(server, homeowner)[before:])
    assert NAMES[next_pro] in told


def test_done_closes_the_request_and_a_closed_one_cannot_change(server: LiveServer, dixie: Partner) -> None:
    number = ask_for_a_pro(server)[0]["requestId"]
    assert dixie.post(f"/partners/requests/{number}/done").status_code == 303
    card = card_of(dixie.client.get("/partners/requests").text, number)
    assert "Done" in card and "/accept" not in card  # no forms on a closed request
    again = dixie.post(f"/partners/requests/{number}/lost")
    assert again.status_code == 409 and "changed meanwhile" in again.text


def test_signed_out_visitors_and_forged_forms_are_turned_away(server: LiveServer, dixie: Partner) -> None:
    number = ask_for_a_pro(server)[0]["requestId"]
    with httpx.Client(base_url=server.url, timeout=15) as stranger:
        assert stranger.get("/partners/requests").headers.get("location") == "/partners"
    forged = dixie.client.post(f"/partners/requests/{number}/done", data={"csrf": "forged"})
    assert forged.status_code in (400, 403)
    assert "New" in card_of(dixie.client.get("/partners/requests").text, number)


def test_times_read_in_the_partners_own_time_zone(server: LiveServer, dixie: Partner) -> None:
    number = ask_for_a_pro(server)[0]["requestId"]
    assert re.search(r"\(M[SD]T\)", card_of(dixie.client.get("/partners/requests").text, number))  # St. George's
    profile = {"phone": "(435) 555-0102", "website": "https://dixie.example.com", "insured": ""}
    wrong = dixie.post("/partners/profile", **profile, time_zone="Mars/Olympus")
    assert wrong.status_code == 400 and "Choose a time zone" in wrong.text
    assert dixie.post("/partners/profile", **profile, time_zone="America/New_York").status_code == 303
    eventually(lambda: re.search(r"\(E[SD]T\)", card_of(dixie.client.get("/partners/requests").text, number)))
    tomorrow = date.today() + timedelta(days=1)
    dixie.post(f"/partners/requests/{number}/accept", day=tomorrow.isoformat(), **{"from": "09:00", "until": "11:00"})
    [(start,)] = server.query("SELECT arrival_from FROM service_requests WHERE id = $1", number)
    nine_in_new_york = datetime.combine(tomorrow, time(9), ZoneInfo("America/New_York")).astimezone(UTC)
    assert f"{nine_in_new_york:%H:%M}" in str(start)


def test_searches_show_as_demand_counted_once_a_person_and_mail_nobody(server: LiveServer, dixie: Partner) -> None:
    mails_before = server.query("SELECT COUNT(*) FROM outbox")[0][0]
    search = {"zipOrLocation": "84770", "issue": "broken_cable"}
    for n in (1, 1, 2):  # the first homeowner searches twice
        headers = {"X-Forwarded-For": f"198.18.10.{n}"}
        assert httpx.post(f"{server.url}/api/v1/routeByZip", json=search, headers=headers, timeout=15).is_success
    line = "2 homeowners in 84770 looked for help with “Frayed or broken lift cable”"
    eventually(lambda: line in dixie.client.get("/partners").text)
    page = dixie.client.get("/partners").text
    assert page.count(line) == 1 and "<title>Your leads · Garage Door Tools</title>" in page
    assert server.query("SELECT COUNT(*) FROM outbox")[0][0] == mails_before


def test_a_homeowner_who_writes_spanish_is_marked_for_the_pro_and_written_to_in_spanish(
    server: LiveServer, dixie: Partner
) -> None:
    sent, homeowner = ask_for_a_pro(server, description="escuché un estallido y el portón ya no sube")
    number = sent["requestId"]
    assert "tiene su solicitud" in sent["nextStep"]  # the tool's answer speaks their language too
    eventually(lambda: any("Enviamos su solicitud a Dixie" in text for _, text, _ in mails_to(server, homeowner)))
    card = card_of(dixie.client.get("/partners/requests").text, number)
    assert "Speaks" in card and "Spanish" in card
    eventually(
        lambda: any(number in subject for subject, _, _ in mails_to(server, "office@dixie-door-and-spring.example.com"))
    )
    [text] = [
        text for subject, text, _ in mails_to(server, "office@dixie-door-and-spring.example.com") if number in subject
    ]
    assert "Speaks:  Spanish" in text
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    dixie.post(f"/partners/requests/{number}/accept", day=tomorrow, **{"from": "09:00", "until": "11:00"})
    eventually(lambda: any("aceptó su solicitud" in text for _, text, _ in mails_to(server, homeowner)))
    [accepted] = [text for _, text, _ in mails_to(server, homeowner) if "aceptó" in text]
    window = re.search(r"de (\d\d):00 a (\d\d):00 \(M[SD]T\)", accepted)  # in St. George's time, whoever accepts
    assert "Hola, Dana Reyes:" in accepted and window and int(window[2]) - int(window[1]) == 2
    english = ask_for_a_pro(server)[0]["requestId"]  # "loud bang and the door won't open"
    assert "Speaks" not in card_of(dixie.client.get("/partners/requests").text, english)


def test_a_partner_who_reads_spanish_gets_its_console_and_request_mail_in_spanish(
    server: LiveServer, dixie: Partner
) -> None:
    profile = {"phone": "(435) 555-0102", "website": "https://dixie.example.com", "insured": "", "time_zone": ""}
    assert 'lang="en"' in dixie.client.get("/partners/requests").text[:200]
    assert dixie.post("/partners/profile", **profile, language="es").status_code == 303
    try:
        assert 'value="es" lang="es" selected' in dixie.client.get("/partners/profile").text
        number = ask_for_a_pro(server, description="escuché un estallido y el portón ya no sube")[0]["requestId"]
        inbox = dixie.client.get("/partners/requests").text
        assert '<html lang="es">' in inbox and "español" in card_of(inbox, number)
        office = "office@dixie-door-and-spring.example.com"
        eventually(lambda: any(number in subject for subject, _, _ in mails_to(server, office)))
        [(subject, text)] = [(subject, text) for subject, text, _ in mails_to(server, office) if number in subject]
        assert subject.startswith(f"Solicitud de servicio {number}: ")
        assert text.startswith("Hola, Dixie Door & Spring:") and "Un cliente le pide que vaya a su casa." in text
        assert re.search(r"\nHabla: +español \(escribió en español", text), text
        assert "Hello" not in text and "Speaks" not in text
        assert '<html lang="en">' in dixie.client.get("/partners/requests?lang=en").text  # a choice for one view
    finally:
        assert dixie.post("/partners/profile", **profile, language="en").status_code == 303
    assert '<html lang="en">' in dixie.client.get("/partners/requests").text
