"""Trust pages through the real app: /about names the contact from the settings, every homeowner page's footer
shows it (developer links stay on developer pages), and a person who follows a dead link gets a page for people."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.settings import Settings

EMAIL, PHONE = "help@doors.example.com", "(435) 555-0100"
BROWSER = {"Accept": "text/html,application/xhtml+xml"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(_env_file=None, data_dir=tmp_path, contact_email=EMAIL, contact_phone=PHONE)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def footer(html: str) -> str:
    return html[html.index("<footer") : html.index("</footer>")]


def test_about_names_the_contact(client: TestClient) -> None:
    page = client.get("/about")
    assert page.status_code == 200
    assert f'href="mailto:{EMAIL}"' in page.text and 'href="tel:+14355550100"' in page.text
    assert "Regional Price Parities" in page.text  # how prices are worked out


@pytest.mark.parametrize("path", ["/", "/inspection", "/styles", "/privacy", "/about"])
def test_homeowner_pages_show_the_contact_and_no_developer_links(client: TestClient, path: str) -> None:
    bottom = footer(client.get(path).text)
    assert EMAIL in bottom and PHONE in bottom and 'href="/about"' in bottom
    assert "/openapi.json" not in bottom and "llms.txt" not in bottom and "Version" not in bottom


@pytest.mark.parametrize("path", ["/developers", "/developers/api", "/ai", "/developers/changelog"])
def test_developer_pages_keep_their_links(client: TestClient, path: str) -> None:
    bottom = footer(client.get(path).text)
    assert "/openapi.json" in bottom and "llms.txt" in bottom


def test_a_dead_link_gets_a_page_for_people_and_an_api_client_the_envelope(client: TestClient) -> None:
    page = client.get("/no-such-page", headers=BROWSER)
    assert page.status_code == 404
    assert "find that page" in page.text and 'href="/inspection"' in page.text and 'href="/about#contact"' in page.text
    assert "/developers/api" not in page.text.split("<main", 1)[1].split("</main>", 1)[0]
    api = client.get("/no-such-page", headers={"Accept": "application/json"})
    assert api.status_code == 404 and api.json()["error"]["status"] == 404
    spanish = client.get("/no-such-page<b>", headers={**BROWSER, "Accept-Language": "es-MX"})
    assert spanish.status_code == 404 and '<html lang="es"' in spanish.text
    assert "No encontramos esa página" in spanish.text and "Revise su puerta punto por punto" in spanish.text
    assert "<code>/no-such-page&lt;b&gt;</code>" in spanish.text  # the path as text, never as markup


def test_without_a_contact_the_about_page_says_so(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(_env_file=None, data_dir=tmp_path))) as client:
        page = client.get("/about")
    assert "have not published a contact address yet" in page.text
    assert "mailto:" not in footer(page.text)


def test_a_malformed_contact_stops_start_up(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        Settings(_env_file=None, data_dir=tmp_path, contact_email="not an address")
    with pytest.raises(ValidationError):
        Settings(_env_file=None, data_dir=tmp_path, contact_phone="call me")


def test_about_and_privacy_read_in_spanish_with_the_services_own_facts(client: TestClient) -> None:
    spanish = {**BROWSER, "Accept-Language": "es-US,es;q=0.9"}
    about = client.get("/about", headers=spanish).text
    assert '<html lang="es"' in about and "Cómo se calculan las respuestas" in about
    assert f'href="mailto:{EMAIL}"' in about and "How the answers are worked out" not in about
    privacy = client.get("/privacy", headers=spanish).text
    assert "Borrar sus datos" in privacy and "Deleting your data" not in privacy
    days = re.search(r"Las inspecciones se guardan (\d+) días", privacy)
    assert days is not None and int(days.group(1)) > 0  # the setting's figure, in the Spanish sentence
