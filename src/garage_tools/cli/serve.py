"""`garage-tools serve`: the service on uvicorn, with one worker or several."""

from __future__ import annotations

import logging.config
import os
import signal
import sys
from typing import TYPE_CHECKING

import click

from garage_tools import __version__
from garage_tools.cli.runner import load_settings, run_with_services

if TYPE_CHECKING:
    from garage_tools.services import Services

#: How long uvicorn's supervisor waits for a worker to answer its health check before it kills the worker
#: and starts another. uvicorn's 5 s default is shorter than a new worker can take to start on a loaded
#: machine (it imports the whole service before the check is answered), which left `--workers N` killing
#: and restarting workers that were only slow; a worker that is truly stuck is still replaced.
WORKER_HEALTH_CHECK_SECONDS = 30


@click.command()
@click.option("--host", default=None, help="Interface to bind (default 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port to listen on (default 8000).")
@click.option("--workers", type=int, default=None, help="Worker processes (default 1).")
def serve(host: str | None, port: int | None, workers: int | None) -> None:
    """Serve REST, MCP and the pages on http://HOST:PORT."""
    import uvicorn

    from garage_tools.observability.logs import log_config
    from garage_tools.observability.multiprocess import shared_metrics_directory
    from garage_tools.store.database import display_url

    overrides = {"host": host, "port": port, "workers": workers}
    for name, value in overrides.items():
        if value is not None:
            os.environ[f"GARAGE_TOOLS_{name.upper()}"] = str(value)
    settings = load_settings()

    async def prepare(services: Services) -> None:
        # Opening the store here reports a bad URL or a missing driver before any worker starts. With
        # auto-migration off the server is not contacted: the service starts and /readyz says when it answers.
        if settings.auto_migrate:
            await services.database.migrate()

    run_with_services(settings.model_copy(update={"auto_migrate": False}), prepare)
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
            timeout_worker_healthcheck=WORKER_HEALTH_CHECK_SECONDS,
            log_level=None,  # set by `log_config`, which keeps a worker's death at WARNING whatever the level
            log_config=logging_config,
            # uvicorn builds each access line before the logger's level drops it: skip it when it would be dropped.
            access_log=settings.log_level in ("trace", "debug", "info"),
            proxy_headers=False,  # the access gate reads Forwarded/X-Forwarded-For from trusted proxies only
            server_header=False,
            # Bounds on what one client can hold (see connection_limits.py). A string, so workers import it.
            http="garage_tools.surfaces.connection_limits:BoundedHttpProtocol",
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
