"""Outgoing e-mail: a durable outbox table and the worker that delivers it.

Features never talk to an SMTP server. They add a `Mail` to the outbox in the same database
transaction as the change it announces (`enqueue`), and a worker (`MailWorker`) delivers it
later, retrying with backoff. Delivery is at-least-once: see `garage_tools.mail.worker`.
"""

from garage_tools.mail.message import InvalidMail, Mail
from garage_tools.mail.outbox import Outbox, enqueue
from garage_tools.mail.worker import MailWorker, mail_worker_running

__all__ = ["InvalidMail", "Mail", "MailWorker", "Outbox", "enqueue", "mail_worker_running"]
