"""Which language a page is in, on a real server: an explicit `?lang=` choice, remembered; else the browser's."""

from __future__ import annotations

import httpx

from tests.conftest import LiveServer

SPANISH_BROWSER = {"Accept-Language": "es-US,es;q=0.9,en;q=0.5"}


def html_lang(response: httpx.Response) -> str:
    return response.text.split('<html lang="', 1)[1].split('"', 1)[0]


def test_a_browser_asking_for_spanish_gets_spanish(live_server: LiveServer) -> None:
    page = httpx.get(f"{live_server.url}/privacy", headers=SPANISH_BROWSER)
    assert html_lang(page) == "es" and "Obtener ayuda" in page.text and "Get help" not in page.text
    assert "Accept-Language" in page.headers["vary"] and "Cookie" in page.headers["vary"]


def test_english_is_the_default(live_server: LiveServer) -> None:
    page = httpx.get(f"{live_server.url}/privacy", headers={"Accept-Language": "fr-FR,de;q=0.5"})
    assert html_lang(page) == "en" and "Get help" in page.text


def test_an_explicit_choice_is_remembered_and_beats_the_browser(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.url) as browser:
        chosen = browser.get("/privacy?lang=en", headers=SPANISH_BROWSER)
        assert html_lang(chosen) == "en"
        assert "lang=en" in chosen.headers["set-cookie"] and "SameSite=lax" in chosen.headers["set-cookie"]
        assert html_lang(browser.get("/privacy", headers=SPANISH_BROWSER)) == "en"  # the cookie, not the header
        assert html_lang(browser.get("/privacy?lang=es")) == "es"
        assert html_lang(browser.get("/privacy")) == "es"


def test_an_unknown_language_choice_is_ignored(live_server: LiveServer) -> None:
    page = httpx.get(f"{live_server.url}/privacy?lang=xx", headers=SPANISH_BROWSER)
    assert html_lang(page) == "es" and "set-cookie" not in page.headers


def test_a_parts_reference_pictures_read_in_spanish_words_and_pictures(live_server: LiveServer) -> None:
    page = httpx.get(f"{live_server.url}/parts/springs", headers=SPANISH_BROWSER)
    assert html_lang(page) == "es" and "qué revisar" in page.text and "what to look for" not in page.text
    assert "Necesita reparación" in page.text and "Needs repair" not in page.text
    assert page.text.count(".es.webp?v=") == 3  # the pictures' own words are Spanish too
    english = httpx.get(f"{live_server.url}/parts/springs")
    assert "what to look for" in english.text and ".es.webp" not in english.text
