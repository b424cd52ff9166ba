"""The MCP Apps views in Chromium, inside a test host that speaks the extension's postMessage protocol with the
extension's own host side (AppBridge from @modelcontextprotocol/ext-apps, pinned in tests/apps-host and bundled
by scripts/setup-apps-host.sh; no outside request at run time). The tool results and the views come from the
live server over MCP, as an assistant would fetch them."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.e2e.page_checks import DESKTOP, PHONE, serious_findings, sideways

REPO = Path(__file__).resolve().parents[2]
HOST = REPO / "tests" / "apps-host"
SHOTS = Path("/tmp/apps-shots")
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def host_script() -> Path:
    subprocess.run([str(REPO / "scripts" / "setup-apps-host.sh")], check=True, timeout=600)
    return HOST / "dist" / "host.js"


def rpc(server: LiveServer, method: str, params: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    answer = httpx.post(f"{server.url}/mcp", json=message, headers=HEADERS, timeout=30).json()
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    return result


def view_for(server: LiveServer, tool: str) -> str:
    listed = {t["name"]: t for t in rpc(server, "tools/list", {})["tools"]}
    uri = listed[tool]["_meta"]["ui"]["resourceUri"]
    (content,) = rpc(server, "resources/read", {"uri": uri})["contents"]
    assert content["mimeType"] == "text/html;profile=mcp-app"
    html: str = content["text"]
    return html


@pytest.fixture
def mount(browser: Any, host_script: Path) -> Iterator[Any]:
    pages: list[Any] = []

    def open_view(html: str, arguments: dict[str, Any], result: dict[str, Any], viewport: dict[str, int]) -> Any:
        page = browser.new_page(viewport=viewport)
        pages.append(page)
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.set_content((HOST / "page.html").read_text().replace('<script src="dist/host.js"></script>', ""))
        page.add_script_tag(path=str(host_script))
        page.evaluate("([html, args, result]) => mountView(html, args, result)", [html, arguments, result])
        page.problems = problems
        return page

    yield open_view
    for page in pages:
        page.close()


def shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{page.viewport_size['width']}.png"), full_page=True)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1280"])
def test_diagnose_renders_the_diagnosis_card(live_server: LiveServer, mount: Any, viewport: dict[str, int]) -> None:
    arguments = {"description": "loud bang and the door won't open"}
    result = rpc(live_server, "tools/call", {"name": "diagnose", "arguments": arguments})
    page = mount(view_for(live_server, "diagnose"), arguments, result, viewport)
    card = page.frame_locator("iframe").locator(".gdr-diagnosis")
    card.wait_for()
    text = card.inner_text()
    assert "Most likely: Broken or failing spring" in text
    assert "stop using the door" in text  # the safety banner
    page.wait_for_function("() => window.host.heights.length > 0")
    frame_height = page.evaluate("document.querySelector('iframe').getBoundingClientRect().height")
    assert frame_height > 300  # the view told the host its height, and the host grew the frame
    assert page.evaluate("window.host.initialized") is True
    assert not page.problems and not sideways(page)
    shoot(page, "diagnosis")


def test_a_spanish_answer_is_drawn_in_spanish(live_server: LiveServer, mount: Any) -> None:
    arguments = {"description": "escuché un estallido en la cochera y el portón ya no sube"}
    result = rpc(live_server, "tools/call", {"name": "diagnose", "arguments": arguments})
    assert result["structuredContent"]["lang"] == "es"
    page = mount(view_for(live_server, "diagnose"), arguments, result, PHONE)
    frame = page.frame_locator("iframe")
    card = frame.locator(".gdr-diagnosis")
    card.wait_for()
    text = card.inner_text()
    assert "Lo más probable: Resorte roto o fallando" in text and "Most likely" not in text
    assert frame.locator("html").get_attribute("lang") == "es"
    assert not page.problems and not sideways(page)
    shoot(page, "diagnosis-es")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390", "1280"])
def test_route_by_zip_renders_the_pro_card(live_server: LiveServer, mount: Any, viewport: dict[str, int]) -> None:
    arguments = {"zipOrLocation": "84770", "issue": "broken_spring"}
    result = rpc(live_server, "tools/call", {"name": "routeByZip", "arguments": arguments})
    page = mount(view_for(live_server, "routeByZip"), arguments, result, viewport)
    frame = page.frame_locator("iframe")
    frame.locator(".gdr-partner").wait_for()
    assert "Dixie Door & Spring" in frame.locator(".gdr-partner-name").inner_text()
    frame.get_by_role("link", name="Book online").click()  # links open through the host, not in the frame
    page.wait_for_function("() => window.host.links.length === 1")
    assert page.evaluate("window.host.links") == ["https://dixie-door-and-spring.example.com/book"]
    assert not page.problems and not sideways(page)
    shoot(page, "pro")


def test_the_pro_cards_button_sends_a_service_request_through_the_host(live_server: LiveServer, mount: Any) -> None:
    arguments = {"zipOrLocation": "84770", "issue": "broken_spring"}
    result = rpc(live_server, "tools/call", {"name": "routeByZip", "arguments": arguments})
    page = mount(view_for(live_server, "routeByZip"), arguments, result, PHONE)
    # The host forwards the view's call to the server, as an assistant's host does over its own connection.
    page.expose_function("callServer", lambda params: rpc(live_server, "tools/call", json.loads(params)))
    page.evaluate("() => { window.host.answerCall = (params) => window.callServer(JSON.stringify(params)); }")
    frame = page.frame_locator("iframe")
    form = frame.locator(".gav-request")
    form.wait_for()
    frame.get_by_role("button", name="Send the request").click()
    assert "tick the box" in form.inner_text()  # nothing sent without a name, a way to reach them and consent
    form.scroll_into_view_if_needed()
    SHOTS.mkdir(exist_ok=True)
    form.screenshot(path=str(SHOTS / "pro-request-form-390.png"))
    (view,) = [frame for frame in page.frames if frame is not page.main_frame]
    findings = serious_findings(view)  # the form's labels, the message, the button
    assert not findings, json.dumps(findings)[:2000]
    frame.get_by_label("Your name").fill("Dana Reyes")
    frame.get_by_label("Phone", exact=True).fill("(435) 555-0142")  # its own: a contact may send 3 a day
    frame.get_by_role("checkbox").check()
    frame.get_by_role("button", name="Send the request").click()
    sent = frame.locator(".gav-sent")
    sent.wait_for()
    assert re.search(r"Request R-\d{4}-\d{4} is on its way to Dixie Door & Spring\.", sent.inner_text())
    (call,) = page.evaluate("window.host.calls")
    assert call["name"] == "requestService"
    assert call["arguments"]["partnerId"] == "dixie-door-and-spring" and call["arguments"]["zip"] == "84770"
    assert call["arguments"]["issueKey"] == "broken_spring" and call["arguments"]["consent"] == {"contactShare": True}
    number = re.search(r"R-\d{4}-\d{4}", sent.inner_text()).group(0)  # type: ignore[union-attr]
    status = sent.get_by_role("link", name="See where your request stands").get_attribute("href") or ""
    page_of_request = httpx.get(status, timeout=30)  # the homeowner's page of the stored request
    assert page_of_request.status_code == 200 and number in page_of_request.text
    assert not page.problems and not sideways(page)
    shoot(page, "pro-request")


def test_the_cost_view_has_no_serious_accessibility_finding(live_server: LiveServer, mount: Any) -> None:
    arguments = {"issueKey": "broken_spring", "zip": "84770"}
    result = rpc(live_server, "tools/call", {"name": "costEstimate", "arguments": arguments})
    page = mount(view_for(live_server, "costEstimate"), arguments, result, DESKTOP)
    page.frame_locator("iframe").locator(".gdr-cost-card").wait_for()
    (view,) = [frame for frame in page.frames if frame is not page.main_frame]
    findings = serious_findings(view)  # axe-core run inside the view's frame
    assert not findings, json.dumps(findings)[:2000]
    shoot(page, "cost")
