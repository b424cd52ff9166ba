"""`mcp-remote` pointed at /mcp-pro with no header, as a new user would run it, completing the OAuth flow: the
bridge discovers the server, registers, prints the authorization address; a person opens it in Chromium,
signs in by the e-mailed link, reads the consent page (checked at 390 px and with axe-core) and allows it;
the bridge then lists every tool and calls retrieveLabContext over stdio.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from garage_tools.tools import build_registry
from tests.conftest import LiveServer, free_port, start_server, stop_server
from tests.e2e.page_checks import serious_findings, sideways
from tests.e2e.test_conformance import NODE
from tests.e2e.test_portal import latest_link
from tests.polling import eventually

REPO = Path(__file__).resolve().parents[2]
BRIDGE = REPO / "tests" / "mcp-remote" / "node_modules" / "mcp-remote" / "dist" / "proxy.js"
SETUP = REPO / "scripts" / "setup-mcp-remote.sh"
ADDRESS = "bridge@example.com"
AUTHORIZE = re.compile(r"^(http://\S+/authorize\?\S+)$", re.M)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    subprocess.run([str(SETUP)], check=True, timeout=600)
    live = start_server(tmp_path_factory.mktemp("oauth-bridge"))
    yield live
    stop_server(live)


class Bridge:
    """`mcp-remote URL PORT --allow-http` speaking JSON-RPC lines over its stdin and stdout."""

    def __init__(self, url: str, workdir: Path) -> None:
        self.log = workdir / "bridge.err"
        env = {"PATH": str(NODE.parent), "HOME": str(workdir), "MCP_REMOTE_CONFIG_DIR": str(workdir / "auth")}
        env["BROWSER"] = "/bin/true"  # the person opens the address themselves (in Chromium, below)
        self.process = subprocess.Popen(
            [str(NODE), str(BRIDGE), url, str(free_port()), "--allow-http"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log.open("wb"),
            text=True,
            env=env,
        )

    def send(self, message: dict[str, Any]) -> None:
        stdin: IO[str] | None = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    def answer(self, request_id: int) -> dict[str, Any]:
        stdout: IO[str] | None = self.process.stdout
        assert stdout is not None
        for line in stdout:
            message = json.loads(line)
            if message.get("id") == request_id:
                return dict(message)
        raise AssertionError(f"the bridge ended before answering {request_id}:\n{self.log.read_text()}")

    def authorization_address(self, seconds: float = 60) -> str:

        def printed() -> str | None:
            if found := AUTHORIZE.search(self.log.read_text()):
                return found.group(1)
            if self.process.poll() is not None:
                pytest.fail(f"the bridge ended without an authorization address:\n{self.log.read_text()}")
            return None

        return eventually(printed, seconds=seconds, every=0.2, what="the bridge to print an authorization address")

    def close(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


def test_mcp_remote_completes_the_flow_and_calls_pro_tools(server: LiveServer, browser: Any, tmp_path: Path) -> None:
    bridge = Bridge(f"{server.url}/mcp-pro", tmp_path)
    try:
        bridge.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "assistant", "version": "1"},
                },
            }
        )
        address = bridge.authorization_address()

        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(15_000)
        page.goto(address)  # /authorize → the consent page → sign in first
        page.get_by_role("heading", name="Sign in to connect an app").wait_for()
        page.get_by_label("E-mail address").fill(ADDRESS)
        page.get_by_role("button", name="E-mail me a sign-in link").click()
        page.get_by_role("heading", name="Check your inbox").wait_for()
        page.goto(latest_link(server, ADDRESS))
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("heading", name=re.compile("Connect .* to your account")).wait_for()
        assert "a program on this computer" in page.content()
        assert sideways(page) == [] and serious_findings(page) == []
        page.screenshot(path="/tmp/garage-tools-oauth-consent-390.png", full_page=True)
        page.set_viewport_size({"width": 1200, "height": 900})
        page.screenshot(path="/tmp/garage-tools-oauth-consent-desktop.png", full_page=True)
        page.get_by_role("button", name="Allow").click()
        page.wait_for_url(re.compile(r"http://(localhost|127\.0\.0\.1):\d+/oauth/callback\?code=.*"))

        initialized = bridge.answer(1)
        assert initialized["result"]["serverInfo"]["name"] == "garage-door-tools", initialized
        bridge.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        tools = bridge.answer(2)["result"]["tools"]
        assert len(tools) == len(build_registry())
        call = {"name": "retrieveLabContext", "arguments": {"query": "why did my spring break in the cold?"}}
        bridge.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
        result = bridge.answer(3)["result"]
        assert result.get("isError") is not True and result["content"], result

        page.goto(f"{server.url}/developers/dashboard")  # the person sees the app among theirs
        page.get_by_role("heading", name="Connected apps").wait_for()
        assert page.get_by_role("button", name="Disconnect MCP CLI Proxy").count() == 1
        assert serious_findings(page) == []
        page.screenshot(path="/tmp/garage-tools-oauth-dashboard.png", full_page=True)
        page.close()
    finally:
        bridge.close()
    tokens = list((tmp_path / "auth").rglob("*_tokens.json"))
    assert tokens and json.loads(tokens[0].read_text())["access_token"].startswith("svc_at_")
