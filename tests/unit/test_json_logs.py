"""Log lines: JSON or text, each with its request id, and never a key, token or e-mail address.

The request id comes from `RequestIds` (observability/middleware.py) or a tool's edge (surfaces/edge.py); the
redaction from `RedactSecrets` (observability/redaction.py), which the handlers `serve` configures run on
every record before it is formatted.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from garage_tools.access.keys import new_key
from garage_tools.app import create_app
from garage_tools.mail.message import new_message_id
from garage_tools.observability.logs import JsonFormatter, RequestIdFilter, TextFormatter
from garage_tools.observability.metrics import RequestMetrics
from garage_tools.observability.middleware import RequestIds
from garage_tools.observability.redaction import RedactSecrets, redact, redact_paths_in_access_log
from garage_tools.observability.request_id import MAX_LENGTH, current_request_id
from garage_tools.registry import Registry
from garage_tools.settings import Settings
from garage_tools.surfaces.cors import CorsPolicy
from garage_tools.surfaces.edge import ToolCallEdge
from tests.unit.test_registry import tool as echo_tool

KEY = new_key()[1]
EMAIL = "jane.doe+garage@example.com"
TOKEN = "0.Turnstile-token_abcdefghijklmnopqrstuvwxyz0123456789"


def record(
    msg: str, *args: Any, name: str = "garage_tools.test", exc: BaseException | None = None
) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord(name, logging.WARNING, __file__, 1, msg, args or None, exc_info)


def through_handler(entry: logging.LogRecord) -> str:
    """`entry` as the configured handlers write it in JSON: request id, redaction, then the formatter."""
    RequestIdFilter().filter(entry)
    RedactSecrets().filter(entry)
    return JsonFormatter().format(entry)


# -- redaction ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "args"),
    [
        ("keyed call with %s", (KEY,)),
        (f"keyed call with {KEY}", ()),
        ("Authorization: %s", (f"Bearer {KEY}",)),
        ("upstream said %s", ("authorization=Bearer abc.def-ghi",)),
        ("sign-in link requested for %s", (EMAIL,)),
        ("body was %s", (json.dumps({"challengeToken": TOKEN, "description": "bang"}),)),
        ("GET /x?token=%s&email=%s", (TOKEN, EMAIL.replace("@", "%40"))),
        ("smtp login failed: password=%s", ("hunter2-secret",)),
    ],
    # Named, not numbered from the values: the key is random, and parallel workers must collect the same ids.
    ids=["key-arg", "key-in-message", "bearer", "bearer-fragment", "email", "challenge", "query", "password"],
)
def test_keys_tokens_and_addresses_are_masked_in_messages_and_arguments(message: str, args: tuple[Any, ...]) -> None:
    line = through_handler(record(message, *args))
    for secret in (KEY, KEY[9:], EMAIL, EMAIL.replace("@", "%40"), TOKEN, "abc.def-ghi", "hunter2-secret"):
        assert secret not in line
    assert "[redacted]" in line or "[email]" in line
    assert json.loads(line)["level"] == "warning"  # still one JSON object


def test_an_address_inside_an_exception_is_masked_in_the_traceback() -> None:
    try:
        raise ValueError(f"no account for {EMAIL} with key {KEY}")
    except ValueError as exc:
        line = json.loads(through_handler(record("lookup failed", exc=exc)))
    assert "ValueError: no account for [email] with key svc_live_[redacted]" in line["exception"]
    assert EMAIL not in json.dumps(line) and KEY not in json.dumps(line)


def test_the_access_line_keeps_its_fields_with_secrets_masked() -> None:
    redact_paths_in_access_log("/developers/confirm/")
    args = ("203.0.113.9:5123", "GET", f"/api/v1/diagnose?api_key={KEY}&to={EMAIL}", "1.1", 405)
    line = json.loads(through_handler(record('%s - "%s %s HTTP/%s" %d', *args, name="uvicorn.access")))
    assert line["method"] == "GET" and line["status"] == 405 and line["client"] == "203.0.113.9:5123"
    assert line["path"] == "/api/v1/diagnose?api_key=[redacted]&to=[email]"
    link = redact("opened https://tools.example.com/developers/confirm/Zm9vYmFyYmF6cXV4 from mail")
    assert link == "opened https://tools.example.com/developers/confirm/… from mail"


@pytest.mark.parametrize(
    ("line", "logged"),
    [
        (
            "garage-tools 1.0.0 on http://0.0.0.0:8000 (database postgresql+asyncpg://garage@db.internal:5432/garage)",
            "garage-tools 1.0.0 on http://0.0.0.0:8000 (database postgresql+asyncpg://garage@db.internal:5432/garage)",
        ),
        (
            "store unreachable at postgresql+asyncpg://garage:pw-41c@db.internal:5432/garage: refused",
            "store unreachable at postgresql+asyncpg://garage:***@db.internal:5432/garage: refused",
        ),
        (
            "rate limits: counted in redis://:pw-41c@10.0.0.5:6379/0",
            "rate limits: counted in redis://:***@10.0.0.5:6379/0",
        ),
        ("delivering via smtp://mailer@smtp.example.com:587", "delivering via smtp://mailer@smtp.example.com:587"),
        # An address used as a URL's user name is still an address; a real one beside a URL is masked too.
        ("smtp://ops%40example.com:pw-41c@smtp.example.com", "smtp://[email]:***@smtp.example.com"),
        (
            "link for dev@example.com: https://doors.example.com/?next=https://x.example",
            "link for [email]: https://doors.example.com/?next=https://x.example",
        ),
        ("GET https://doors.example.com/r?to=dev@example.com", "GET https://doors.example.com/r?to=[email]"),
    ],
    ids=["no password", "password", "redis", "smtp user", "address as user", "address beside a URL", "in a query"],
)
def test_urls_keep_their_user_and_host_and_lose_only_the_password(line: str, logged: str) -> None:
    assert redact(line) == logged


def test_ordinary_lines_pass_unchanged() -> None:
    message = "store unreachable at postgresql+asyncpg://garage:***@db.internal:5432/garage: refused"
    assert redact(message) == message  # a masked URL password is not an address
    assert redact("tool diagnose failed (incident 3f2a9c1e7b4d)") == "tool diagnose failed (incident 3f2a9c1e7b4d)"


# -- formats --------------------------------------------------------------------------------------


def test_a_json_line_has_time_level_logger_message_and_pid() -> None:
    message_id = new_message_id("doors.example.com")
    line = json.loads(through_handler(record("mail %s to %s is dead after %d attempts", message_id, EMAIL, 8)))
    assert set(line) == {"time", "level", "logger", "message", "pid"}  # no request: no request_id
    assert line["time"].endswith("Z") and line["logger"] == "garage_tools.test"
    # A Message-ID names a message, not a person: it stays, so an operator can look the message up.
    assert line["message"] == f"mail {message_id} to [email] is dead after 8 attempts"


def test_the_configured_handlers_write_json_through_the_redaction() -> None:
    """`log_config` as `serve` and `mail worker` apply it, in a fresh interpreter (it configures logging globally)."""
    script = (
        "import logging, logging.config\n"
        "from garage_tools.observability.logs import log_config\n"
        "logging.config.dictConfig(log_config('info', 'json'))\n"
        f"logging.getLogger('garage_tools.mail').warning('sending to %s with %s', {EMAIL!r}, {KEY!r})\n"
        "logging.getLogger('some.library').warning('a library speaks')\n"
        "logging.getLogger('some.library').info('too quiet to show')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert [line["message"] for line in lines] == ["sending to [email] with svc_live_[redacted]", "a library speaks"]
    assert [line["logger"] for line in lines] == ["garage_tools.mail", "some.library"]


# -- request ids ----------------------------------------------------------------------------------


class Capture(logging.Handler):
    """Keeps the records it handles, after the filters the configured handlers run."""

    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__()
        self.records = records
        self.addFilter(RequestIdFilter())
        self.addFilter(RedactSecrets())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def app_logging_the_request_id(records: list[logging.LogRecord]) -> Starlette:
    """An app whose page and 'tool' each log one line, captured with the handlers' filters applied."""
    handler = Capture(records)
    log = logging.getLogger("garage_tools.test_request_ids")
    log.handlers[:] = [handler]
    log.propagate = False

    async def page(request: Request) -> PlainTextResponse:
        log.warning("page for %s", EMAIL)
        return PlainTextResponse(current_request_id() or "")

    async def tool(scope: Any, receive: Any, send: Any) -> None:
        log.warning("tool call")
        await PlainTextResponse(current_request_id() or "")(scope, receive, send)

    cors = CorsPolicy(allow_methods=["POST"], allow_headers=[])
    observed = ToolCallEdge(tool, RequestMetrics("rest", ["diagnose"]), cors, tool_param="tool")
    return Starlette(
        routes=[Route("/page", page), Route("/api/v1/{tool}", observed, methods=["POST"])],
        middleware=[Middleware(RequestIds)],
    )


@pytest.mark.parametrize("path", ["/page", "/api/v1/diagnose"])
def test_a_sane_request_id_is_echoed_and_on_the_requests_log_lines(path: str) -> None:
    records: list[logging.LogRecord] = []
    client = TestClient(app_logging_the_request_id(records))
    response = client.request("GET" if path == "/page" else "POST", path, headers={"X-Request-Id": "edge-7f3a:01"})
    assert response.headers["X-Request-Id"] == "edge-7f3a:01"
    assert response.headers.get_list("X-Request-Id") == ["edge-7f3a:01"]  # once, even through two layers
    assert response.text == "edge-7f3a:01"  # what the handler saw
    assert [getattr(r, "request_id", None) for r in records] == ["edge-7f3a:01"]
    assert json.loads(JsonFormatter().format(records[0]))["request_id"] == "edge-7f3a:01"
    assert TextFormatter("%(levelprefix)s %(message)s").format(records[0]).endswith(" request_id=edge-7f3a:01")


@pytest.mark.parametrize(
    "given", [None, "", "has space", "new\nline", "ünïcode", "x" * (MAX_LENGTH + 1), '{"json": "injection"}']
)
def test_a_missing_or_odd_request_id_is_replaced_by_a_fresh_one(given: str | None) -> None:
    records: list[logging.LogRecord] = []
    client = TestClient(app_logging_the_request_id(records))
    headers = {"X-Request-Id": given.encode()} if given is not None else {}
    first = client.get("/page", headers=headers).headers["X-Request-Id"]
    second = client.get("/page", headers=headers).headers["X-Request-Id"]
    assert re.fullmatch("[0-9a-f]{32}", first) and re.fullmatch("[0-9a-f]{32}", second)  # 128 bits, in hex
    assert first != second
    assert [getattr(r, "request_id", None) for r in records] == [first, second]


def test_the_incident_line_of_a_failing_tool_carries_the_request_id(tmp_path: Path) -> None:
    records: list[logging.LogRecord] = []
    handler = Capture(records)
    registry_log = logging.getLogger("garage_tools.registry")
    registry_log.addHandler(handler)
    settings = Settings(data_dir=tmp_path / "var", mail_worker_in_process=False)
    try:
        with TestClient(create_app(settings, registry=Registry([echo_tool("echo")]))) as client:
            failed = client.post("/api/v1/echo", json={"text": "boom"}, headers={"X-Request-Id": "incident-42"})
    finally:
        registry_log.removeHandler(handler)
    assert failed.status_code == 500 and failed.headers["X-Request-Id"] == "incident-42"
    (incident,) = [r for r in records if "incident" in r.getMessage()]
    line = json.loads(JsonFormatter().format(incident))
    assert line["request_id"] == "incident-42"
    assert "RuntimeError: secret internals" in line["exception"]
