"""The portal reads a form as the gates read a request body: bounded in size and in time.

A form is refused with a page of its own, with its status: 415 when it is not a form, 413 over 4 KiB
(before a byte is read when the request declares its length, as soon as the bytes pass it otherwise),
408 when it arrives slower than `GARAGE_TOOLS_BODY_TIMEOUT_SECONDS`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from starlette.types import Message

from garage_tools.app import create_app
from garage_tools.settings import Settings

FORM = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Starlette:
    # Not started: every request here is refused before the store is asked anything.
    data = tmp_path_factory.mktemp("forms") / "var"
    return create_app(Settings(data_dir=data, mail_worker_in_process=False, body_timeout_seconds=0.2))


async def post(app: Starlette, chunks: list[bytes], headers: dict[str, str], *, stall: bool = False) -> tuple[int, str]:
    """POST the sign-in form in `chunks` (then wait for ever when `stall`); the status and the page's text."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/developers/sign-in", "raw_path": b"/developers/sign-in", "query_string": b"", "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000")] + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    pending = list(chunks)
    sent: list[Message] = []

    async def receive() -> Message:
        if pending:
            return {"type": "http.request", "body": pending.pop(0), "more_body": bool(pending) or stall}
        await asyncio.Event().wait()  # a client that never sends the rest
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], body.decode()


async def test_anything_but_a_form_is_refused(app: Starlette) -> None:
    status, page = await post(app, [b'{"email": "a@example.com"}'], {"Content-Type": "application/json"})
    assert status == 415 and "Send this form from the page." in page


async def test_a_form_declared_too_large_is_refused_unread(app: Starlette) -> None:
    status, page = await post(app, [], {"Content-Type": FORM, "Content-Length": "5000"}, stall=True)
    assert status == 413 and "The form is too large." in page


async def test_a_form_that_grows_too_large_is_refused(app: Starlette) -> None:
    status, page = await post(app, [b"email=" + b"a" * 3000, b"b" * 3000], {"Content-Type": FORM})
    assert status == 413 and "The form is too large." in page


async def test_a_form_slower_than_the_body_timeout_is_refused(app: Starlette) -> None:
    status, page = await asyncio.wait_for(post(app, [b"email=a"], {"Content-Type": FORM}, stall=True), 10)
    assert status == 408 and "The form took too long to arrive." in page


@pytest.mark.parametrize(("smtp_host", "shown"), [(None, True), ("mail.example.com", False)])
def test_the_operator_note_is_only_for_a_server_that_writes_mail_to_files(
    tmp_path: Path, smtp_host: str | None, shown: bool
) -> None:
    settings = Settings(data_dir=tmp_path / "var", mail_worker_in_process=False, smtp_host=smtp_host)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        page = client.get("/developers/sign-in/sent").text
    assert "Check your inbox" in page
    assert ("For whoever runs this server" in page) is shown
    assert ("garage-tools mail latest" in page) is shown
    assert "var/mail" not in page  # the data directory is the operator's to choose
