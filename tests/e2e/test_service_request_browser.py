"""The issue's "done when", homeowner side, in Debian's Chromium on a phone (390 px): a loud bang in 84770, the
pro card names Dixie Door & Spring, "Ask this pro to come out", a name, a phone number and Tuesday morning, and
a request number on the status page; the pro is e-mailed within seconds. Then the same on a phone without
JavaScript, cancelled from the status page. Screenshots go to /tmp (PHONE_SHOT, STATUS_SHOT, DESKTOP_SHOT)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.page_checks import DESKTOP, PHONE, serious_findings, sideways
from tests.e2e.test_home_browser import Visit
from tests.polling import eventually

DIXIE = "dixie-door-and-spring"
PHONE_SHOT = Path("/tmp/garage-tools-request-form-phone.png")
STATUS_SHOT = Path("/tmp/garage-tools-request-status-phone.png")
DESKTOP_SHOT = Path("/tmp/garage-tools-request-status-desktop.png")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("request-journey"), {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1"})
    yield live
    stop_server(live)


def check(page: Any) -> None:
    page.wait_for_load_state("networkidle")
    assert sideways(page) == [], page.url
    assert serious_findings(page) == [], page.url


def partner_mail(server: LiveServer, number: str, seconds: float = 5) -> str:
    rows = eventually(
        lambda: server.query(
            "SELECT text_body FROM outbox WHERE to_address = $1 AND subject LIKE $2",
            f"office@{DIXIE}.example.com",
            f"%{number}%",
        ),
        seconds=seconds,
        what=f"an e-mail to the pro about {number}",
    )
    return str(rows[0][0])


def ask_for_the_pro(visit: Visit, server: LiveServer) -> Any:
    """The front door: the problem, the ZIP code, the pro's card; then the pro card's button to the form."""
    visit.ask("loud bang and the door won't open")
    card = visit.find_pro("84770")
    assert card.locator(".gdr-partner-name").inner_text() == "Dixie Door & Spring"
    card.get_by_role("link", name="Ask this pro to come out").click()
    visit.page.wait_for_url(re.compile(r"/requests/new\?partner=dixie-door-and-spring&zip=84770&issue=banging_noise$"))
    return visit.page


def test_on_a_phone_a_homeowner_asks_dixie_to_come_out_on_tuesday_morning(browser: Any, server: LiveServer) -> None:
    visit = Visit(browser, server, viewport=PHONE)
    page = ask_for_the_pro(visit, server)
    page.get_by_role("heading", name="Ask Dixie Door & Spring to come out").wait_for()
    page.get_by_role("textbox", name="Your name").fill("Dana Reyes")
    page.get_by_role("textbox", name="Phone number").fill("(435) 555-0199")
    day = page.get_by_label("Day", exact=True)
    tuesday = next(o for o in day.locator("option").all_inner_texts() if o.startswith("Tue"))
    day.select_option(label=tuesday)
    page.get_by_label("Time of day").select_option(label="Morning")
    page.get_by_label(re.compile("Send my name, phone number and e-mail address to Dixie")).check()
    check(page)
    page.screenshot(path=str(PHONE_SHOT), full_page=True)
    started = time.monotonic()
    page.get_by_role("button", name="Send my request").click()
    heading = page.get_by_role("heading", name=re.compile(r"Request R-\d{4}-\d{4} sent"))
    heading.wait_for()
    number = re.search(r"R-\d{4}-\d{4}", heading.inner_text())
    assert number
    assert "Sent to Dixie Door & Spring" in page.locator("main").inner_text()
    assert tuesday.replace("  ", " ") in page.locator("main").inner_text()
    notice = partner_mail(server, number.group(0))
    assert time.monotonic() - started < 5
    assert "Dana Reyes" in notice and "(435) 555-0199" in notice and "morning" in notice
    check(page)
    page.screenshot(path=str(STATUS_SHOT), full_page=True)
    assert visit.problems == []
    visit.context.close()


def test_without_javascript_the_form_and_the_status_page_work(browser: Any, server: LiveServer) -> None:
    context = browser.new_context(
        viewport=DESKTOP, java_script_enabled=False, extra_http_headers={"X-Forwarded-For": "198.51.100.77"}
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    query = urlencode({"partner": DIXIE, "zip": "84770", "description": "loud bang"})
    page.goto(f"{server.url}/requests/new?{query}")
    page.get_by_role("textbox", name="Your name").fill("Sam Rivera")
    page.get_by_role("textbox", name="E-mail address").fill("sam@example.com")
    page.get_by_role("button", name="Send my request").click()
    assert "Tick the box" in page.locator("main").inner_text()  # no consent: said plainly, nothing sent
    page.get_by_label(re.compile("Send my name")).check()
    page.get_by_role("button", name="Send my request").click()
    page.get_by_role("heading", name=re.compile(r"Request R-\d{4}-\d{4} sent")).wait_for()
    page.screenshot(path=str(DESKTOP_SHOT), full_page=True)
    page.get_by_role("button", name="Cancel my request").click()
    page.get_by_text("You cancelled this request.").wait_for()
    assert page.get_by_role("button", name="Cancel my request").count() == 0
    context.close()
