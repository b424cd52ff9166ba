"""`garage-tools requests`: service requests from the operator's side (the sweep that passes on the unanswered)."""

from __future__ import annotations

import click

from garage_tools.cli.runner import load_settings, run_with_services


@click.group()
def requests() -> None:
    """Homeowners' service requests."""


@requests.command("sweep")
def requests_sweep() -> None:
    """Pass every request unanswered past GARAGE_TOOLS_REQUEST_RESPONSE_HOURS to the next partner serving its ZIP
    code (and tell the homeowner). `serve` does this itself every GARAGE_TOOLS_REQUEST_SWEEP_SECONDS; run this
    from a scheduler when that is 0."""
    from garage_tools.partners.requests import SweepResult
    from garage_tools.services import Services

    async def work(services: Services) -> SweepResult:
        return await services.tool_data.partners.requests.sweep()

    result = run_with_services(load_settings(), work)
    click.echo(f"sweep: {result.looked_at} unanswered past the time, {result.passed_on} passed to the next partner")
