"""`garage-tools apps`: list and revoke connected apps (the OAuth grants people allowed on /mcp-pro)."""

from __future__ import annotations

import click

from garage_tools.cli.runner import load_settings, run_with_services


@click.group()
def apps() -> None:
    """List and disconnect apps people connected to /mcp-pro with OAuth."""


@apps.command("list")
@click.option("--email", default=None, help="Only this person's apps.")
def apps_list(email: str | None) -> None:
    """List connected apps (never their tokens)."""
    grants = run_with_services(
        load_settings(), lambda services: services.oauth.connected(email.strip().lower() if email else None)
    )
    if not grants:
        click.echo("no connected apps")
        return
    click.echo(f"{'ID':<32} {'ALLOWED':<17} {'OWNER'} ({'APP'})")
    for grant in grants:
        allowed = f"{grant.allowed_at:%Y-%m-%d %H:%M}" if grant.allowed_at else ""
        click.echo(f"{grant.id:<32} {allowed:<17} {grant.email} ({grant.client_name})")


@apps.command("revoke")
@click.argument("grant_id")
def apps_revoke(grant_id: str) -> None:
    """Disconnect the app with id GRANT_ID: its tokens stop working (elsewhere within the key cache time).

    An id from before ids were hex may open with "-": write `apps revoke -- GRANT_ID`."""
    record = run_with_services(load_settings(), lambda services: services.oauth.revoke(grant_id))
    if record is None:
        raise click.ClickException(f"no connected app with id {grant_id!r}")
    click.echo(f"revoked {record.id} ({record.email})")
