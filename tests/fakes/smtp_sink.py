"""An SMTP server on a loopback port (aiosmtpd) that keeps what it accepts, for testing our real SMTP client.

It can refuse chosen recipients with a permanent 550, and it can hold one message mid-DATA (to
catch a worker with a message in hand) and then turn it away with a 451, so it is never counted.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from types import TracebackType
from typing import Any

from aiosmtpd.controller import Controller

from tests.conftest import free_port


@dataclass(frozen=True)
class Received:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage

    @property
    def message_id(self) -> str:
        return str(self.message["Message-ID"])


class SmtpSink:
    """Start with `with SmtpSink() as sink:`; `sink.received` lists accepted messages in order."""

    def __init__(self, port: int | None = None, *, refuse: set[str] | None = None) -> None:
        self.port = port or free_port()
        self.refuse = refuse or set()
        self.received: list[Received] = []
        #: Called in the sink's own thread after each accepted message.
        self.on_accept: Callable[[Received], None] | None = None
        #: Hold the DATA of the message that arrives when this many have been accepted.
        self.hold_after: int | None = None
        self.holding = threading.Event()
        self.let_go = threading.Event()
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> SmtpSink:
        self._controller.start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.let_go.set()
        self._controller.stop()

    def message_ids(self) -> list[str]:
        return [received.message_id for received in self.received]

    # aiosmtpd handler hooks
    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any) -> str:
        if address in self.refuse:
            return "550 5.1.1 No such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.hold_after is not None and len(self.received) == self.hold_after:
            self.hold_after = None
            self.holding.set()
            await asyncio.to_thread(self.let_go.wait, 30)
            return "451 4.3.0 Try again later"
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        received = Received(envelope.mail_from, list(envelope.rcpt_tos), message)
        self.received.append(received)
        if self.on_accept is not None:
            self.on_accept(received)
        return "250 Message accepted"
