"""The contractor widget (/widget.js) in Chromium, on a contractor's page served from another loopback origin.

The host page is the two lines the developer page hands out (a `<div data-garage-doors>` and the script), so
every call the widget makes is cross-origin, as on a contractor's site. The journeys: a chip, free text, a ZIP
code and a city; the contractor's own partner id preferred; a strict host CSP; host CSS that tries to reach in
(and our CSS that must not reach out); plain-word errors for 429, 5xx and offline; a phone at 390 px with no
sideways scroll and no serious axe-core finding.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.page_checks import DESKTOP, PHONE, serious_findings, sideways
from tests.fakes.host_site import HostSite, Page

SHOTS = Path("/tmp/widget-shots")
HEADING, SPANISH_HEADING = "What is your garage door doing?", "¿Qué hace su puerta de cochera?"
SMALL_PHONE = {"width": 320, "height": 640}
HOST_CSS = """
html { font-size: 10px; }
body { font-family: serif; color: rgb(255, 0, 0); line-height: 3; letter-spacing: 4px; text-transform: uppercase; }
button { background: rgb(0, 255, 0) !important; border-radius: 0; }
p, h2, h3 { margin: 90px 0; }
.gdr-title { font-size: 13px; }
"""


def host_page(service: str, attributes: str = "", head: str = "", before: str = "", after: str = "") -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>Acme Garage Doors</title>{head}</head>
<body><main><h1>Acme Garage Doors</h1>{before}
<div data-garage-doors {attributes}></div>
<script src="{service}/widget.js" async></script>{after}
</main></body></html>"""


def strict_csp(service: str) -> dict[str, str]:
    """The host policy the issue names: everything from the service, nothing inline, nothing else."""
    return {
        "Content-Security-Policy": (
            f"default-src 'none'; script-src {service}; connect-src {service}; style-src {service}; "
            f"img-src {service} data:"
        )
    }


@pytest.fixture(scope="module")
def site(live_server: LiveServer) -> Iterator[HostSite]:
    host = HostSite()
    service = live_server.url
    host.pages = {
        "/plain.html": Page(host_page(service)),
        "/strict.html": Page(host_page(service), strict_csp(service)),
        "/partner.html": Page(host_page(service, 'data-partner-id="dixie-door-and-spring" data-zip="84770"')),
        "/spanish.html": Page(host_page(service, 'data-lang="es"')),
        "/spanish-site.html": Page(host_page(service).replace('<html lang="en">', '<html lang="es-MX">')),
        "/later.html": Page(
            host_page(service, after=f'<script src="{service}/widget.js"></script><button id="add">Add</button>')
            .replace("<div data-garage-doors ></div>", "")
            .replace(
                "</main>",
                "<script>document.getElementById('add').onclick = function () {"
                " var box = document.createElement('div'); document.querySelector('main').appendChild(box);"
                " GarageDoors.mount(box); };</script></main>",
            )
        ),
        "/styled.html": Page(
            host_page(
                service,
                'data-accent="#7a1fa2" data-compact',
                head=f"<style>{HOST_CSS}</style>",
                before='<section class="gdr-card"><h2 class="gdr-title">The host\'s own card</h2></section>',
            )
        ),
    }
    host.start()
    yield host
    host.stop()


class Widget:
    """A host page in Chromium, the requests it sent to the service, and the console errors it logged."""

    def __init__(self, page: Any, service: str) -> None:
        self.page = page
        self.service = service
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.problems: list[str] = []
        page.on("console", lambda m: self.problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.problems.append(str(e)))
        page.on("request", self._record(service))

    def _record(self, service: str) -> Any:
        def record(request: Any) -> None:
            if request.url.startswith(f"{service}/api/v1/") and request.method == "POST":
                self.sent.append((request.url.rsplit("/", 1)[1], json.loads(request.post_data or "{}")))

        return record

    def chip(self, name: str) -> Any:
        self.page.get_by_role("button", name=name, exact=True).click()
        card = self.page.locator(".gdr-diagnosis")
        card.wait_for()
        return card

    def find_pro(self, place: str) -> Any:
        self.page.get_by_label("ZIP code or city").fill(place)
        self.page.get_by_role("button", name="Find a local pro").click()
        card = self.page.locator(".gdr-partner")
        card.wait_for()
        return card


@pytest.fixture
def open_widget(browser: Any, site: HostSite, live_server: LiveServer) -> Iterator[Any]:
    pages: list[Any] = []
    widgets: list[Widget] = []

    def open_(path: str, viewport: dict[str, int] = DESKTOP, heading: str = HEADING) -> Widget:
        page = browser.new_page(viewport=viewport)
        pages.append(page)
        widget = Widget(page, live_server.url)
        widgets.append(widget)
        page.goto(f"{site.url}{path}")
        page.get_by_role("heading", name=heading).wait_for()
        return widget

    yield open_
    for page in pages:
        page.close()
    for widget in widgets:
        assert widget.problems == []  # no CORS or CSP refusals, no script errors


def test_a_chip_then_a_zip_code_gives_a_diagnosis_and_a_bookable_pro(open_widget: Any) -> None:
    widget = open_widget("/plain.html")
    card = widget.chip("loud bang")
    text = card.inner_text()
    assert "Most likely: Broken or failing spring" in text
    assert card.locator(".gdr-urgency-emergency").is_visible()
    assert card.locator(".gdr-safety").is_visible()  # stop using the door
    assert card.locator(".gdr-cause").count() >= 1 and "$" in card.locator(".gdr-cost-range").first.inner_text()
    pro = widget.find_pro("84770")
    assert "Southern Utah" in pro.inner_text()
    call = pro.locator("a.gdr-call").first  # the chosen pro's; the other local pros follow
    assert (call.get_attribute("href") or "").startswith("tel:+1435555")
    others = pro.locator(".gdr-other")
    assert others.count() >= 1 and others.first.locator("a.gdr-request").is_visible()
    book = pro.locator("a.gdr-book").get_attribute("href") or ""
    assert book.startswith("https://") and book.endswith("/book")
    assert widget.page.locator(".gdr-offer").count() >= 1  # the partner's current offers
    assert pro.locator(".gdr-partner-urgent").is_visible()  # a hot lead: the diagnosis said the door is unsafe
    # One journey call a step: the place goes with the words, and the service takes the heat from the diagnosis.
    assert widget.sent == [
        ("homeownerAnswer", {"description": "loud bang"}),
        ("homeownerAnswer", {"description": "loud bang", "place": "84770"}),
    ]
    assert all("challengeToken" not in body for _, body in widget.sent)  # the challenge is off here
    # One global for pages that add the element later, and the cards' own name stays off the host's window.
    assert widget.page.evaluate("[typeof GarageDoors.mount, typeof window.GarageResults]") == ["function", "undefined"]


@pytest.mark.parametrize("path", ["/spanish.html", "/spanish-site.html"])
def test_in_spanish_by_its_attribute_or_the_sites_language(open_widget: Any, path: str) -> None:
    widget = open_widget(path, heading=SPANISH_HEADING)
    page = widget.page
    assert page.locator("[data-garage-doors]").evaluate("n => n.shadowRoot.querySelector('.gdw').lang") == "es"
    page.get_by_role("textbox", name="O descríbalo con sus propias palabras").fill(
        "escuché un estallido y el portón ya no sube"
    )
    page.get_by_role("button", name="Obtener un diagnóstico").click()
    card = page.locator(".gdr-diagnosis")
    card.wait_for()
    assert card.locator(".gdr-title").first.inner_text() == "Lo más probable: Resorte roto o fallando"
    page.get_by_role("textbox", name="Código postal o ciudad").fill("84770")
    page.get_by_role("button", name="Buscar un técnico local").click()
    pro = page.locator(".gdr-partner")
    pro.wait_for()
    assert pro.get_by_role("link", name="Llamar al (435) 555-0102").first.is_visible()
    chips = page.locator(".gdw-chip").all_inner_texts()
    assert chips and "loud bang" not in chips  # the one-tap problems in Spanish too


def test_free_text_and_a_city(open_widget: Any) -> None:
    widget = open_widget("/plain.html")
    widget.page.get_by_label("Or describe it in your own words").fill("the door goes back up before it closes")
    widget.page.get_by_role("button", name="Get a diagnosis").click()
    card = widget.page.locator(".gdr-diagnosis")
    card.wait_for()
    assert card.locator(".gdr-title").inner_text().startswith("Most likely:")
    assert card.locator(".gdr-title").evaluate("node => node === node.getRootNode().activeElement")
    pro = widget.find_pro("Salt Lake City, UT")
    assert "Call (801)" in pro.inner_text()
    assert pro.locator(".gdr-partner-urgent").count() == 0  # warm: nothing unsafe was said
    assert [body.get("place") for tool, body in widget.sent if tool == "homeownerAnswer"] == [
        None,
        "Salt Lake City, UT",
    ]


def test_words_that_match_nothing_get_ways_forward(open_widget: Any) -> None:
    widget = open_widget("/plain.html")
    widget.page.get_by_label("Or describe it in your own words").fill("the thing is acting weird")
    widget.page.get_by_role("button", name="Get a diagnosis").click()
    card = widget.page.locator(".gdr-nomatch")
    card.wait_for()
    assert "find a pro anyway" in card.inner_text()  # no dead end: the chips above, a photo, or a pro
    widget.chip("loud bang").wait_for()


def test_a_question_gets_an_answer_with_its_sources(open_widget: Any) -> None:
    widget = open_widget("/plain.html")
    widget.page.get_by_label("Or describe it in your own words").fill("how much does a new insulated double door cost?")
    widget.page.get_by_role("button", name="Get a diagnosis").click()
    card = widget.page.locator(".gdr-answer")
    card.wait_for()
    assert "installed" in card.locator(".gdr-answer-text").inner_text()
    assert card.locator(".gdr-sources li").count() >= 1  # where the figures come from
    styles = card.get_by_role("link", name="Compare door styles").get_attribute("href") or ""
    assert styles.startswith(widget.service)  # the service's page, not the contractor's site
    assert [tool for tool, _ in widget.sent] == ["homeownerAnswer", "ask"]


def test_the_contractors_own_partner_id_is_preferred_and_its_offers_show(open_widget: Any) -> None:
    widget = open_widget("/partner.html")
    assert widget.page.get_by_label("ZIP code or city").input_value() == "84770"  # data-zip
    widget.chip("loud bang")
    widget.page.get_by_role("button", name="Find a local pro").click()
    pro = widget.page.locator(".gdr-partner")
    pro.wait_for()
    assert "Dixie Door & Spring" in pro.inner_text()
    assert "$40 off a full tune-up" in pro.inner_text()
    [routed] = [body for tool, body in widget.sent if "place" in body]
    assert routed["preferredPartnerId"] == "dixie-door-and-spring"
    ask = pro.get_by_role("link", name="Ask this pro to come out").get_attribute("href") or ""
    assert ask.endswith("/requests/new?partner=dixie-door-and-spring&zip=84770&issue=banging_noise")
    assert ask.startswith("http://127.0.0.1:")  # the service's form, not a page of the contractor's site


def test_it_works_under_a_strict_host_csp(open_widget: Any) -> None:
    widget = open_widget("/strict.html")
    widget.chip("won't open")
    widget.find_pro("84770")
    # The fixture checks that nothing was refused (a CSP violation is a console error in Chromium).


def test_host_css_does_not_reach_in_and_ours_does_not_reach_out(open_widget: Any) -> None:
    widget = open_widget("/styled.html")
    page = widget.page
    card = widget.chip("won't close")
    title = card.locator(".gdr-title")
    style = title.evaluate(
        "n => { const s = getComputedStyle(n); return [s.fontFamily, s.color, s.textTransform, s.letterSpacing]; }"
    )
    assert style[0] != "serif" and "system-ui" in style[0]
    assert style[1] != "rgb(255, 0, 0)" and style[2] == "none" and style[3] == "normal"
    assert float(title.evaluate("n => parseFloat(getComputedStyle(n).fontSize)")) > 16  # not the host's 10 px rem
    submit = page.get_by_role("button", name="Get a diagnosis")
    # The accent (data-accent) reaches the buttons; the host's `button { background: lime !important }` does not.
    assert submit.evaluate("n => getComputedStyle(n).backgroundColor") == "rgb(122, 31, 162)"
    assert submit.evaluate("n => getComputedStyle(n).color") == "rgb(255, 255, 255)"
    # The host's own `.gdr-card` keeps the host's look: the widget's stylesheet lives in its shadow root.
    host_card = page.locator("main > section.gdr-card")
    assert host_card.evaluate("n => getComputedStyle(n).borderTopWidth") == "0px"
    assert host_card.locator("h2").evaluate("n => getComputedStyle(n).fontSize") == "13px"
    assert page.locator("[data-garage-doors]").evaluate("n => n.shadowRoot.querySelector('.gdw-compact') !== null")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "widget-on-a-styled-host.png"), full_page=True)


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ({"status": 429, "headers": {"Retry-After": "30"}}, "Please wait 30 seconds"),
        ({"status": 503, "code": "service_unavailable"}, "Something went wrong on our side"),
        ("offline", "We couldn't reach the service"),
    ],
)
def test_refusals_read_as_plain_words(open_widget: Any, live_server: LiveServer, answer: Any, says: str) -> None:
    widget = open_widget("/plain.html")

    def refuse(route: Any) -> None:
        if answer == "offline":
            route.abort("internetdisconnected")
            return
        code = answer.get("code", "rate_limited")
        body = {"error": {"code": code, "message": "API words a homeowner never sees", "status": answer["status"]}}
        headers = {
            "Access-Control-Allow-Origin": "*",
            "Access-Control-Expose-Headers": "Retry-After, RateLimit",
            "Content-Type": "application/json",
            **answer.get("headers", {}),
        }
        route.fulfill(status=answer["status"], headers=headers, body=json.dumps(body))

    widget.page.route(f"{live_server.url}/api/v1/homeownerAnswer", refuse)
    widget.page.get_by_role("button", name="loud bang", exact=True).click()
    message = widget.page.locator(".gdr-message-error")
    message.wait_for()
    assert says in message.inner_text()
    assert "API words" not in message.inner_text()
    widget.problems.clear()  # the refused fetch itself is logged by Chromium


@pytest.mark.parametrize("viewport", [SMALL_PHONE, PHONE, DESKTOP], ids=["320px", "phone", "desktop"])
def test_on_a_phone_and_a_desktop_nothing_scrolls_sideways_and_axe_is_content(
    open_widget: Any, viewport: dict[str, int]
) -> None:
    widget = open_widget("/partner.html", viewport)
    widget.chip("loud bang")
    widget.page.get_by_role("button", name="Find a local pro").click()
    widget.page.locator(".gdr-partner").wait_for()
    widget.page.wait_for_load_state("networkidle")
    assert sideways(widget.page) == []
    assert serious_findings(widget.page) == []
    SHOTS.mkdir(exist_ok=True)
    widget.page.screenshot(path=str(SHOTS / f"widget-{viewport['width']}.png"), full_page=True)


def test_the_widget_is_keyboard_usable(open_widget: Any) -> None:
    widget = open_widget("/plain.html")
    page = widget.page
    page.get_by_role("button", name="won't open", exact=True).focus()
    page.keyboard.press("Enter")
    page.locator(".gdr-diagnosis").wait_for()
    page.get_by_label("ZIP code or city").focus()
    page.keyboard.type("84770")
    page.keyboard.press("Enter")
    page.locator(".gdr-partner").wait_for()


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory, site: HostSite) -> Iterator[LiveServer]:
    """A service with the public tier's real kind of limit, small enough to reach: two calls a minute."""
    server = start_server(tmp_path_factory.mktemp("widget-limited"), {"GARAGE_TOOLS_RATE_LIMIT_PUBLIC": "2/minute"})
    site.pages["/limited.html"] = Page(host_page(server.url))
    yield server
    stop_server(server)


def test_the_real_rate_limit_reads_as_a_wait(browser: Any, site: HostSite, limited: LiveServer) -> None:
    widget = Widget(browser.new_page(viewport=PHONE), limited.url)
    widget.page.goto(f"{site.url}/limited.html")
    widget.chip("loud bang")
    widget.chip("won't open")
    widget.page.get_by_role("button", name="grinding noise", exact=True).click()
    message = widget.page.locator(".gdr-message-error")
    message.wait_for()
    seconds = re.search(r"Please wait ([0-9]+) seconds and try again", message.inner_text())
    assert seconds is not None and 0 < int(seconds.group(1)) <= 60, message.inner_text()
    widget.page.close()
    assert all("429" in problem for problem in widget.problems), widget.problems  # Chromium logs the refusal


def test_a_page_that_adds_the_element_later_mounts_it(browser: Any, site: HostSite, live_server: LiveServer) -> None:
    widget = Widget(browser.new_page(viewport=DESKTOP), live_server.url)
    widget.page.goto(f"{site.url}/later.html")
    assert widget.page.locator(".gdw").count() == 0
    widget.page.get_by_role("button", name="Add").click()
    widget.chip("won't close")
    assert widget.page.locator(".gdw").count() == 1  # the script loaded twice still makes one widget
    widget.page.close()
    assert widget.problems == []
