"""`garage-tools mail`: deliver the e-mail outbox, and look inside it."""

from __future__ import annotations

import asyncio
import logging.config
import signal
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import click

from garage_tools.cli.runner import load_settings, run_with_services

if TYPE_CHECKING:
    from garage_tools.services import Services


@click.group()
def mail() -> None:
    """The e-mail outbox: deliver it and look inside."""


@mail.command("worker")
@click.option("--once", is_flag=True, help="Deliver what is due now, then exit.")
@click.option(
    "--metrics-port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Serve this worker's own Prometheus metrics (its deliveries) on this port, on --metrics-host.",
)
@click.option("--metrics-host", default="127.0.0.1", show_default=True, help="Address for --metrics-port.")
def mail_worker(once: bool, metrics_port: int | None, metrics_host: str) -> None:
    """Deliver outgoing mail until stopped. SIGTERM or Ctrl-C finish the message in hand, then exit.

    A worker of its own counts its deliveries in its own process, where no `/metrics` of the service
    can see them: `--metrics-port` serves them for Prometheus to scrape.
    """
    from garage_tools.mail.worker import MailWorker
    from garage_tools.observability.logs import log_config

    async def work(services: Services) -> None:
        worker = MailWorker.from_settings(services.settings, services.database)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        if once:
            done = await worker.drain(stop)
            click.echo(
                f"sent {done.sent}, retrying {done.retrying}, dead {done.dead} via {worker.transport.describe()}"
            )
            return
        if metrics_port is not None:
            from garage_tools.observability.metrics import serve_worker_metrics

            serve_worker_metrics(metrics_host, metrics_port)
            click.echo(f"metrics on http://{metrics_host}:{metrics_port}/metrics", err=True)
        click.echo(f"delivering mail via {worker.transport.describe()}; stop with Ctrl-C", err=True)
        await worker.run_forever(stop)
        click.echo("mail worker stopped", err=True)

    settings = load_settings()
    # A long-running process of its own: its log lines go out like the server's (format, redaction).
    logging.config.dictConfig(log_config(settings.log_level, settings.log_format))
    run_with_services(settings, work)


@mail.command("status")
def mail_status() -> None:
    """Messages by status, how long the oldest has waited, and the dead ones with their last error."""
    from garage_tools.mail.outbox import Outbox
    from garage_tools.mail.transports import transport_from_settings
    from garage_tools.store.database import display_url

    settings = load_settings()
    summary = run_with_services(settings, lambda services: Outbox(services.database).summary())
    click.echo(f"database:  {display_url(settings.db_url)}")
    click.echo(f"transport: {transport_from_settings(settings).describe()}")
    click.echo("  ".join(f"{status} {count}" for status, count in summary.counts.items()))
    if summary.oldest_waiting is not None:
        click.echo(f"oldest waiting: {_age(datetime.now(UTC) - summary.oldest_waiting)}")
    for dead in summary.dead:
        click.echo(f"dead {dead.message_id} to {dead.to} ({dead.kind}, {dead.attempts} attempts): {dead.last_error}")


@mail.command("latest")
@click.option("--to", "address", required=True, help="Recipient's e-mail address.")
def mail_latest(address: str) -> None:
    """Print the newest message to an address (read sign-in links locally when no SMTP server is set)."""
    from garage_tools.mail.outbox import Outbox

    found = run_with_services(load_settings(), lambda services: Outbox(services.database).latest_to(address))
    if found is None:
        raise click.ClickException(f"no mail to {address}")
    click.echo(f"To:      {found.to}\nSubject: {found.subject}")
    click.echo(f"Status:  {found.status}, queued {found.created_at:%Y-%m-%d %H:%M} UTC\n")
    click.echo(found.text)


def _age(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h {seconds % 3600 // 60}m"
