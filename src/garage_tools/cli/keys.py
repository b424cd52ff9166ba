"""`garage-tools keys`: create, list and revoke API keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from garage_tools.cli.runner import load_settings, run_with_services

if TYPE_CHECKING:
    from garage_tools.services import Services


@click.group()
def keys() -> None:
    """Create, list and revoke API keys."""


@keys.command("create")
@click.option("--email", required=True, help="Owner's e-mail address.")
@click.option("--name", default="default", show_default=True, help="A label to tell keys apart.")
def keys_create(email: str, name: str) -> None:
    """Create a key and print it. The plaintext is shown only this once."""
    from garage_tools.models import is_email_address

    if not is_email_address(email.strip()):
        raise click.BadParameter("must be an e-mail address such as dev@example.com", param_hint="--email")
    issued = run_with_services(load_settings(), lambda services: services.keys.issue(email.strip().lower(), name[:100]))
    click.echo(f"id:    {issued.record.id}\nowner: {issued.record.owner_email}\nname:  {issued.record.name}")
    click.echo(f"key:   {issued.plaintext}")
    click.echo("Store the key now: it cannot be shown again.", err=True)


@keys.command("list")
@click.option("--email", default=None, help="Only this owner's keys.")
def keys_list(email: str | None) -> None:
    """List keys (never the secrets)."""
    records = run_with_services(
        load_settings(), lambda services: services.keys.repository.list(email.lower() if email else None)
    )
    if not records:
        click.echo("no keys")
        return
    click.echo(f"{'ID':<12} {'STATUS':<8} {'CREATED':<20} {'LAST USED':<20} {'OWNER'} ({'NAME'})")
    for r in records:
        status = "active" if r.active else "revoked"
        last = r.last_used_at.strftime("%Y-%m-%d %H:%M") if r.last_used_at else "never"
        click.echo(f"{r.id:<12} {status:<8} {r.created_at:%Y-%m-%d %H:%M}     {last:<20} {r.owner_email} ({r.name})")


@keys.command("plan")
@click.argument("key_id")
@click.argument("plan")
def keys_plan(key_id: str, plan: str) -> None:
    """Put the key KEY_ID (or the connected app with that id) on PLAN; `default` follows GARAGE_TOOLS_DEFAULT_PLAN.

    It applies at once in running servers' next key check (within GARAGE_TOOLS_KEY_CACHE_SECONDS).
    """
    from garage_tools.access.limits import PLANS

    names = [known.name for known in PLANS]
    if plan != "default" and plan not in names:
        raise click.BadParameter(f"must be one of {', '.join([*names, 'default'])}", param_hint="PLAN")
    chosen = None if plan == "default" else plan

    async def change(services: Services) -> str | None:
        record = await services.keys.set_plan(key_id, chosen)
        if record is not None:
            return f"key {record.id} ({record.owner_email}, {record.name})"
        grant = await services.oauth.set_plan(key_id, chosen)
        return f"connected app {grant.id} ({grant.email})" if grant is not None else None

    changed = run_with_services(load_settings(), change)
    if changed is None:
        raise click.ClickException(f"no key or connected app with id {key_id!r}")
    click.echo(f"{changed} is now on the {plan} plan")


@keys.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id: str) -> None:
    """Revoke the key with id KEY_ID; it stops working at once."""
    record = run_with_services(load_settings(), lambda services: services.keys.revoke(key_id))
    if record is None:
        raise click.ClickException(f"no key with id {key_id!r}")
    click.echo(f"revoked {record.id} ({record.owner_email}, {record.name})")
