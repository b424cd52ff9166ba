"""Every page a person can open, in Chromium: no serious or critical axe-core finding, and nothing scrolls
sideways on a 390 px phone (nor on a desktop).

The pages: the homeowner's (with and without answers), door styles, a part gallery, the inspection form and a
report, the developer portal (landing, sign-in steps, a signed-in dashboard with a long key name), the partner
console (sign-in steps; signed in: leads, filters, offers, an offer being changed, details, with every field's
refusal shown), the API reference, the changelog, the agents' guide, the labs and every lab, privacy, and the
not-found page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.page_checks import DESKTOP, PHONE, axe_source, serious_findings, sideways
from tests.e2e.test_partner_browser import mail_count, newest_mail
from tests.e2e.test_portal_browser import link_from_mailbox

STATIC_PAGES = [
    "/",
    "/styles",
    "/styles?budget=premium&type=insulated&maxPriceUsd=6000&minRValue=12",
    "/styles?maxPriceUsd=10",
    "/parts/springs",
    "/inspection",
    "/developers",
    "/developers/api",
    "/developers/widget",
    "/developers/widget?partner=red-rock-garage-doors&zip=84770&accent=%237a1fa2&compact=1",
    "/developers/changelog",
    "/developers/sign-in",
    "/developers/sign-in/sent",
    "/developers/confirm/not-a-real-token",
    "/partners",
    "/partners/sign-in/sent",
    "/partners/confirm/not-a-real-token",
    "/ai",
    "/api/v1/diagnose",
    "/labs",
    "/privacy",
    "/no-such-page",
]
LAB_SLUGS = [
    "science-of-garage-doors",
    "science-of-garage-door-springs",
    "energy-efficiency-lab",
    "garage-door-roi",
    "rolling-steel-lab",
    "spring-fatigue-cold-weather",
    "safety-systems-lab",
    "garage-door-trainer",
    "garage-door-anatomy",
    "spring-powered-catapult",
    "animated",
]
ITEMS = {"springs": "fix", "cables": "watch", "rollers": "fix", "hinges": "ok", "track": "watch"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    axe_source()  # installs the pinned engine once, before any page is opened
    live = start_server(tmp_path_factory.mktemp("pages"), {"GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.2"})
    yield live
    stop_server(live)


@pytest.fixture(scope="module")
def report_path(server: LiveServer) -> str:
    body = {
        "recipient": {"email": "pages@example.com", "zip": "84770", "name": "Robin"},
        "consent": {"marketing": False, "contactShare": False},
        "items": {item: {"status": status, "note": "seen from the floor"} for item, status in ITEMS.items()},
        "notes": "A long note with a long word: " + "supercalifragilistic" * 5,
    }
    answer = httpx.post(f"{server.url}/api/v1/submitInspection", json=body, timeout=15)
    assert answer.status_code == 200, answer.text
    url = answer.json()["reportUrl"]
    return re.sub(r"^https?://[^/]+", "", url)


def check(page: Any) -> None:
    page.wait_for_load_state("networkidle")
    assert sideways(page) == [], page.url
    assert serious_findings(page) == [], page.url


@pytest.fixture(scope="module")
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.mark.parametrize("path", STATIC_PAGES + [f"/labs/{slug}" for slug in LAB_SLUGS])
def test_a_page_on_a_phone(phone: Any, server: LiveServer, path: str) -> None:
    phone.goto(f"{server.url}{path}")
    check(phone)


def test_a_report_on_a_phone(phone: Any, server: LiveServer, report_path: str) -> None:
    phone.goto(f"{server.url}{report_path}")
    check(phone)


def test_the_home_page_with_answers_and_refusals(phone: Any, server: LiveServer) -> None:
    phone.goto(f"{server.url}/")
    phone.get_by_role("textbox", name="ZIP code or city").fill("St. George")
    phone.get_by_role("button", name="Find a pro").click()
    phone.locator("#pro-answer .help-choices").wait_for()  # the likeliest place's pro, and the other places
    phone.get_by_role("textbox", name="What is your door doing?").fill("my cat is sad")
    phone.keyboard.press("Enter")
    phone.locator("#answer .gdr-nomatch").wait_for()
    check(phone)
    phone.get_by_role("textbox", name="ZIP code or city").fill("Nowhere Town")
    phone.get_by_role("button", name="Find a pro").click()
    phone.locator("#pro-answer .gdr-message").wait_for()
    check(phone)


def test_the_dashboard_of_a_signed_in_developer(browser: Any, server: LiveServer) -> None:
    for viewport in (PHONE, DESKTOP):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(15_000)
        address = f"pages-{viewport['width']}@example.com"
        page.goto(f"{server.url}/developers")
        page.get_by_label("E-mail address").fill(address)
        page.get_by_role("button", name="E-mail me a sign-in link").click()
        page.get_by_role("heading", name="Check your inbox").wait_for()
        page.goto(link_from_mailbox(server, address))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/developers/dashboard")
        page.get_by_label("Name").fill("the build server in the basement, second rack from the left")
        page.get_by_role("button", name="Create key").click()
        page.locator("#new-key").wait_for()
        check(page)
        page.reload()  # the page a POST redirected to: reloading sends no form again
        check(page)
        assert page.locator("#new-key").count() == 0 and page.locator("table.keys tbody tr").count() == 1
        revoke = page.get_by_role("button", name=re.compile("Revoke key")).first.bounding_box()
        assert revoke is not None and revoke["x"] + revoke["width"] <= viewport["width"], revoke  # on screen
        context.close()


@pytest.mark.parametrize("path", ["/", "/styles", "/ai", "/developers", "/developers/api", "/inspection", "/labs"])
def test_a_page_on_a_desktop(browser: Any, server: LiveServer, path: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{server.url}{path}")
    check(page)
    context.close()


def test_the_api_reference_with_an_operation_open(phone: Any, server: LiveServer) -> None:
    phone.goto(f"{server.url}/developers/api")
    phone.locator("#operations-tools-diagnose .opblock-summary-control").click()
    phone.get_by_role("button", name="Try it out").click()
    phone.get_by_role("button", name="Execute").click()
    phone.locator("#operations-tools-diagnose .responses-table .response").first.wait_for()
    check(phone)


def test_the_console_of_a_signed_in_partner(browser: Any, server: LiveServer) -> None:
    """Leads (one with the homeowner's details), a refused filter, offers and details with every refusal shown, and
    the request inbox with a refused arrival window."""
    address = "office@dixie-door-and-spring.example.com"
    for heat in ("hot", "warm"):
        body = {"zipOrLocation": "84770", "issue": "broken_spring", "doorSize": "16x7", "leadHeat": heat}
        httpx.post(f"{server.url}/api/v1/routeByZip", json=body, timeout=10)
    asked = {
        "partnerId": "dixie-door-and-spring",
        "zip": "84770",
        "description": "loud bang and the door won't open",
        "contact": {"name": "Dana Reyes", "phone": "(435) 555-0199", "email": "dana.reyes@example.com"},
        "consent": {"contactShare": True},
        "notes": "The gate code is 4412; the dog is friendly.",
    }
    assert httpx.post(f"{server.url}/api/v1/requestService", json=asked, timeout=10).status_code == 200
    for viewport in (PHONE, DESKTOP):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"{server.url}/partners")
        seen = mail_count(server, address, "partner_link")
        page.get_by_label("E-mail address").fill(address)
        page.get_by_role("button", name="E-mail me a sign-in link").click()
        page.get_by_role("heading", name="Check your inbox").wait_for()
        text = newest_mail(server, address, "partner_link", seen=seen)  # queued just after the page answers
        link = re.search(r"http://\S+/partners/confirm/\S+", text)
        assert link
        page.goto(link.group(0))
        check(page)
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("heading", name="Your leads").wait_for()
        check(page)
        if viewport is PHONE:
            page.screenshot(path="/tmp/garage-tools-partners-phone.png", full_page=True)
        page.goto(f"{server.url}/partners?from=soon&heat=lukewarm")
        check(page)
        page.goto(f"{server.url}/partners/promotions")
        page.get_by_role("button", name="Publish the offer").click()  # empty: every field says what it needs
        page.get_by_text("Nothing was saved").wait_for()
        check(page)
        page.goto(f"{server.url}/partners/promotions")
        page.get_by_role("link", name=re.compile("^Change the offer")).first.click()
        page.get_by_role("heading", name=re.compile("^Change the offer")).wait_for()
        check(page)
        page.goto(f"{server.url}/partners/profile")
        page.get_by_label("Phone number").fill("12")
        page.get_by_label("Website").fill("http://plain.example.com")
        page.get_by_role("button", name="Save").click()
        page.get_by_text("Nothing was saved").wait_for()
        check(page)
        page.goto(f"{server.url}/partners/requests")
        request = page.locator(".request").first
        check(page)
        if viewport is PHONE:
            page.screenshot(path="/tmp/garage-tools-requests-phone.png", full_page=True)
        request.get_by_label("From").fill("11:00")
        request.get_by_label("Until").fill("09:00")
        request.get_by_role("button", name="Accept").click()
        page.get_by_text("must come after its start").wait_for()
        check(page)
        context.close()
