"""What the commands that work on the service's data share: reading the settings, and running one piece of
work against the services, with a bad setting, a bad data file or an unusable store reported as one line an
operator can act on instead of a traceback."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import click

if TYPE_CHECKING:
    from garage_tools.services import Services
    from garage_tools.settings import Settings

T = TypeVar("T")


def load_settings() -> Settings:
    """The settings, or one line per bad variable, naming it, instead of a traceback (and never its value)."""
    from pydantic import ValidationError

    from garage_tools.settings import Settings

    try:
        return Settings()
    except ValidationError as exc:
        problems = [
            (f"GARAGE_TOOLS_{'_'.join(map(str, error['loc'])).upper()}: " if error["loc"] else "")
            + error["msg"].removeprefix("Value error, ")
            for error in exc.errors(include_url=False, include_input=False)
        ]
        raise click.ClickException("\n".join(problems)) from exc
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc


def run_with_services(settings: Settings, work: Callable[[Services], Awaitable[T]]) -> T:
    """Build the services, run `work` against them and close them again."""
    from garage_tools.knowledge.data_files import KnowledgeError
    from garage_tools.services import build_services
    from garage_tools.store.database import StoreConfigError, StoreUnavailable, display_url
    from garage_tools.store.database import log as store_log

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
