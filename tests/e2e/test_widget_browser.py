"""The widget journey in a real browser: a contractor's page on another origin goes from a chip to a bookable partner.

The page (tests/e2e/widget/widget.html) is built like the widgets in the field: chips and a text box for
diagnose, then a ZIP box for routeByZip; it renders only `hint` when nothing matched and sends
`leadHeat: "hot"` whenever `safetyFlag` is true. It is served by a second loopback server, so every
call it makes to the service is cross-origin (CORS), as on a contractor's site.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer

WIDGET_DIR = Path(__file__).parent / "widget"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def contractor_site() -> Iterator[str]:
    """The widget page's origin: another port on loopback."""
    handler = functools.partial(_Quiet, directory=str(WIDGET_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def widget(browser: Any, contractor_site: str, live_server: LiveServer) -> Iterator[Any]:
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.goto(f"{contractor_site}/widget.html?api={live_server.url}")
    yield page
    page.close()
    assert problems == []  # no CORS refusals, no script errors


def test_a_chip_leads_to_a_partner_card_with_a_booking_link(widget: Any, live_server: LiveServer) -> None:
    widget.get_by_role("button", name="loud bang").click()
    widget.locator("#diagnosis h3").wait_for()
    assert widget.locator(".urgent").is_visible()  # a broken spring is likely: stop using the door
    widget.fill("#zip", "84770")
    widget.get_by_role("button", name="Find a local pro").click()
    card = widget.locator("#partner-card")
    card.wait_for()
    assert "Southern Utah" in card.inner_text()
    book = widget.locator("#book")
    href = book.get_attribute("href")
    assert href is not None and href.startswith("https://") and href.endswith("/book")
    assert widget.evaluate("window.routeRequests") == [
        {"zipOrLocation": "84770", "issue": "banging_noise", "leadHeat": "hot"}
    ]
    widget.screenshot(path=str(Path(live_server.workdir) / "widget-partner.png"))


def test_a_noise_is_not_shouted_as_urgent_and_the_lead_is_warm(widget: Any) -> None:
    for chip in ["grinding noise", "loud noise", "won't close"]:
        widget.get_by_role("button", name=chip).click()
        widget.locator("#diagnosis h3").wait_for()
        assert widget.locator(".urgent").count() == 0, chip
    widget.fill("#zip", "Salt Lake City, UT")
    widget.get_by_role("button", name="Find a local pro").click()
    widget.locator("#partner-card").wait_for()
    assert widget.evaluate("window.routeRequests")[-1]["leadHeat"] == "warm"


def test_no_match_shows_a_hint_with_phrases_to_try(widget: Any) -> None:
    widget.fill("#description", "the thing is acting weird")
    widget.get_by_role("button", name="Diagnose").click()
    hint = widget.locator("#diagnosis .hint")
    hint.wait_for()
    text = hint.inner_text()
    assert '"won\'t close"' in text and '"loud bang"' in text  # examples the widget's user can act on
    # ...and one of them, typed in, works.
    widget.fill("#description", "loud bang")
    widget.get_by_role("button", name="Diagnose").click()
    widget.locator("#diagnosis h3").wait_for()


def test_an_uncovered_zip_shows_the_hint_instead_of_a_card(widget: Any) -> None:
    widget.get_by_role("button", name="won't open").click()
    widget.locator("#zip-form").wait_for()
    widget.fill("#zip", "59101")
    widget.get_by_role("button", name="Find a local pro").click()
    hint = widget.locator("#partner .hint")
    hint.wait_for()
    assert "Billings, MT" in hint.inner_text() and "555-01" in hint.inner_text()
    assert widget.locator("#partner-card").count() == 0
