"""The `garage-tools` command: serve, call a tool, manage API keys and the database."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import orjson

from garage_tools import __version__
from garage_tools.errors import ServiceError
from garage_tools.knowledge.loader import DATA_DIR, DATA_FILES, KnowledgeError
from garage_tools.registry import Caller, Tier, ToolContext, dump, invoke
from garage_tools.services import Services, build_services
from garage_tools.settings import Settings

T = TypeVar("T")


def _run(settings: Settings, work: Callable[[Services], Awaitable[T]]) -> T:
    """Build the services, run `work` against them and close them again."""

    async def main() -> T:
        services = build_services(settings)
        try:
            await services.start()
            return await work(services)
        finally:
            await services.close()

    try:
        return asyncio.run(main())
    except KnowledgeError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group()
@click.version_option(__version__, prog_name="garage-tools")
def main() -> None:
    """Garage Door Tools Service: garage-door tools over REST and MCP."""


@main.command()
@click.option("--host", default=None, help="Interface to bind (default 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port to listen on (default 8000).")
@click.option("--workers", type=int, default=None, help="Worker processes (default 1).")
def serve(host: str | None, port: int | None, workers: int | None) -> None:
    """Serve REST, MCP and the pages on http://HOST:PORT."""
    import uvicorn

    overrides = {"host": host, "port": port, "workers": workers}
    for name, value in overrides.items():
        if value is not None:
            os.environ[f"GARAGE_TOOLS_{name.upper()}"] = str(value)
    try:
        settings = Settings()
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if settings.auto_migrate:
        _run(settings.model_copy(update={"auto_migrate": False}), lambda services: services.database.migrate())
        os.environ["GARAGE_TOOLS_AUTO_MIGRATE"] = "false"  # migrated once here, so the workers don't race
    # Relative paths were resolved against this directory; pin them for the worker processes.
    os.environ.setdefault("GARAGE_TOOLS_DATA_DIR", str(settings.data_dir))
    os.environ.setdefault("GARAGE_TOOLS_DATABASE_URL", settings.db_url)
    click.echo(f"garage-tools {__version__} on http://{settings.host}:{settings.port} (database {settings.db_url})")
    uvicorn.run(
        "garage_tools.app:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_level=settings.log_level,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        server_header=False,
    )


@main.command()
@click.argument("tool")
@click.argument("arguments", default="{}")
def call(tool: str, arguments: str) -> None:
    """Run TOOL in-process with ARGUMENTS (a JSON object) and print its JSON result.

    Errors print the same {"error": {...}} envelope the API returns, and exit with status 1.
    """
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
            return dump(await invoke(services.registry, tool, parsed, ToolContext(services, caller, base)))
        except ServiceError as error:
            return error.envelope()

    result = _run(Settings(), work)
    click.echo(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    if "error" in result and set(result) == {"error"}:
        sys.exit(1)


@main.group()
def keys() -> None:
    """Create, list and revoke API keys."""


@keys.command("create")
@click.option("--email", required=True, help="Owner's e-mail address.")
@click.option("--name", default="default", show_default=True, help="A label to tell keys apart.")
def keys_create(email: str, name: str) -> None:
    """Create a key and print it. The plaintext is shown only this once."""
    if "@" not in email or len(email) > 320:
        raise click.BadParameter("must be an e-mail address", param_hint="--email")
    issued = _run(Settings(), lambda services: services.keys.issue(email.strip().lower(), name[:100]))
    click.echo(f"id:    {issued.record.id}\nowner: {issued.record.owner_email}\nname:  {issued.record.name}")
    click.echo(f"key:   {issued.plaintext}")
    click.echo("Store the key now: it cannot be shown again.", err=True)


@keys.command("list")
@click.option("--email", default=None, help="Only this owner's keys.")
def keys_list(email: str | None) -> None:
    """List keys (never the secrets)."""
    records = _run(Settings(), lambda services: services.keys.repository.list(email.lower() if email else None))
    if not records:
        click.echo("no keys")
        return
    click.echo(f"{'ID':<12} {'STATUS':<8} {'CREATED':<20} {'LAST USED':<20} {'OWNER'} ({'NAME'})")
    for r in records:
        status = "active" if r.active else "revoked"
        last = r.last_used_at.strftime("%Y-%m-%d %H:%M") if r.last_used_at else "never"
        click.echo(f"{r.id:<12} {status:<8} {r.created_at:%Y-%m-%d %H:%M}     {last:<20} {r.owner_email} ({r.name})")


@keys.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id: str) -> None:
    """Revoke the key with id KEY_ID; it stops working at once."""
    record = _run(Settings(), lambda services: services.keys.repository.revoke(key_id))
    if record is None:
        raise click.ClickException(f"no key with id {key_id!r}")
    click.echo(f"revoked {record.id} ({record.owner_email}, {record.name})")


@main.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply pending migrations (run once per deploy when auto-migration is off)."""
    settings = Settings()

    async def work(services: Services) -> None:
        await services.database.migrate()

    _run(settings.model_copy(update={"auto_migrate": False}), work)
    click.echo(f"database is at the newest schema ({settings.db_url})")


@main.group()
def knowledge() -> None:
    """Domain data files."""


@knowledge.command("check")
def knowledge_check() -> None:
    """Validate every data file against its schema and the others."""
    from garage_tools.knowledge.loader import load_knowledge

    try:
        loaded = load_knowledge()
    except KnowledgeError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(
        f"ok: {len(loaded.tree.symptoms)} symptoms, {len(loaded.tree.issues)} issues, "
        f"{len(loaded.costs.regions)} cost regions, {len(loaded.door_styles.styles)} door styles"
    )


@knowledge.command("schemas")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=DATA_DIR / "schemas")
def knowledge_schemas(out: Path) -> None:
    """Write the JSON Schema of each data file (for editor validation)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, model in DATA_FILES.items():
        target = out / name.replace(".json", ".schema.json")
        target.write_text(json.dumps(schema_for(model), indent=2) + "\n", encoding="utf-8")
        click.echo(f"wrote {target}")


def schema_for(model: Any) -> dict[str, Any]:
    schema: dict[str, Any] = model.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema.setdefault("properties", {})["$schema"] = {"type": "string"}
    return schema


if __name__ == "__main__":
    main()
