"""The front door in Spanish, in Debian's Chromium on a phone: a browser that asks for Spanish reads Spanish, a
Spanish description gets its diagnosis, urgency and local price in Spanish, and the pro card too; with and
without script. A screenshot goes to /tmp (SHOT) for a person to look at."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer
from tests.e2e.page_checks import PHONE, serious_findings, sideways

SHOT = Path("/tmp/garage-tools-front-door-es-phone.png")
BANG = "escuché un estallido en la cochera y el portón ya no sube"
#: English a Spanish page must not show (the cards' and the page's own words).
ENGLISH = (
    "What is your door doing", "Find a pro", "Most likely", "Possible causes", "Your local pro", "Call (",
    "Installing",  # the price's "covers", from costEstimate
)  # fmt: skip

_addresses = (f"198.18.20.{n}" for n in itertools.count(1))


@pytest.fixture
def spanish(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """A phone whose browser asks for Spanish (US), as a new visitor."""
    context = browser.new_context(
        viewport=PHONE, locale="es-US", is_mobile=True, has_touch=True,
        extra_http_headers={"X-Forwarded-For": next(_addresses)},
    )  # fmt: skip
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/")
    yield page
    context.close()


def test_a_spanish_browser_gets_the_broken_spring_and_a_pro_in_spanish(spanish: Any) -> None:
    page = spanish
    assert page.locator("html").get_attribute("lang") == "es"
    page.get_by_role("textbox", name="¿Qué le pasa a su puerta?").fill(BANG)
    page.keyboard.press("Enter")
    card = page.locator("#answer .gdr-card")
    card.wait_for()
    assert card.locator(".gdr-title").first.inner_text() == "Lo más probable: Resorte roto o fallando"
    assert "Urgente: consiga ayuda hoy" in card.inner_text()
    assert card.locator(".gdr-safety").is_visible()

    page.get_by_role("textbox", name="Código postal o ciudad").fill("84770")
    page.get_by_role("button", name="Buscar un técnico", exact=True).click()
    pro = page.locator("#pro-answer .gdr-partner")
    pro.wait_for()
    assert pro.get_by_role("link", name="Llamar al (435) 555-0102").is_visible()
    assert "Dígales que es urgente" in pro.inner_text()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#answer .gdr-cost-basis')].some(n => n.textContent.includes('cerca de'))"
    )
    shown = page.locator("main").inner_text()
    assert [words for words in ENGLISH if words in shown] == []
    assert sideways(page) == []
    assert serious_findings(page) == []
    page.screenshot(path=str(SHOT), full_page=True)


def test_without_script_the_same_spanish_answer(browser: Any, live_server: LiveServer) -> None:
    context = browser.new_context(viewport=PHONE, locale="es-US", java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/")
    page.get_by_role("textbox", name="¿Qué le pasa a su puerta?").fill(BANG)
    page.get_by_role("button", name="Obtener ayuda", exact=True).click()
    title = page.locator("#answer .gdr-title").first
    assert title.inner_text() == "Lo más probable: Resorte roto o fallando"
    context.close()


def test_the_switcher_chooses_english_and_remembers_it(spanish: Any) -> None:
    spanish.get_by_role("link", name="English").click()
    spanish.get_by_role("textbox", name="What is your door doing?").wait_for()
    spanish.reload()
    assert spanish.locator("html").get_attribute("lang") == "en"  # the cookie beats the browser's Spanish
    spanish.get_by_role("link", name="Español").click()
    spanish.get_by_role("textbox", name="¿Qué le pasa a su puerta?").wait_for()
