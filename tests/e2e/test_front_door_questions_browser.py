"""The front door answers questions, not only symptoms: the ask tool's answer, with its sources and what next.

With and without script, on a phone: the done-when of the ask endpoint's issue for the front door.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.page_checks import PHONE, serious_findings, sideways
from tests.e2e.test_home_browser import Visit

SHOT = "/tmp/garage-tools-front-door-question-{}.png"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("front-door-questions"), {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1"})
    yield live
    stop_server(live)


@pytest.mark.parametrize("script", [True, False], ids=["script", "no-script"])
def test_a_price_question_gets_a_range_and_styles(browser: Any, server: LiveServer, script: bool) -> None:
    visit = Visit(browser, server, viewport=PHONE, script=script)
    region = visit.ask("how much is a new insulated double door?")
    card = region.locator(".gdr-answer")
    text = card.inner_text()
    assert "Here is what we know" in text
    assert "A new insulated door typically costs $" in text and "installed" in text
    assert "Insulated Steel" in text  # the styles that fit, by name
    styles = card.get_by_role("link", name="Compare door styles")
    assert (styles.get_attribute("href") or "").endswith("/styles?type=insulated")
    assert "Where this comes from" in text
    visit.page.screenshot(path=SHOT.format("script" if script else "no-script"), full_page=True)
    assert sideways(visit.page) == []
    if script:  # axe-core runs as a script in the page
        assert serious_findings(visit.page) == []
    visit.close()


def test_a_symptom_still_gets_the_diagnosis_and_nonsense_the_ways_forward(browser: Any, server: LiveServer) -> None:
    visit = Visit(browser, server, viewport=PHONE)
    assert visit.ask("loud bang and the door won't open").locator(".gdr-diagnosis").count() == 1
    nothing = visit.ask("purple monkey dishwasher")
    assert nothing.locator(".gdr-answer").count() == 0 and nothing.locator(".gdr-nomatch").count() == 1
    visit.close()
