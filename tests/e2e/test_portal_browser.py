"""A developer's whole journey in a real browser: e-mail → link → key → calls with it → revoke.

Chromium (Debian's, driven by Playwright) against a real server with no SMTP configured, so the
sign-in mail is read from the `.eml` file the service writes, as a local user would.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.mailbox import link_in, wait_for_mail

ADDRESS = "journey@example.com"
SCREENSHOT = Path("/tmp/garage-tools-portal-dashboard.png")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("portal-browser"),
        {"GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.2", "GARAGE_TOOLS_KEY_CACHE_SECONDS": "0.5"},
    )
    yield live
    stop_server(live)


def link_from_mailbox(server: LiveServer, address: str) -> str:
    """The sign-in link in the newest mail to `address`."""
    return link_in(wait_for_mail(server.workdir, address), "/developers/confirm/")


def mcp_pro_call(server: LiveServer, key: str) -> httpx.Response:
    """A 2026-07-28 `tools/call` on /mcp-pro (no handshake; the request carries its own _meta)."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "portal-journey", "version": "1"},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "diagnose", "arguments": {"description": "loud bang from the spring"}, "_meta": meta},
    }
    headers = {
        "Authorization": f"Bearer {key}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "diagnose",
    }
    return httpx.post(f"{server.url}/mcp-pro", json=body, headers=headers, timeout=10)


def rest_call(server: LiveServer, key: str) -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/v1/diagnose",
        json={"description": "loud bang from the spring"},
        headers={"Authorization": f"Bearer {key}"},
        timeout=10,
    )


def test_a_developer_gets_a_working_key_and_revokes_it(server: LiveServer, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    started = time.monotonic()

    page.goto(f"{server.url}/developers")
    page.get_by_label("E-mail address").fill(ADDRESS)
    page.get_by_role("button", name="E-mail me a sign-in link").click()
    page.get_by_role("heading", name="Check your inbox").wait_for()

    page.goto(link_from_mailbox(server, ADDRESS))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/developers/dashboard")
    assert ADDRESS in page.content()

    page.get_by_label("Name").fill("journey laptop")
    page.get_by_role("button", name="Create key").click()
    key = page.locator("#new-key").inner_text().strip()
    assert key.startswith("svc_live_") and len(key) == 68
    page.get_by_role("button", name="Copy").click()
    page.get_by_text("Copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == key
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    elapsed = time.monotonic() - started
    assert elapsed < 60, f"getting a key took {elapsed:.0f} s"

    page.goto(f"{server.url}/developers/dashboard")  # shown once: a fresh view has only the public id
    assert key not in page.content() and f"svc_live_{key[9:19]}" in page.content()

    mcp = mcp_pro_call(server, key)
    assert mcp.status_code == 200, mcp.text
    assert mcp.json()["result"]["isError"] is False
    rest = rest_call(server, key)
    assert rest.status_code == 200 and '"pro-minute"' in rest.headers["ratelimit-policy"]

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name=re.compile("Revoke key journey laptop")).click()
    page.get_by_text("is revoked").wait_for()
    assert "revoked" in page.locator("table.keys").inner_text()

    assert mcp_pro_call(server, key).status_code == 401
    assert rest_call(server, key).status_code == 401
    context.close()
