"""The official MCP conformance suite's authorization-server scenarios against the real server.

`conformance authorization` checks the RFC 8414 metadata, then runs an authorization code grant with PKCE:
it prints the authorization URL for a person to open and waits for the redirect on a loopback port. Here
the person is a signed-in portal visitor pressing Allow on the consent page, and the redirect the page
answers is delivered to the suite's listener. (The suite's `auth/*` scenarios test clients, not servers.)
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import LiveServer, free_port, start_server, stop_server
from tests.e2e.test_conformance import ANSI, NODE, SETUP, SUITE
from tests.e2e.test_oauth import decide
from tests.e2e.test_portal import signed_in


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    subprocess.run([str(SETUP)], check=True, timeout=600)
    live = start_server(tmp_path_factory.mktemp("oauth-conformance"), {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1"})
    yield live
    stop_server(live)


def suite(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(NODE), str(SUITE), "authorization", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def unexpected(output: str) -> list[str]:
    """The check lines that did not succeed, less the one known gap: Client ID Metadata Documents (a SHOULD of
    2025-11-25 the service does not offer yet; clients register dynamically instead)."""
    return [
        line
        for line in ANSI.sub("", output).splitlines()
        if re.search(r"\] (FAILURE|WARNING) ", line) and "[authorization-server-metadata-cimd" not in line
    ]


def test_authorization_server_scenarios(server: LiveServer) -> None:
    """Both scenarios in one run: the grant reads the metadata the first one fetched."""
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/callback"
    client_id = httpx.post(
        f"{server.url}/register",
        json={"redirect_uris": [redirect], "client_name": "Test Assistant", "token_endpoint_auth_method": "none"},
    ).json()["client_id"]
    person = signed_in(server)
    run = suite(
        "--url", server.url, "--client-id", client_id, "--resource", f"{server.url}/mcp-pro", "--port", str(port),
    )  # fmt: skip
    assert run.stdout is not None
    lines: list[str] = []
    for line in run.stdout:  # the suite prints the URL a person should open, then waits
        lines.append(line)
        if line.startswith(f"{server.url}/authorize?"):
            answer = decide(person, line.strip())
            assert answer.headers["location"].startswith(redirect + "?code=")
            httpx.get(answer.headers["location"])  # the browser following the redirect to the suite's listener
            break
    else:
        raise AssertionError("".join(lines))
    rest, _ = run.communicate(timeout=120)
    output = "".join(lines) + rest
    assert run.returncode == 0, output
    for scenario in ("authorization-server-metadata-endpoint", "authorization-code-grant"):
        assert f"✓ {scenario}: 1 passed, 0 failed" in output, output
    assert "Total: 2 passed, 0 failed" in output and not unexpected(output), output
