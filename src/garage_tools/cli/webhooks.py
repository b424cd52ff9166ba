"""`garage-tools partners webhooks ...`: the operator adds, lists and removes partners' webhook endpoints.

An endpoint's signing secret is printed once, when it is added; the store keeps it sealed under the secrets
key (GARAGE_TOOLS_SECRETS_KEY, or `data_dir/secrets.key`). The URL passes the same address guard as the
console's form (public https only, unless GARAGE_TOOLS_WEBHOOK_ALLOW_ADDRESSES names its network).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from garage_tools.cli.runner import load_settings, run_with_services

if TYPE_CHECKING:
    from garage_tools.services import Services

OPERATOR = "operator (command line)"


@click.group()
def webhooks() -> None:
    """Partners' webhook endpoints: where their events are delivered, signed (Standard Webhooks)."""


@webhooks.command("add")
@click.argument("partner_id")
@click.argument("url")
def webhooks_add(partner_id: str, url: str) -> None:
    """Add an endpoint for PARTNER_ID at URL and print its signing secret (shown this once)."""
    from garage_tools.mail.webhooks import EndpointRefused, EndpointRules, check_endpoint_url
    from garage_tools.store.webhooks import MAX_ENDPOINTS

    async def work(services: Services) -> tuple[str, str]:
        try:
            await check_endpoint_url(url, EndpointRules.from_settings(services.settings))
        except EndpointRefused as refused:
            raise click.ClickException(f"{url}: {refused}") from None
        await services.tool_data.partners.directory.seed_if_new()  # a new store: the packaged sample directory
        added = await services.webhooks.add(partner_id, url.strip(), OPERATOR)
        if added is None:
            raise click.ClickException(
                f"no partner {partner_id!r}, or it already has {MAX_ENDPOINTS} endpoints (see `partners list`)"
            )
        return added.endpoint.id, added.secret

    endpoint_id, secret = run_with_services(load_settings(), work)
    click.echo(f"added {endpoint_id} for {partner_id}: {url.strip()}", err=True)
    click.echo("signing secret (shown once; give it to the partner to verify deliveries):", err=True)
    click.echo(secret)


@webhooks.command("list")
@click.option("--partner", "partner_id", default=None, help="Only this partner's endpoints.")
def webhooks_list(partner_id: str | None) -> None:
    """Every endpoint: its partner, whether it is on, failures in a row, last success, URL."""

    async def work(services: Services) -> list[str]:
        lines = []
        for e in await services.webhooks.endpoints(partner_id):
            state = "on" if e.enabled else f"off since {e.disabled_at:%Y-%m-%d %H:%M}"
            success = f"{e.last_success_at:%Y-%m-%d %H:%M}" if e.last_success_at else "never"
            lines.append(f"{e.id:<27} {e.partner_id:<28} {state:<25} {e.failures:<8} {success:<16} {e.url}")
        return lines

    lines = run_with_services(load_settings(), work)
    click.echo(f"{'ID':<27} {'PARTNER':<28} {'STATE':<25} {'FAILURES':<8} {'LAST SUCCESS':<16} URL")
    for line in lines:
        click.echo(line)


@webhooks.command("remove")
@click.argument("endpoint_id")
def webhooks_remove(endpoint_id: str) -> None:
    """Remove the endpoint ENDPOINT_ID and its deliveries (those still waiting are not sent)."""

    async def work(services: Services) -> bool:
        return await services.webhooks.remove(None, endpoint_id, OPERATOR)

    if not run_with_services(load_settings(), work):
        raise click.ClickException(f"no endpoint {endpoint_id!r} (see `partners webhooks list`)")
    click.echo(f"removed {endpoint_id}")
