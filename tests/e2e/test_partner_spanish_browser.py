"""The partner console in Spanish, in Chromium: every page a partner opens (sign-in steps; signed in: leads, the
request inbox, offers, an offer being changed and ended, details, webhooks, and the forms' refusals) reads in
Spanish with `?lang=es`: its heading is the Spanish one and no English sentence of the console is left on it.
Spanish runs about a fifth longer, so nothing may scroll sideways on a 390 px phone nor on a desktop, and axe-core
finds nothing serious. The inbox, leads and details pages are photographed at both widths (SHOTS).

What a homeowner typed (a description, a note) and the partner's own name stay as they were written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.page_checks import DESKTOP, PHONE, serious_findings, sideways
from tests.e2e.test_partner_browser import mail_count, newest_mail

DIXIE = "office@dixie-door-and-spring.example.com"
SHOTS = Path("/tmp/garage-tools-partners-es")
OFFER = "Resorte roto: $60 de descuento"
#: Words of the console's English that must not be left on a Spanish page (whole words, case as written).
ENGLISH = [
    "Requests", "Leads", "Offers", "Your details", "Sign out", "Sign in", "Save", "Show", "Accept", "Decline",
    "Homeowner", "Homeowners", "Received", "From", "Until", "Why", "Change", "End now", "Remove", "Add",
    "Nothing was saved", "Enter a", "Choose", "No leads", "No requests", "Partner ID", "Urgent", "Discount",
    "Title", "Hours", "Phone number", "Website", "Your time zone", "within", "minutes", "seconds", "the", "your",
    "you", "and", "of", "is", "are", "we", "ZIP",
]  # fmt: skip
#: What a homeowner typed, shown as written: taken out of the page's text before looking for English.
TYPED = ["loud bang and the door won't open", "The gate code is 4412; the dog is friendly."]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("partners-es"),
        {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1", "GARAGE_TOOLS_PARTNER_REFRESH_SECONDS": "300"},
    )
    yield live
    stop_server(live)


def english_left(page: Any) -> list[str]:
    """The console's English words still on the page (its main part and header, not what homeowners typed)."""
    text = page.locator("body").inner_text()
    for typed in TYPED:
        text = text.replace(typed, "")
    return [word for word in ENGLISH if re.search(rf"(?<![\w@.-]){re.escape(word)}(?![\w@-])", text)]


def spanish(page: Any, heading: str | re.Pattern[str]) -> None:
    """The page's first heading is `heading`, no console English is left, nothing scrolls sideways, axe is happy."""
    page.wait_for_load_state("networkidle")
    assert page.locator("html").get_attribute("lang") == "es", page.url
    page.get_by_role("heading", level=1, name=heading).wait_for()
    assert english_left(page) == [], page.url
    assert sideways(page) == [], page.url
    assert serious_findings(page) == [], page.url


def homeowners_reach_dixie(server: LiveServer) -> None:
    """A search (demand), an inspection lead with the homeowner's details, and a request to come out."""
    search = {"zipOrLocation": "84770", "issue": "broken_spring", "doorSize": "16x7", "leadHeat": "hot"}
    httpx.post(f"{server.url}/api/v1/routeByZip", json=search, timeout=10)
    inspection = {
        "recipient": {"email": "sam.rivera@example.com", "zip": "84770", "name": "Sam Rivera"},
        "consent": {"marketing": False, "contactShare": True},
        "items": {"springs": {"status": "fix"}},
    }
    assert httpx.post(f"{server.url}/api/v1/submitInspection", json=inspection, timeout=15).status_code == 200
    asked = {
        "partnerId": "dixie-door-and-spring",
        "zip": "84770",
        "description": TYPED[0],
        "contact": {"name": "Dana Reyes", "phone": "(435) 555-0177", "email": "dana.reyes@example.com"},
        "consent": {"contactShare": True},
        "notes": TYPED[1],
    }
    assert httpx.post(f"{server.url}/api/v1/requestService", json=asked, timeout=10).status_code == 200


def sign_in_in_spanish(server: LiveServer, page: Any) -> None:
    page.goto(f"{server.url}/partners?lang=es")
    spanish(page, "Panel de asociados")
    seen = mail_count(server, DIXIE, "partner_link")
    page.get_by_label("Correo electrónico").fill(DIXIE)
    page.get_by_role("button", name="Envíenme un enlace para entrar").click()
    spanish(page, "Revise su bandeja de entrada")
    mail = newest_mail(server, DIXIE, "partner_link", seen=seen)
    assert "Abra este enlace para entrar a su panel de asociado" in mail  # asked for in Spanish: said in Spanish
    link = re.search(r"http://\S+/partners/confirm/\S+", mail)
    assert link
    page.goto(f"{link.group(0)}?lang=es")
    spanish(page, "Inicie sesión en su panel de asociado")
    page.get_by_role("button", name="Iniciar sesión").click()
    # Signed in, the console speaks the partner's own language (its profile's); `?lang=es` still asks for Spanish.
    page.wait_for_url(re.compile(r"/partners$"))


def test_every_console_page_reads_in_spanish(browser: Any, server: LiveServer) -> None:
    homeowners_reach_dixie(server)
    SHOTS.mkdir(exist_ok=True)
    for viewport in (PHONE, DESKTOP):
        width = viewport["width"]
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.set_default_timeout(15_000)
        sign_in_in_spanish(server, page)
        console = f"{server.url}/partners"

        page.goto(f"{console}?lang=es")
        spanish(page, "Sus clientes potenciales")
        lead = page.locator("ol.leads > li").first.inner_text()
        assert "Sam Rivera" in lead and "Informe de inspección" in lead and "Urgente" in lead
        assert "buscó" in page.locator(".demand").inner_text()  # the search, said as a Spanish sentence
        page.screenshot(path=str(SHOTS / f"leads-{width}.png"), full_page=True)
        page.goto(f"{console}?lang=es&from=pronto&heat=tibio")
        spanish(page, "Sus clientes potenciales")
        assert "Escriba una fecha como" in page.locator("#from-error").inner_text()

        page.goto(f"{console}/requests?lang=es")
        spanish(page, "Solicitudes")
        request = page.locator(".request").first
        assert "Nueva" in request.inner_text() and "Cliente" in request.inner_text()
        page.screenshot(path=str(SHOTS / f"requests-{width}.png"), full_page=True)

        page.goto(f"{console}/profile?lang=es")
        spanish(page, "Sus datos")
        page.screenshot(path=str(SHOTS / f"profile-{width}.png"), full_page=True)
        page.goto(f"{console}/promotions?lang=es")
        spanish(page, "Sus ofertas")
        page.goto(f"{console}/webhooks?lang=es")
        spanish(page, "Webhooks")
        context.close()


def test_a_partner_who_reads_spanish_gets_every_answer_in_spanish(browser: Any, server: LiveServer) -> None:
    """With Spanish chosen in the profile, the answers to the console's forms (refusals, notices) are Spanish too."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(15_000)
    sign_in_in_spanish(server, page)
    console = f"{server.url}/partners"
    page.goto(f"{console}/profile?lang=es")
    page.get_by_label("Idioma").select_option("es")
    page.get_by_role("button", name="Guardar").click()
    page.get_by_text("Guardado.").wait_for()
    spanish(page, "Sus datos")
    page.get_by_label("Número de teléfono").fill("12")
    page.get_by_label("Año en que empezó su negocio").fill("3000")
    page.get_by_role("button", name="Guardar").click()
    page.get_by_text("No se guardó nada").wait_for()
    spanish(page, "Sus datos")
    assert "Un año como 1998 (hasta" in page.locator("#since-error").inner_text()  # a sentence with a value

    page.goto(f"{console}/requests")
    request = page.locator(".request").first
    request.get_by_label("Desde").fill("11:00")
    request.get_by_label("Hasta").fill("09:00")
    request.get_by_role("button", name="Aceptar", exact=True).click()
    page.get_by_text("El final del horario debe ser después del inicio.").wait_for()
    spanish(page, "Solicitudes")

    page.goto(f"{console}/promotions")
    page.get_by_role("button", name="Publicar la oferta").click()  # empty: every field says what it needs
    page.get_by_text("No se guardó nada").wait_for()
    spanish(page, "Sus ofertas")
    page.get_by_label("Título").fill(OFFER)
    page.get_by_label("Lo que reciben los clientes").fill("Resortes de torsión nuevos y la puerta balanceada.")
    page.get_by_label("Cuánto").fill("60")
    page.get_by_label("Último día").fill((datetime.now(UTC).date() + timedelta(days=30)).isoformat())
    page.get_by_role("button", name="Publicar la oferta").click()
    page.get_by_text("Su oferta se guardó.").wait_for()
    spanish(page, "Sus ofertas")
    assert "$60 de descuento" in page.locator("ul.offers").inner_text()
    page.get_by_role("link", name=f"Cambiar la oferta “{OFFER}”").click()
    spanish(page, f"Cambiar la oferta “{OFFER}”")
    page.goto(f"{page.url}/end")
    spanish(page, f"¿Terminar “{OFFER}” ahora?")

    page.goto(f"{console}/webhooks")
    page.get_by_label("Agregar una dirección web").fill("https://")
    page.get_by_role("button", name="Agregar", exact=True).click()
    page.get_by_text("La dirección debe empezar con https://").wait_for()
    spanish(page, "Webhooks")
    context.close()
