"""The edges a round of probes found, through a real server (SQLite, or PostgreSQL and Redis on the second leg).

- `/authorize` never sends a browser to a registered redirect URI because of a bad request (an open
  redirect: anyone can register one); it shows the service's own page and stores nothing.
- Every OAuth parameter and registration field is bounded before it is stored.
- Loopback redirect URIs match with any port (RFC 8252 §7.3).
- An app's name is cleaned before a person reads it, and the consent page names where the answer goes.
- A NUL (or another control character) in any form, JSON body, query or path is a 400 on every route.
- An unexpected failure on a page route is the 500 envelope with an incident id, logged once, and the
  connection goes on serving.
"""

from __future__ import annotations

import itertools
import os
import re
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from garage_tools.app import create_app
from garage_tools.settings import Settings
from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_oauth import pkce
from tests.e2e.test_portal import csrf_of, signed_in
from tests.polling import eventually

EVIL = "https://evil.example/landing"
_addresses = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # The real OAuth authorization limit (the suite's servers raise it): 60 a minute per address.
    env = {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1", "GARAGE_TOOLS_RATE_LIMIT_OAUTH_AUTHORIZE": "60/minute"}
    live = start_server(tmp_path_factory.mktemp("hardening"), env)
    yield live
    stop_server(live)


def new_address() -> dict[str, str]:
    """A client address of its own (the server trusts the loopback proxy), so no test spends another's limits."""
    n = next(_addresses)
    return {"X-Forwarded-For": f"198.18.{n // 250}.{n % 250 + 1}"}


def register(server: LiveServer, redirect: str, name: str = "Test Assistant", **extra: object) -> httpx.Response:
    body = {"redirect_uris": [redirect], "client_name": name, "token_endpoint_auth_method": "none", **extra}
    return httpx.post(f"{server.url}/register", json=body, headers=new_address())


def authorize_query(server: LiveServer, client_id: str, redirect: str, **changes: str | None) -> dict[str, str]:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect,
        "code_challenge": pkce()[1],
        "code_challenge_method": "S256",
        "state": "st-1",
        "scope": "pro",
        "resource": f"{server.url}/mcp-pro",
        **changes,
    }
    return {name: value for name, value in query.items() if value is not None}


def grants(server: LiveServer) -> int:
    return int(server.query("SELECT count(*) FROM oauth_grants")[0][0])


OAUTH_ERRORS = {"invalid_request", "invalid_scope", "invalid_target", "unsupported_response_type"}
BAD_REQUESTS: dict[str, dict[str, str | None]] = {
    "no code_challenge": {"code_challenge": None},
    "plain PKCE": {"code_challenge_method": "plain"},
    "an unknown scope": {"scope": "admin"},
    "a foreign resource": {"resource": "https://elsewhere.example/mcp"},
    "response_type=token": {"response_type": "token"},
    "a 200-character code_challenge": {"code_challenge": "a" * 200},
    "a 2,000-character state": {"state": "s" * 2000},
}


@pytest.mark.parametrize("problem", list(BAD_REQUESTS))
def test_a_bad_request_with_a_registered_evil_redirect_shows_our_page_and_stores_nothing(
    server: LiveServer, problem: str
) -> None:
    client_id = register(server, EVIL).json()["client_id"]
    query = authorize_query(server, client_id, EVIL, **BAD_REQUESTS[problem])
    before = grants(server)
    page = httpx.get(f"{server.url}/authorize", params=query, headers={"Accept": "text/html"})
    assert page.status_code == 400 and "location" not in page.headers, (problem, page.headers)
    assert "This app could not be connected" in page.text and "evil.example" not in page.text
    program = httpx.get(f"{server.url}/authorize", params=query)  # a program reads OAuth's own error
    assert program.status_code == 400 and "location" not in program.headers
    assert program.json()["error"] in OAUTH_ERRORS
    assert grants(server) == before


def test_only_a_whole_valid_request_is_held_for_the_person(server: LiveServer) -> None:
    client_id = register(server, EVIL).json()["client_id"]
    before = grants(server)
    repeated = f"{server.url}/authorize?{urlencode(authorize_query(server, client_id, EVIL))}&state=again"
    assert httpx.get(repeated).status_code == 400  # a parameter given twice (RFC 6749 §3.1)
    long_redirect = authorize_query(server, client_id, EVIL + "?" + "x" * 2100)
    assert httpx.get(f"{server.url}/authorize", params=long_redirect).status_code == 400
    assert grants(server) == before
    valid = httpx.get(f"{server.url}/authorize", params=authorize_query(server, client_id, EVIL))
    assert valid.status_code == 302 and valid.headers["location"].startswith("/developers/authorize/")
    assert grants(server) == before + 1


def test_300_anonymous_requests_are_limited_and_grow_nothing_unbounded(server: LiveServer) -> None:
    client_id = register(server, EVIL).json()["client_id"]
    before = grants(server)
    with httpx.Client(base_url=server.url, headers=new_address()) as client:
        bad = [
            client.get("/authorize", params=authorize_query(server, client_id, EVIL, state="s" * 600)).status_code
            for _ in range(150)
        ]
        good = [
            client.get("/authorize", params=authorize_query(server, client_id, EVIL)).status_code for _ in range(150)
        ]
    assert bad[:60] == [400] * 60 and set(bad[60:]) == set(good) == {429}  # 60 a minute from one address
    assert grants(server) == before
    refused = httpx.get(
        f"{server.url}/authorize", params=authorize_query(server, client_id, EVIL), headers=new_address()
    )
    assert refused.status_code == 302  # another address goes on


def test_registration_fields_are_bounded_before_they_are_stored(server: LiveServer) -> None:
    too_long_redirect = register(server, "https://app.example/cb?" + "x" * 2100)
    assert too_long_redirect.status_code == 400 and too_long_redirect.json()["error"] == "invalid_redirect_uri"
    too_long_field = register(server, EVIL, client_uri="https://app.example/" + "x" * 2100)
    assert too_long_field.status_code == 400 and too_long_field.json()["error"] == "invalid_client_metadata"
    too_many = register(server, EVIL, contacts=[f"a{n}@app.example" for n in range(11)])
    assert too_many.status_code == 400 and too_many.json()["error"] == "invalid_client_metadata"


def test_loopback_redirects_match_with_any_port(server: LiveServer) -> None:
    person = signed_in(server)
    client_id = register(server, "http://127.0.0.1/callback").json()["client_id"]
    chosen = "http://127.0.0.1:51234/callback"
    opened = httpx.get(f"{server.url}/authorize", params=authorize_query(server, client_id, chosen))
    assert opened.status_code == 302, opened.text
    page = person.client.get(opened.headers["location"])
    assert page.status_code == 200 and "127.0.0.1:51234" in page.text
    allowed = person.client.post(opened.headers["location"], data={"csrf": csrf_of(page), "decision": "allow"})
    assert allowed.headers["location"].startswith(chosen + "?")
    for elsewhere in ("http://127.0.0.1:51234/other", "http://localhost:51234/callback", "https://127.0.0.1/callback"):
        refused = httpx.get(f"{server.url}/authorize", params=authorize_query(server, client_id, elsewhere))
        assert refused.status_code == 400, elsewhere


def test_an_apps_name_is_cleaned_and_the_consent_page_names_where_the_answer_goes(server: LiveServer) -> None:
    person = signed_in(server)
    sly = "Claude\u202e\u200b tnaH\r\nOfficial\u2066 app"
    client_id = register(server, "https://connector.example/cb", name=sly).json()["client_id"]
    query = authorize_query(server, client_id, "https://connector.example/cb")
    page = person.client.get(f"{server.url}/authorize", params=query, follow_redirects=True)
    assert page.status_code == 200
    heading = re.search(r"<h1>(.*?)</h1>", page.text, re.S)
    assert heading is not None
    assert "Claude tnaH Official app" in heading.group(1) and "connector.example" in heading.group(1)
    for sneaky in ("\u202e", "\u200b", "\u2066", "\r"):
        assert sneaky not in page.text


def test_a_control_character_in_oauth_input_is_a_400_and_the_connection_goes_on(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, headers=new_address()) as client:
        for name in ("a\u0000b", "a\u001bb"):
            body = {"redirect_uris": [EVIL], "client_name": name, "token_endpoint_auth_method": "none"}
            refused = client.post("/register", json=body)
            assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_text"
        assert client.get("/healthz").status_code == 200
        client_id = client.post("/register", json={"redirect_uris": [EVIL]}).json()["client_id"]
        state = client.get("/authorize", params=authorize_query(server, client_id, EVIL, state="a\x00b"))
        assert state.status_code == 400 and state.json()["error"]["code"] == "invalid_text"
        token = client.post("/token", data={"grant_type": "refresh_token", "refresh_token": "x\x00", "client_id": "y"})
        assert token.status_code == 400 and token.json()["error"]["code"] == "invalid_text"


def _app(tmp_path: Path) -> Starlette:
    return create_app(Settings(data_dir=tmp_path / "var", mail_worker_in_process=False))


def _routes(app: Starlette) -> list[Route]:
    return [route for route in app.routes if isinstance(route, Route)]


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "x", path)


def test_a_nul_is_refused_on_every_route_that_takes_a_body(server: LiveServer, tmp_path: Path) -> None:
    """Walks the app's own route table, so a route added later is covered without an edit here: anonymous, as a
    signed-in developer and with a pro key, each route answers a NUL with a 400 or refuses before reading."""
    person = signed_in(server)
    _, key = server.create_key()
    app = _app(tmp_path)
    tools = [f"/api/v1/{tool.name}" for tool in app.state.registry]
    posts = sorted({_concrete(r.path) for r in _routes(app) if "POST" in (r.methods or ())} - {"/api/v1/x"})
    posts += tools
    assert len(posts) > 25, posts
    seen: dict[str, set[int]] = {}
    with (
        httpx.Client(base_url=server.url, timeout=15) as anonymous,
        httpx.Client(base_url=server.url, timeout=15, headers={"Authorization": f"Bearer {key}"}) as pro,
    ):
        for path in posts:
            for client in (anonymous, person.client, pro):
                client.headers.update(new_address())
                json_nul = client.post(path, content=b'{"description": "a\\u0000b", "name": "x"}',
                                       headers={"Content-Type": "application/json"})  # fmt: skip
                fields = {"csrf": "x", "email": "a\x00@b.example", "title": "a\x00", "description": "a\x00"}
                form_nul = client.post(path, data=fields)
                multipart_nul = client.post(path, data=fields, files={"photo": ("door.jpg", b"\xff\xd8", "image/jpeg")})
                for answer in (json_nul, form_nul, multipart_nul):
                    assert answer.status_code in (303, 400, 401, 403, 404, 405, 415), (path, answer.text[:300])
                    seen.setdefault(path, set()).add(answer.status_code)
    assert all(400 in statuses for statuses in seen.values()), seen


def test_a_nul_in_a_query_or_path_is_a_400_everywhere(server: LiveServer, tmp_path: Path) -> None:
    gets = sorted({_concrete(r.path) for r in _routes(_app(tmp_path)) if "GET" in (r.methods or ())})
    with httpx.Client(base_url=server.url, timeout=15) as client:
        for path in gets:
            answer = client.get(f"{path}?to=2026-01-01%00&q=%1b")
            assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_text", path
        assert client.get("/developers/authorize/a%00b").status_code == 400
        assert client.get("/healthz?note=tab%09and%0Anewline").status_code == 200  # people type these


@pytest.fixture
def broken_server(tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(tmp_path)
    yield live
    stop_server(live)


def test_an_unexpected_failure_on_a_page_route_is_the_envelope_and_the_connection_lives(
    broken_server: LiveServer,
) -> None:
    """A table gone from under the service makes `/register` fail in a way no handler expects."""
    broken_server.query("ALTER TABLE oauth_clients RENAME TO oauth_clients_gone")
    body = b'{"redirect_uris": ["https://app.example/cb"]}'
    request = (
        f"POST /register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nX-Request-Id: broken-42\r\n\r\n"
    ).encode() + body
    url = urlsplit(broken_server.url)
    with socket.create_connection((url.hostname, url.port), timeout=10) as connection:
        connection.sendall(request)
        first = _response(connection)
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # the same connection
        second = _response(connection)
    assert first.startswith(b"HTTP/1.1 500"), first
    assert b"x-request-id: broken-42" in first.lower()
    found = re.search(rb"incident is logged as ([0-9a-f]{12})", first)
    assert found is not None and b'"code":"internal_error"' in first
    assert second.startswith(b"HTTP/1.1 200"), second
    log = (broken_server.workdir / "server.log").read_text()
    assert log.count(found.group(1).decode()) == 1 and log.count("Traceback") == 1, log


def _response(connection: socket.socket) -> bytes:
    """One HTTP/1.1 response (headers and a Content-Length body) read from `connection`."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        assert chunk, data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: (\d+)", head.lower()).group(1))  # type: ignore[union-attr]
    while len(rest) < length:
        chunk = connection.recv(65536)
        assert chunk, data
        rest += chunk
    return head + b"\r\n\r\n" + rest


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_30_kb_query_writes_less_than_2_kb_of_log(tmp_path: Path, log_format: str) -> None:
    live = start_server(tmp_path, {"GARAGE_TOOLS_LOG_LEVEL": "info", "GARAGE_TOOLS_LOG_FORMAT": log_format})
    try:
        log = live.workdir / "server.log"
        assert httpx.get(f"{live.url}/healthz?warm=1").status_code == 200
        eventually(lambda: "warm=1" in log.read_text(), seconds=30)
        before = log.stat().st_size
        query = "x=" + "q" * 30_000
        assert httpx.get(f"{live.url}/healthz?{query}&last=1").status_code == 200
        assert httpx.get(f"{live.url}/healthz?done=1").status_code == 200
        eventually(lambda: "done=1" in log.read_text(), seconds=30)
        written = log.read_bytes()[before:]
        assert 0 < len(written) < 2048, written[:3000]
        assert len(re.findall(rb"q{400,}", written)) == 1  # the query once, cut
    finally:
        stop_server(live)


def test_a_worker_that_dies_is_logged_as_a_warning(tmp_path: Path) -> None:
    live = start_server(tmp_path, {"GARAGE_TOOLS_WORKERS": "2", "GARAGE_TOOLS_LOG_LEVEL": "warning"})
    try:
        workers = _children(live.process.pid)
        assert len(workers) == 2, workers
        os.kill(workers[0], signal.SIGKILL)  # a worker this test's own server started
        log = live.workdir / "server.log"
        line = eventually(
            lambda: re.search(rf"^.*Child process \[{workers[0]}\] died.*$", log.read_text(), re.M), seconds=30
        )
        assert line.group(0).startswith("WARNING"), line.group(0)
        eventually(lambda: len(_children(live.process.pid)) == 2, seconds=30)  # and another takes its place
    finally:
        stop_server(live)


def _children(pid: int) -> list[int]:
    """The live worker processes whose parent is `pid` (from /proc; spawned by multiprocessing, not its helpers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z" and b"spawn_main" in command:
                found.append(int(entry.name))
    return sorted(found)
