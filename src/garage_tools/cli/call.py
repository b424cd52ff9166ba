"""`garage-tools call`: run one tool in-process, as the operator on this machine."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from garage_tools.cli.runner import load_settings, run_with_services

if TYPE_CHECKING:
    from garage_tools.services import Services


@click.command()
@click.argument("tool")
@click.argument("arguments", default="{}")
def call(tool: str, arguments: str) -> None:
    """Run TOOL in-process with ARGUMENTS (a JSON object) and print its JSON result.

    Errors print the same {"error": {...}} envelope the API returns, and exit with status 1.
    """
    import orjson

    from garage_tools.access.caller import Caller, Tier
    from garage_tools.errors import ServiceError
    from garage_tools.registry import dump, invoke
    from garage_tools.tools import build_registry

    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not valid JSON: {exc}", param_hint="ARGUMENTS") from exc
    if not isinstance(parsed, dict):
        raise click.BadParameter("must be a JSON object", param_hint="ARGUMENTS")

    async def work(services: Services) -> dict[str, Any]:
        caller = Caller(tier=Tier.PRO, surface="cli")  # the operator on this machine
        base = services.settings.public_base_url or f"http://{services.settings.host}:{services.settings.port}"
        try:
            context = services.tool_context(caller, base)
            return dump(await invoke(build_registry(), tool, parsed, context))
        except ServiceError as error:
            return error.envelope()

    result = run_with_services(load_settings(), work)
    click.echo(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    if "error" in result and set(result) == {"error"}:
        sys.exit(1)
