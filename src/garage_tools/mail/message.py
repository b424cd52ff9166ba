"""What a feature hands the outbox (`Mail`), what the worker takes out (`QueuedMail`), and the MIME they become."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime

from garage_tools.models import is_email_address

# One label per feature ("magic_link", "inspection_report"): shown by `mail status`, never sent.
_KIND = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,49}$")
MAX_SUBJECT = 998  # the longest header line RFC 5322 allows


class InvalidMail(ValueError):
    """A `Mail` that could never be sent (bad address, header injection, empty body)."""


@dataclass(frozen=True, slots=True)
class Mail:
    """One message to one recipient. `html` is optional; `text` is always sent as the plain part."""

    to: str
    subject: str
    text: str
    html: str | None = None
    kind: str = "general"

    def __post_init__(self) -> None:
        to = self.to.strip().lower()
        if not is_email_address(to):  # one bare address by the service's rule: no display name, no list
            raise InvalidMail(f"not a single e-mail address: {self.to[:80]!r}")
        if "\r" in self.subject or "\n" in self.subject or len(self.subject) > MAX_SUBJECT:
            raise InvalidMail("the subject must be one line of at most 998 characters")
        if not self.subject.strip() or not self.text.strip():
            raise InvalidMail("a message needs a subject and a text body")
        if not _KIND.match(self.kind):
            raise InvalidMail(f"kind must be a short lower-case label, not {self.kind!r}")
        object.__setattr__(self, "to", to)


def new_message_id(domain: str) -> str:
    """A globally unique Message-ID, made once at enqueue time and reused on every retry."""
    return f"<{uuid.uuid4()}@{domain}>"


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredContent:
    """A stored message's content and history, as both the worker (`QueuedMail`) and `mail latest` read it."""

    message_id: str
    to: str
    subject: str
    text: str
    html: str | None
    kind: str
    attempts: int
    created_at: datetime


@dataclass(frozen=True, slots=True, kw_only=True)
class QueuedMail(StoredContent):
    """A message (or webhook delivery) a worker has claimed: its content plus what it needs to report back."""

    id: int
    claim_token: str
    channel: str = "mail"  # or "webhook": then `endpoint_id` says where, `subject` is the event, `text` the body
    endpoint_id: str | None = None


def compose(mail: QueuedMail, sender: str) -> EmailMessage:
    """The MIME message: text alone, or text and HTML as multipart/alternative."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = mail.to
    message["Subject"] = mail.subject
    # Date is when the message was ready to go (RFC 5322 3.6.1), so it stays the same across retries.
    message["Date"] = format_datetime(mail.created_at)
    message["Message-ID"] = mail.message_id
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to a robot
    message.set_content(mail.text)
    if mail.html:
        message.add_alternative(mail.html, subtype="html")
    return message
