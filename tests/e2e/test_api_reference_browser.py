"""The interactive API reference in Chromium: padlocks that read right, example bodies a person would send,
and no more bytes than it uses."""

from __future__ import annotations

import json
from typing import Any

from garage_tools.tools import build_registry
from tests.conftest import LiveServer

KEY_ONLY = {"retrieveLabContext", "identifyOpener"}


def test_padlocks_say_which_tools_need_a_key(browser: Any, live_server: LiveServer) -> None:
    page = browser.new_page()
    page.goto(f"{live_server.url}/developers/api")
    page.locator("#operations-tools-identifyOpener .authorization__btn svg").wait_for()
    page.wait_for_load_state("networkidle")
    padlocks = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.opblock')].map(block => [
             block.id.replace('operations-tools-', ''),
             [block.querySelector('.authorization__btn svg').getAttribute('class'),
              block.querySelector('.authorization__btn').getAttribute('aria-label')]]))"""
    )
    assert len(padlocks) == len(build_registry())
    for tool, (icon, label) in padlocks.items():
        if tool in KEY_ONLY:
            assert (icon, label) == ("locked", "Needs an API key"), tool
        else:
            assert icon == "unlocked" and label.startswith("No API key needed"), tool
    page.close()


def test_the_example_body_is_one_a_person_would_send(browser: Any, live_server: LiveServer) -> None:
    page = browser.new_page()
    page.goto(f"{live_server.url}/developers/api#/tools/diagnose")
    page.locator("#operations-tools-diagnose .body-param__example").first.wait_for()
    example = page.locator("#operations-tools-diagnose .body-param__example").first.text_content()
    assert json.loads(example or "") == {"description": "my door makes a loud bang"}  # no "challengeToken"
    page.close()


def test_the_page_transfers_less_than_it_did(browser: Any, live_server: LiveServer) -> None:
    page = browser.new_page()
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    urls: dict[str, str] = {}
    sizes: dict[str, int] = {}
    session.on("Network.responseReceived", lambda event: urls.__setitem__(event["requestId"], event["response"]["url"]))
    session.on(
        "Network.loadingFinished",
        lambda event: sizes.__setitem__(urls.get(event["requestId"], "?"), event["encodedDataLength"]),
    )
    page.goto(f"{live_server.url}/developers/api")
    page.locator(".opblock").first.wait_for()
    page.wait_for_load_state("networkidle")
    openapi = sizes[f"{live_server.url}/openapi.json"]
    assert openapi < 20_000, sizes  # gzipped: about 80 KB as JSON
    assert sum(sizes.values()) < 480_000, sizes  # 529 KB before (the Swagger UI bundle alone is 411 KB)
    page.close()
