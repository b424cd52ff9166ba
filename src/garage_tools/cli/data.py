"""`garage-tools data ...`: keep the privacy page's promises about stored personal data.

`purge` deletes what is past its retention (run it daily from the operator's scheduler); `forget` deletes
what is stored about one e-mail address, for a deletion request. The work itself is in
`store/retention.py`; this module only reads the settings and prints what was deleted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from garage_tools.cli.runner import load_settings, run_with_services

if TYPE_CHECKING:
    from garage_tools.settings import Settings
    from garage_tools.store.retention import Deleted, Retention


def retention_of(settings: Settings) -> Retention:
    """The retention periods the settings give (GARAGE_TOOLS_RETENTION_*_DAYS)."""
    from datetime import timedelta

    from garage_tools.store.retention import Retention

    return Retention(
        inspections=timedelta(days=settings.retention_inspection_days),
        leads=timedelta(days=settings.retention_lead_days),
        mail=timedelta(days=settings.retention_mail_days),
        audit=timedelta(days=settings.retention_audit_days),
    )


def _report(deleted: Deleted, dry_run: bool) -> None:
    for line in deleted.lines(dry_run):
        click.echo(line)


@click.group()
def data() -> None:
    """Personal data the service stores: delete what is past its retention, or one person's on request."""


@data.command("purge")
@click.option("--dry-run", is_flag=True, help="Count what would be deleted; delete nothing.")
def data_purge(dry_run: bool) -> None:
    """Delete what is past its retention: inspection reports, leads, expired sign-in links and sessions, old mail.

    Periods: GARAGE_TOOLS_RETENTION_INSPECTION_DAYS (730), _LEAD_DAYS (365) and _MAIL_DAYS (30, delivered or
    undeliverable mail only). Run it daily, e.g. from cron or a systemd timer.
    """
    from garage_tools.store.retention import purge

    settings = load_settings()
    retention = retention_of(settings)
    click.echo(
        f"keeping inspection reports {retention.inspections.days} days, leads {retention.leads.days} days, "
        f"delivered mail {retention.mail.days} days, partner audit entries {retention.audit.days} days"
    )
    deleted = run_with_services(settings, lambda services: purge(services.database, retention, dry_run=dry_run))
    _report(deleted, dry_run)


@data.command("forget")
@click.argument("email")
@click.option("--dry-run", is_flag=True, help="Count what would be deleted; delete nothing.")
def data_forget(email: str, dry_run: bool) -> None:
    """Delete everything stored about EMAIL: inspection reports, leads carrying it, mail, sign-ins, keys, account."""
    from garage_tools.models import is_email_address
    from garage_tools.store.retention import forget

    if not is_email_address(email.strip()):
        raise click.BadParameter("must be an e-mail address such as person@example.com", param_hint="EMAIL")
    deleted = run_with_services(load_settings(), lambda services: forget(services.database, email, dry_run=dry_run))
    _report(deleted, dry_run)
    if not deleted.total:
        click.echo(f"nothing is stored for {email.strip().lower()}")
