"""The test servers' mailbox: the `.eml` files the mail worker writes under `var/mail` on the embedded default.

Tests read mail as a local user of the embedded default would; every wait polls for the message rather
than sleeping a fixed time.
"""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage
from pathlib import Path

from tests.polling import eventually

WAIT_SECONDS = 15.0


def messages(workdir: Path) -> list[EmailMessage]:
    """Every message written so far, oldest first."""
    paths = sorted((workdir / "var" / "mail").glob("*.eml"), key=lambda path: path.stat().st_mtime)
    found = []
    for path in paths:
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        found.append(message)
    return found


def wait_for_mail(workdir: Path, to: str, *, seconds: float = WAIT_SECONDS) -> EmailMessage:
    """The newest message to `to`, waiting for the worker to write one."""
    addressed = eventually(
        lambda: [message for message in messages(workdir) if message["To"] == to],
        seconds=seconds,
        what=f"mail to {to} under {workdir / 'var' / 'mail'}",
    )
    return addressed[-1]


def plain_text(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None, "the message has no plain-text part"
    return str(body.get_content())


def link_in(message: EmailMessage, path_prefix: str) -> str:
    """The first link in the plain-text part whose path starts with `path_prefix`."""
    found = re.search(rf"https?://[^/\s]+{re.escape(path_prefix)}\S*", plain_text(message))
    assert found, f"no {path_prefix} link in the message"
    return found.group(0)
