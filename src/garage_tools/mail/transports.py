"""Where composed messages go: an SMTP server, or `.eml` files when no server is configured."""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol

import aiosmtplib

from garage_tools.settings import Settings


class PermanentFailure(Exception):
    """The server refused the message for good (e.g. no such mailbox): retrying cannot help."""


class Transport(Protocol):
    """Sends one composed message. Raises on failure; `PermanentFailure` means don't retry."""

    #: The longest one `send` may take, in seconds. The worker's lease is built from it.
    deadline: float

    def describe(self) -> str:
        """Where mail goes, for logs and `mail status` (never with a password)."""
        ...

    async def send(self, message: EmailMessage, *, sender: str, recipient: str) -> None: ...


class SmtpTransport:
    """SMTP through aiosmtplib: implicit TLS (port 465) or STARTTLS, optional login."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        username: str | None = None,
        password: str | None = None,
        starttls: bool = True,
        tls: bool = False,
        timeout: float = 30.0,
    ) -> None:
        self.host = host
        self.port = port
        self.username = username
        self._password = password
        self.tls = tls
        self.starttls = starttls and not tls
        self.timeout = timeout
        # aiosmtplib's timeout is per network step (connect, EHLO, STARTTLS, AUTH, DATA…). A healthy exchange
        # takes a second or two; three full waits bound the whole send, and with it the worker's lease, so a
        # crashed worker's messages go out again within a couple of minutes rather than ten.
        self.deadline = 3 * timeout

    def describe(self) -> str:
        user = f"{self.username}@" if self.username else ""
        security = "tls" if self.tls else "starttls" if self.starttls else "plain"
        return f"smtp://{user}{self.host}:{self.port} ({security})"

    async def send(self, message: EmailMessage, *, sender: str, recipient: str) -> None:
        try:
            async with asyncio.timeout(self.deadline):
                await aiosmtplib.send(
                    message,
                    sender=sender,
                    recipients=[recipient],
                    hostname=self.host,
                    port=self.port,
                    username=self.username,
                    password=self._password,
                    use_tls=self.tls,
                    start_tls=self.starttls,
                    timeout=self.timeout,
                )
        except aiosmtplib.SMTPRecipientsRefused as exc:
            if all(500 <= refusal.code < 600 for refusal in exc.recipients):
                refusal = exc.recipients[0]
                raise PermanentFailure(f"recipient refused: {refusal.code} {refusal.message}") from exc
            raise


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class FileTransport:
    """Writes each message to `<directory>/<message-id>.eml`, for local use without a mail server.

    The file appears whole or not at all (written to a temporary name, then renamed), and a retry
    of the same message overwrites its own file rather than adding another.
    """

    deadline = 30.0

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def describe(self) -> str:
        return f"files in {self.directory}"

    def path_for(self, message: EmailMessage) -> Path:
        local = str(message["Message-ID"]).strip("<>").split("@", 1)[0]
        return self.directory / f"{_UNSAFE.sub('_', local)}.eml"

    async def send(self, message: EmailMessage, *, sender: str, recipient: str) -> None:
        await asyncio.to_thread(self._write, self.path_for(message), message.as_bytes())

    def _write(self, target: Path, data: bytes) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def writes_files(settings: Settings) -> bool:
    """Whether mail goes to `.eml` files (the embedded default: no SMTP server configured)."""
    return isinstance(transport_from_settings(settings), FileTransport)  # building one does no I/O


def transport_from_settings(settings: Settings) -> Transport:
    """SMTP when `smtp_host` is set, otherwise `.eml` files under `data_dir/mail`."""
    if not settings.smtp_host:
        return FileTransport(settings.data_dir / "mail")
    return SmtpTransport(
        settings.smtp_host,
        settings.smtp_port,
        username=settings.smtp_username,
        password=settings.smtp_password.get_secret_value() if settings.smtp_password else None,
        starttls=settings.smtp_starttls,
        tls=settings.smtp_tls,
        timeout=settings.smtp_timeout,
    )
