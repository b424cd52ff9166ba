"""The 24-point inspection in Spanish, in Debian's Chromium on a phone and on a desktop: a browser that asks for
Spanish gets the form in Spanish, sends its language with the answers and gets a Spanish report page; nothing
scrolls sideways (Spanish runs about a fifth longer) and axe-core finds nothing serious. Screenshots go to /tmp
(SHOTS) for a person to look at."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from garage_tools.catalogs import translations
from garage_tools.knowledge.loader import packaged_checklist
from garage_tools.knowledge.photos import packaged_photo_library
from garage_tools.web.part_drawings import drawings_of
from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.page_checks import DESKTOP, PHONE, serious_findings, sideways

SHOTS = Path("/tmp/garage-tools-inspection-es")  # form-<viewport>.png and report-<viewport>.png
#: English a Spanish form or report must not show (the pictures' captions and alt texts included).
ENGLISH = (
    "24-point", "Torsion or extension springs", "Springs and cables", "Opener and safety", "Not checked", "Watch",
    "Add a note", "Check a photo", "A local pro may contact me", "Get my report", "checked", "Stop using the door",
    "What to do next", "Your local pro", "All 24 points", "How the score works", "Grade ", "Book online",
)  # fmt: skip
_addresses = (f"198.18.29.{n}" for n in itertools.count(1))
ENGLISH_DRAWINGS = drawings_of(packaged_checklist(), packaged_photo_library())
spanish = translations("es").gettext


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("inspection-es-browser"), {"GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.2"})
    yield live
    stop_server(live)


def choose(page: Any, label: str, answer: str) -> None:
    page.get_by_role("group", name=label).get_by_role("radio", name=answer, exact=True).check()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_spanish_browser_fills_in_the_form_and_reads_a_spanish_report(
    server: LiveServer, browser: Any, viewport: dict[str, int]
) -> None:
    phone = viewport == PHONE
    context = browser.new_context(
        viewport=viewport, locale="es-US", is_mobile=phone, has_touch=phone,
        extra_http_headers={"X-Forwarded-For": next(_addresses)},
    )  # fmt: skip
    page = context.new_page()
    page.set_default_timeout(15_000)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    name = "phone" if phone else "desktop"
    SHOTS.mkdir(exist_ok=True)

    page.goto(f"{server.url}/inspection")
    assert page.locator("html").get_attribute("lang") == "es"
    page.get_by_role("heading", name="Inspección de 24 puntos de la puerta de la cochera").wait_for()
    assert page.get_by_role("heading", name="Resortes y cables").is_visible()
    page.get_by_label("Correo electrónico").fill(f"ana.{name}@example.com")
    page.get_by_label("Código postal").fill("84770")
    page.get_by_label("Nombre").fill("Ana Ruiz")
    choose(page, "Resortes de torsión o de extensión", "Reparar")
    choose(page, "Cables de elevación", "Vigilar")
    choose(page, "Rodillos", "Bien")
    assert page.locator("#progress").inner_text() == "3 de 24 revisados"
    # A spring marked Fix: the checks that move the door say to skip them, in Spanish.
    skip = page.get_by_role("group", name="Equilibrio de la puerta").locator("[data-skip]")
    assert skip.is_visible() and "Sáltese este punto" in skip.inner_text()
    page.get_by_label("Un técnico local puede comunicarse conmigo").check()
    shown = page.locator("main").inner_text()  # the drawings' captions too: the form shows them from the catalog
    assert [words for words in ENGLISH if words in shown] == []
    drawing = page.get_by_role("group", name="Resortes de torsión o de extensión").locator("img").first
    assert drawing.get_attribute("alt") == spanish(ENGLISH_DRAWINGS["springs"].alt) != ENGLISH_DRAWINGS["springs"].alt
    assert sideways(page) == []
    assert serious_findings(page) == []
    page.screenshot(path=str(SHOTS / f"form-{name}.png"), full_page=True)

    page.get_by_role("button", name="Ver mi informe").click()
    answered = "() => !document.getElementById('result').hidden || !document.getElementById('form-status').hidden"
    page.wait_for_function(answered, timeout=60_000)  # a first routing reads the US places
    assert page.locator("#form-status").is_hidden(), page.locator("#form-status").inner_text()
    assert page.locator("#result-grade").inner_text() == "F"
    assert page.locator("#result-label").inner_text().startswith("No es segura hasta que la reparen")
    assert page.locator("#result-next").inner_text().startswith("Deje de usar la puerta")
    assert "También le enviamos el informe por correo" in page.locator("#result-email").inner_text()
    link = page.get_by_role("link", name="Abrir su informe")
    url = link.get_attribute("href")
    assert url is not None

    link.click()
    page.wait_for_url(url)
    page.get_by_role("heading", name="Inspección de la puerta de la cochera de Ana").wait_for()
    assert page.locator("html").get_attribute("lang") == "es"
    text = page.locator("main").inner_text()  # the reference pictures' captions too, from the catalog
    assert "Deje de usar la puerta" in text and "Los 24 puntos" in text and "Resortes de torsión" in text
    captions = page.locator("figure.picture figcaption").all_inner_texts()
    assert captions and all("Dibujo" not in c and "Healthy" not in c and "Illustration" not in c for c in captions)
    alts = [img.get_attribute("alt") or "" for img in page.locator("figure.picture img").all()]
    assert alts and all(alt.startswith("Dibujo") for alt in alts)
    assert [words for words in ENGLISH if words in text] == []
    assert page.get_by_role("button", name="Imprimir este informe").is_visible()
    assert sideways(page) == []
    assert serious_findings(page) == []
    page.screenshot(path=str(SHOTS / f"report-{name}.png"), full_page=True)
    assert problems == []
    context.close()


def answering(status: int, headers: dict[str, str], body: str) -> Any:
    """A route handler that answers every call with this refusal."""
    return lambda route: route.fulfill(status=status, headers=headers, content_type="application/json", body=body)


def test_a_refusal_reads_in_the_pages_language(server: LiveServer, browser: Any) -> None:
    """A limit or an outage says what to do in Spanish; so does an answer the service could not use."""
    context = browser.new_context(locale="es-US", extra_http_headers={"X-Forwarded-For": next(_addresses)})
    page = context.new_page()
    page.set_default_timeout(15_000)
    refusals = [
        (429, {"Retry-After": "42"}, "rate_limited", "Espere 42 segundos"),
        (503, {"Retry-After": "5"}, "service_unavailable", "Algo falló de nuestro lado"),
        (400, {}, "invalid_arguments", "No pudimos usar lo que escribió"),
    ]
    page.goto(f"{server.url}/inspection")
    page.get_by_label("Correo electrónico").fill("ana.refused@example.com")
    page.get_by_label("Código postal").fill("84770")
    choose(page, "Rodillos", "Bien")
    status = page.locator("#form-status")
    for code, headers, name, says in refusals:
        envelope = {"error": {"code": name, "message": "An English message.", "status": code}}
        page.route("**/api/v1/submitInspection", answering(code, headers, json.dumps(envelope)))
        page.get_by_role("button", name="Ver mi informe").click()
        status.wait_for(state="visible")
        assert says in status.inner_text() and "English" not in status.inner_text(), status.inner_text()
        page.unroute("**/api/v1/submitInspection")
    context.close()
