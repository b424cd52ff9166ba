"""The `garage-tools` command: serve, call a tool, manage API keys and the database."""

from __future__ import annotations

import asyncio
import json
import logging.config
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import click
import orjson

from garage_tools import __version__
from garage_tools.access.caller import Caller, Tier
from garage_tools.data_commands import data
from garage_tools.errors import ServiceError
from garage_tools.knowledge.directory import DIRECTORY_FILES
from garage_tools.knowledge.labs import FRONT_MATTER_SCHEMA_FILE, LAB_SLUGS, PREVIEW_DIR, LabFrontMatter
from garage_tools.knowledge.loader import DATA_DIR, DATA_FILES, KnowledgeError
from garage_tools.knowledge.parts import PART_FILES
from garage_tools.knowledge.photos import PHOTO_FILES
from garage_tools.mail.outbox import Outbox
from garage_tools.mail.transports import transport_from_settings
from garage_tools.mail.worker import MailWorker
from garage_tools.observability.logs import log_config
from garage_tools.observability.multiprocess import shared_metrics_directory
from garage_tools.partners.commands import partners, promotions
from garage_tools.registry import dump, invoke
from garage_tools.services import Services, build_services
from garage_tools.settings import Settings
from garage_tools.store.database import StoreConfigError, StoreUnavailable, display_url
from garage_tools.store.database import log as store_log
from garage_tools.tools import build_registry

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

    # A command reports a store failure itself (below); the outage line a server would log is noise here.
    quiet, store_log.disabled = store_log.disabled, True
    try:
        return asyncio.run(main())
    except KnowledgeError as exc:
        raise click.ClickException(str(exc)) from exc
    except (StoreConfigError, StoreUnavailable) as exc:
        # One paragraph an operator can act on; the traceback would only bury it (and the URL is masked).
        raise click.ClickException(
            f"cannot use the database set in GARAGE_TOOLS_DATABASE_URL ({display_url(settings.db_url)}): "
            f"{exc.reason}. {exc.hint}"
        ) from exc
    finally:
        store_log.disabled = quiet


def _settings() -> Settings:
    """The settings, or a short error naming the bad variable instead of a traceback."""
    try:
        return Settings()
    except ValueError as exc:
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
    settings = _settings()

    async def prepare(services: Services) -> None:
        # Opening the store here reports a bad URL or a missing driver before any worker starts. With
        # auto-migration off the server is not contacted: the service starts and /readyz says when it answers.
        if settings.auto_migrate:
            await services.database.migrate()

    _run(settings.model_copy(update={"auto_migrate": False}), prepare)
    if settings.auto_migrate:
        os.environ["GARAGE_TOOLS_AUTO_MIGRATE"] = "false"  # migrated once here, so the workers don't race
    # Relative paths were resolved against this directory; pin them for the worker processes.
    os.environ.setdefault("GARAGE_TOOLS_DATA_DIR", str(settings.data_dir))
    os.environ.setdefault("GARAGE_TOOLS_DATABASE_URL", settings.db_url)
    database = display_url(settings.db_url)
    banner = f"garage-tools {__version__} on http://{settings.host}:{settings.port} (database {database})"
    logging_config = log_config(settings.log_level, settings.log_format)
    if settings.log_format == "json":  # every line a log pipeline reads is JSON, this one included
        logging.config.dictConfig(logging_config)
        logging.getLogger("garage_tools.cli").info("%s", banner)
    else:
        click.echo(banner)
    _exit_zero_after_sigterm()
    # Several workers write their metrics to one directory, which /metrics in any of them adds up.
    with shared_metrics_directory(settings.workers):
        uvicorn.run(
            "garage_tools.app:create_app",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=settings.workers,
            log_level=settings.log_level,
            log_config=logging_config,
            # uvicorn builds each access line before the logger's level drops it: skip it when it would be dropped.
            access_log=settings.log_level in ("trace", "debug", "info"),
            proxy_headers=False,  # the access gate reads Forwarded/X-Forwarded-For from trusted proxies only
            server_header=False,
            # Bounds on what one client can hold (see connection_limits.py). A string, so workers import it.
            http="garage_tools.connection_limits:BoundedHttpProtocol",
            limit_concurrency=settings.max_connections,
            timeout_keep_alive=settings.keep_alive_timeout_seconds,
            timeout_graceful_shutdown=settings.graceful_shutdown_seconds,
            h11_max_incomplete_event_size=settings.max_header_bytes,  # our protocol reads it as its head size cap
        )


def _exit_zero_after_sigterm() -> None:
    """Make a finished graceful shutdown exit 0, as it already does with several workers.

    A single uvicorn server re-raises SIGTERM once it has shut down, with the handler that was in place
    before it started; by default that kills the process (status 143) after a clean stop.
    """
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))


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
            context = services.tool_context(caller, base)
            return dump(await invoke(build_registry(), tool, parsed, context))
        except ServiceError as error:
            return error.envelope()

    result = _run(_settings(), work)
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
    issued = _run(_settings(), lambda services: services.keys.issue(email.strip().lower(), name[:100]))
    click.echo(f"id:    {issued.record.id}\nowner: {issued.record.owner_email}\nname:  {issued.record.name}")
    click.echo(f"key:   {issued.plaintext}")
    click.echo("Store the key now: it cannot be shown again.", err=True)


@keys.command("list")
@click.option("--email", default=None, help="Only this owner's keys.")
def keys_list(email: str | None) -> None:
    """List keys (never the secrets)."""
    records = _run(_settings(), lambda services: services.keys.repository.list(email.lower() if email else None))
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
    record = _run(_settings(), lambda services: services.keys.revoke(key_id))
    if record is None:
        raise click.ClickException(f"no key with id {key_id!r}")
    click.echo(f"revoked {record.id} ({record.owner_email}, {record.name})")


@main.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply pending migrations (run once per deploy when auto-migration is off)."""
    settings = _settings()

    async def work(services: Services) -> None:
        await services.database.migrate()

    _run(settings.model_copy(update={"auto_migrate": False}), work)
    click.echo(f"database is at the newest schema ({display_url(settings.db_url)})")


@main.group()
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

    settings = _settings()
    # A long-running process of its own: its log lines go out like the server's (format, redaction).
    logging.config.dictConfig(log_config(settings.log_level, settings.log_format))
    _run(settings, work)


@mail.command("status")
def mail_status() -> None:
    """Messages by status, how long the oldest has waited, and the dead ones with their last error."""
    settings = _settings()
    summary = _run(settings, lambda services: Outbox(services.database).summary())
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
    found = _run(_settings(), lambda services: Outbox(services.database).latest_to(address))
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


main.add_command(partners)
main.add_command(promotions)
main.add_command(data)


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
        f"{len(loaded.costs.regions)} cost regions, {len(loaded.door_styles.styles)} door styles, "
        f"{len(loaded.labs)} labs"
    )


@knowledge.command("schemas")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=DATA_DIR / "schemas")
def knowledge_schemas(out: Path) -> None:
    """Write the JSON Schema of each data file (for editor validation)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, model in {**DATA_FILES, **DIRECTORY_FILES, **PHOTO_FILES, **PART_FILES}.items():
        target = out / name.replace(".json", ".schema.json")
        target.write_text(json.dumps(schema_for(model), indent=2) + "\n", encoding="utf-8")
        click.echo(f"wrote {target}")
    target = out / FRONT_MATTER_SCHEMA_FILE  # the front matter of each labs/<slug>.md
    target.write_text(json.dumps(schema_for(LabFrontMatter), indent=2) + "\n", encoding="utf-8")
    click.echo(f"wrote {target}")


def schema_for(model: Any) -> dict[str, Any]:
    schema: dict[str, Any] = model.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema.setdefault("properties", {})["$schema"] = {"type": "string"}
    return schema


@main.group()
def labs() -> None:
    """The interactive labs."""


@labs.command("render-previews")
@click.option("--only", multiple=True, type=click.Choice(LAB_SLUGS), metavar="SLUG", help="Just this lab (repeatable).")
@click.option("--base-url", default=None, help="Shoot a running service here instead of starting one.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=PREVIEW_DIR,
    help="Where to write <slug>.png (default: the previews the package serves).",
)
@click.option(
    "--chromium",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="The browser to drive (default /usr/bin/chromium, else Playwright's own).",
)
def labs_render_previews(only: tuple[str, ...], base_url: str | None, out: Path, chromium: Path | None) -> None:
    """Screenshot each lab with headless Chromium and write its 960x540 preview PNG (needs Playwright)."""
    from contextlib import nullcontext

    from garage_tools.web.previews import PreviewError, Written, local_server, render_previews

    def report(written: Written) -> None:
        kind = "palette" if written.palette else "full colour"
        click.echo(f"wrote {written.path} ({written.size / 1024:.0f} KB, {kind})")

    slugs = list(only) or list(LAB_SLUGS)
    try:
        with nullcontext(base_url.rstrip("/")) if base_url else local_server() as url:
            render_previews(url, slugs, out, chromium=chromium, report=report)
    except PreviewError as exc:
        raise click.ClickException(str(exc)) from exc


if __name__ == "__main__":
    main()
