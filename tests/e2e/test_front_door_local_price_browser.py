"""The front door on a 390 px phone in Chromium: a broken spring in 84770 with a 16x7 door is priced locally (not
the national range) with what the price covers and the emergency surcharge; the diagnosis link opened in a new
tab shows the same answer; "my door is stuck halfway" leads somewhere; the photo check previews the chosen photo.
Screenshots go to /tmp/garage-tools-front-door/ to look at."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.unit.image_samples import photo

PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp/garage-tools-front-door")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("front-door"))
    yield live
    stop_server(live)


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    yield context
    context.close()


def spring_cause(page: Any) -> str:
    """The broken spring's entry among the causes, once it is priced for the place."""
    page.wait_for_function(
        """() => [...document.querySelectorAll("#answer .gdr-cause")].some(
            (c) => c.textContent.includes("typical near Saint George, UT") && c.textContent.includes("spring"))"""
    )
    causes = page.locator("#answer .gdr-cause").filter(has_text="spring")
    return str(causes.first.inner_text())


def test_a_broken_spring_in_84770_on_a_16x7_door(server: LiveServer, context: Any) -> None:
    SHOTS.mkdir(exist_ok=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{server.url}/")
    page.get_by_label("Double: two cars, about 16 ft wide").check()
    page.get_by_role("textbox", name="What is your door doing?").fill("loud bang and the door won't open")
    page.keyboard.press("Enter")
    page.locator("#answer .gdr-title").wait_for()
    page.get_by_role("textbox", name="ZIP code or city").fill("84770")
    page.get_by_role("button", name="Find a pro").click()
    cause = spring_cause(page)
    assert re.search(r"\$[0-9,]+\u2013\$[0-9,]+ typical near Saint George, UT", cause)
    assert "$200\u2013$600" not in cause  # not the national double-door range
    assert "Covers:" in cause and "Priced for a 16 ft wide door." in cause
    assert "Calling out a pro today or after hours adds about $" in cause
    assert "size=16x7" in page.url and "place=84770" in page.url
    page.locator("#answer").screenshot(path=str(SHOTS / "local-price-phone.png"))

    reopened = context.new_page()  # the link in a new tab: the same answer
    reopened.set_default_timeout(20_000)
    reopened.goto(page.url)
    assert spring_cause(reopened) == cause
    assert reopened.get_by_label("Double: two cars, about 16 ft wide").is_checked()
    reopened.screenshot(path=str(SHOTS / "reopened-phone.png"), full_page=True)
    assert problems == []


def test_stuck_halfway_leads_somewhere_useful(server: LiveServer, context: Any) -> None:
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{server.url}/")
    page.get_by_role("textbox", name="What is your door doing?").fill("my door is stuck halfway")
    page.keyboard.press("Enter")
    card = page.locator("#answer .gdr-card")
    card.wait_for()
    text = card.inner_text()
    assert "Possible causes" in text or ("Find a pro anyway" in text and "Check a photo" in text)
    assert "I couldn't tell" not in text
    page.screenshot(path=str(SHOTS / "stuck-halfway-phone.png"), full_page=False)


def test_the_photo_check_previews_a_photo_from_the_library(server: LiveServer, context: Any, tmp_path: Path) -> None:
    picture = tmp_path / "spring.jpg"
    picture.write_bytes(photo("JPEG", (640, 480)))
    page = context.new_page()
    page.goto(f"{server.url}/")
    field = page.get_by_label("Photo of the part")
    assert field.get_attribute("capture") is None
    field.set_input_files(str(picture))
    preview = page.locator("#photo-preview")
    preview.wait_for(state="visible")
    assert preview.get_attribute("src").startswith("data:image/jpeg")
