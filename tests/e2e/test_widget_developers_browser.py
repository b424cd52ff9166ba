"""/developers/widget: the live preview works on the service's own page, the generator writes the two lines (on
the server without script, as typed with it), and the operators' notes say whether the challenge is on."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import LiveServer
from tests.e2e.page_checks import DESKTOP, PHONE, sideways

SHOTS = Path("/tmp/widget-shots")


def code_of(page_html: str) -> str:
    match = re.search(r'<textarea[^>]*id="widget-code"[^>]*>(.*?)</textarea>', page_html, re.S)
    assert match is not None
    return html.unescape(match.group(1))


def test_the_generator_writes_the_two_lines_without_script(api: httpx.Client, live_server: LiveServer) -> None:
    query = {"partner": "red-rock-garage-doors", "zip": "84770", "accent": "#7a1fa2", "compact": "1", "lang": "es"}
    page = api.get("/developers/widget", params=query)
    assert page.status_code == 200
    assert code_of(page.text) == (
        '<div data-garage-doors data-partner-id="red-rock-garage-doors" data-zip="84770" data-accent="#7a1fa2" '
        f'data-compact data-lang="es"></div>\n<script src="{live_server.url}/widget.js" async></script>'
    )
    assert "We don't know that partner id" not in page.text
    assert 'data-partner-id="red-rock-garage-doors"' in page.text  # the preview uses the same settings
    assert "challenge is <strong>off</strong>" in page.text


def test_what_the_widget_would_ignore_stays_out_of_the_code(api: httpx.Client) -> None:
    page = api.get("/developers/widget", params={"partner": "<b>", "accent": "red", "zip": '"><script>', "lang": "fr"})
    code = code_of(page.text)
    assert "data-partner-id" not in code and "data-accent" not in code and "data-lang" not in code
    assert 'data-zip="&quot;&gt;&lt;script&gt;"' in code
    assert "<script>" not in page.text.split("<main", 1)[1].split("</main>", 1)[0]
    unknown = api.get("/developers/widget", params={"partner": "no-such-partner"})
    assert "We don't know that partner id" in unknown.text


def test_the_preview_works_and_the_code_follows_the_fields(browser: Any, live_server: LiveServer) -> None:
    page = browser.new_page(viewport=PHONE)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server.url}/developers/widget")
    page.get_by_role("button", name="won't open", exact=True).click()
    page.locator(".gdr-diagnosis").wait_for()
    page.get_by_label("Your partner id").fill("dixie-door-and-spring")
    page.get_by_label("Compact").check()
    code = page.locator("#widget-code").input_value()
    assert code.startswith('<div data-garage-doors data-partner-id="dixie-door-and-spring" data-compact></div>\n')
    page.get_by_label("Language").select_option("es")
    spanish = page.locator("#widget-code").input_value()
    assert spanish.startswith(
        '<div data-garage-doors data-partner-id="dixie-door-and-spring" data-compact data-lang="es">'
    )
    page.get_by_label("Language").select_option("")
    assert code.endswith(f'<script src="{live_server.url}/widget.js" async></script>')
    page.get_by_role("button", name="Update the code and the preview").click()
    page.wait_for_url(re.compile(r"partner=dixie-door-and-spring"))
    page.get_by_label("ZIP code or city", exact=True).first.wait_for()
    assert page.locator("[data-garage-doors]").get_attribute("data-partner-id") == "dixie-door-and-spring"
    assert sideways(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "developers-widget-390.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(SHOTS / "developers-widget-desktop.png"), full_page=True)
    assert problems == []
    page.close()
