"""`garage-tools db`: the database schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from garage_tools.cli.runner import load_settings, run_with_services

if TYPE_CHECKING:
    from garage_tools.services import Services


@click.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply pending migrations (run once per deploy when auto-migration is off)."""
    from garage_tools.store.database import display_url

    settings = load_settings()

    async def work(services: Services) -> None:
        await services.database.migrate()

    run_with_services(settings.model_copy(update={"auto_migrate": False}), work)
    click.echo(f"database is at the newest schema ({display_url(settings.db_url)})")
