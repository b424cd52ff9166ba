"""The inspection keeps the homeowner's work, in Chromium on a phone: answers survive a reload (and are offered
back on a later visit), progress reads "x of 24", each question shows the drawing of its part, the checks that
move the door are not asked once a part under tension is marked Fix, and the report prices each item to fix
for the place, shares its link and prints legibly."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.unit.image_samples import photo

PHONE = {"width": 390, "height": 844}
SHOTS = Path("/tmp/garage-tools-inspection-keeps")
STORE = "garage-doors.inspection.v1"
TWELVE = [
    "Torsion or extension springs", "Cable drums", "Lift cables", "Rollers", "Hinges",
    "Door sections and panels (inside)", "Tracks", "Bottom seal and weatherstripping", "Opener motor unit and drive",
    "Wall control", "Spring containment (extension springs)", "Bottom brackets",
]  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("inspection-keeps"))
    yield live
    stop_server(live)


@pytest.fixture
def page(server: LiveServer, browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{server.url}/inspection")
    yield page
    assert problems == []
    context.close()


def group(page: Any, label: str) -> Any:
    return page.get_by_role("group", name=label)  # a safety point's name ends with its "Safety" badge


def choose(page: Any, label: str, answer: str) -> None:
    group(page, label).get_by_role("radio", name=answer, exact=True).check()


def test_answers_survive_a_reload_half_way_with_the_progress(page: Any) -> None:
    SHOTS.mkdir(exist_ok=True)
    progress = page.locator("#progress")
    assert progress.inner_text() == "0 of 24 checked" and progress.get_attribute("aria-live") == "polite"
    page.get_by_label("E-mail address").fill("kim@example.com")
    page.get_by_label("ZIP code").fill("84770")
    for label in TWELVE:
        choose(page, label, "OK")
    choose(page, "Rollers", "Watch")
    group(page, "Rollers").get_by_text("Add a note").click()
    page.get_by_label("Note on Rollers").fill("one roller wobbles")
    assert progress.inner_text() == "12 of 24 checked"

    page.reload()
    assert page.locator("#progress").inner_text() == "12 of 24 checked"
    assert group(page, "Rollers").get_by_role("radio", name="Watch", exact=True).is_checked()
    assert group(page, "Wall control").get_by_role("radio", name="OK", exact=True).is_checked()
    assert page.get_by_label("ZIP code").input_value() == "84770"
    assert page.get_by_label("Note on Rollers").input_value() == "one roller wobbles"
    notice = page.locator("#saved-notice")
    assert notice.is_visible() and "12 of 24 checked" in notice.inner_text()
    page.screenshot(path=str(SHOTS / "reloaded-phone.png"))

    page.get_by_role("button", name="Start over").click()
    assert page.locator("#progress").inner_text() == "0 of 24 checked"
    page.reload()
    assert page.locator("#progress").inner_text() == "0 of 24 checked" and not notice.is_visible()


def test_an_inspection_from_another_day_is_offered_back(page: Any) -> None:
    for label in TWELVE[:3]:
        choose(page, label, "OK")
    page.evaluate(
        """(key) => {
            const kept = JSON.parse(localStorage.getItem(key));
            kept.savedAt = Date.now() - 3 * 24 * 3600 * 1000;
            localStorage.setItem(key, JSON.stringify(kept));
        }""",
        STORE,
    )
    page.reload()
    assert page.locator("#progress").inner_text() == "0 of 24 checked"  # offered, not forced back
    assert "You started an inspection on" in page.locator("#saved-notice").inner_text()
    page.get_by_role("button", name="Carry on where I left off").click()
    assert page.locator("#progress").inner_text() == "3 of 24 checked"


def test_each_question_with_a_drawing_shows_it_beside_the_words(page: Any) -> None:
    drawings = page.locator("fieldset[data-item] figure.drawing img")
    assert drawings.count() == 24  # every item: the part's reference picture, or the form's own drawing of it
    springs = group(page, "Torsion or extension springs").locator("figure.drawing img")
    springs.scroll_into_view_if_needed()
    assert springs.get_attribute("src").startswith("/photos/springs-healthy.webp")
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=springs.element_handle())
    box, words = springs.bounding_box(), group(page, "Torsion or extension springs").locator(".look").bounding_box()
    assert box["x"] + box["width"] <= words["x"]  # beside, not above, on a 390 px phone


def test_no_check_that_moves_the_door_is_asked_once_a_part_under_tension_is_marked_fix(page: Any) -> None:
    balance = group(page, "Door balance")
    choose(page, "Door balance", "OK")
    choose(page, "Lift cables", "Fix")
    assert balance.get_by_role("radio", name="Not checked", exact=True).is_checked()
    assert balance.get_by_role("radio", name="OK", exact=True).is_disabled()
    assert "don't run, release or lift the door" in balance.inner_text()
    assert group(page, "Contact reversal test").get_by_role("radio", name="Fix", exact=True).is_disabled()
    assert not group(page, "Rollers").get_by_role("radio", name="OK", exact=True).is_disabled()
    # Asked in order: the door-moving check comes after every part under tension of its area.
    items = page.locator("fieldset[data-item]").evaluate_all("(all) => all.map((f) => f.dataset.item)")
    assert items.index("balance") > max(items.index(i) for i in ("springs", "cables", "bottom-brackets", "pulleys"))
    choose(page, "Lift cables", "OK")
    assert balance.get_by_role("radio", name="OK", exact=True).is_enabled()


def test_the_result_and_the_report_price_each_item_to_fix_share_and_print(page: Any, server: LiveServer) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.get_by_label("E-mail address").fill("kim@example.com")
    page.get_by_label("ZIP code").fill("84770")
    page.get_by_label("Size, width x height in feet").fill("16x7")
    page.get_by_label("E-mail me the report").uncheck()
    choose(page, "Torsion or extension springs", "Fix")
    choose(page, "Rollers", "Fix")
    choose(page, "Bottom seal and weatherstripping", "OK")
    page.get_by_role("button", name="Get my report").click()
    page.locator("#result").wait_for(state="visible", timeout=60_000)
    assert page.locator("#result-grade").inner_text() == "F"
    assert re.fullmatch(r"[0-9]{1,2}", page.locator("#result-score").inner_text())
    assert page.evaluate("(key) => localStorage.getItem(key)", STORE) is None  # sent: forgotten

    page.get_by_role("link", name="Open your report").click()
    page.get_by_role("heading", name="Garage door inspection").wait_for()
    springs = page.locator("#item-springs")
    assert re.search("\\$[0-9,]+\u2013\\$[0-9,]+ typical in Utah for a 16 ft wide door", springs.inner_text())
    assert "emergency or after-hours call adds about" in springs.inner_text()
    assert "$200\u2013$600" not in springs.inner_text()  # not the national double-door range
    assert "typical in Utah" in page.locator("#item-rollers").inner_text()
    tools = page.locator(".report-tools")
    assert tools.get_by_role("button", name="Print this report").is_visible()
    assert tools.bounding_box()["y"] < page.locator("h1").bounding_box()["y"]  # at the top
    tools.get_by_role("button", name="Copy link").click()
    page.locator("#share-status", has_text="Link copied").wait_for()  # the clipboard answers asynchronously
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    page.screenshot(path=str(SHOTS / "report-phone.png"), full_page=True)

    page.emulate_media(media="print")
    assert not tools.is_visible()
    call = page.locator(".pro-actions a").first
    if call.count():
        color = call.evaluate("(a) => getComputedStyle(a).color")
        assert color == "rgb(0, 0, 0)"  # a call button prints as black text, not faint grey on blue
    page.screenshot(path=str(SHOTS / "report-print.png"), full_page=True)
    page.pdf(path=str(SHOTS / "report.pdf"))


def test_an_item_takes_a_photo_and_checks_it_when_asked(page: Any, tmp_path: Path) -> None:
    picture = tmp_path / "spring.jpg"
    picture.write_bytes(photo("JPEG", (640, 480)))
    springs = group(page, "Torsion or extension springs")
    springs.get_by_text("Check a photo").click()
    field = springs.get_by_label("Photo of this part, from where you stand")
    assert field.get_attribute("capture") is None  # the library or the camera: the phone asks
    field.set_input_files(str(picture))
    springs.locator("img.item-photo-preview").wait_for(state="visible")
    springs.get_by_role("button", name="Check this photo").click()
    verdict = springs.locator(".item-photo-verdict")
    page.wait_for_function(
        "(p) => p.textContent.length > 20 && !p.textContent.startsWith('Checking')", arg=verdict.element_handle()
    )
    assert "could not" not in verdict.inner_text().lower()
    assert page.locator("#progress").inner_text() == "0 of 24 checked"  # a photo is not an answer
