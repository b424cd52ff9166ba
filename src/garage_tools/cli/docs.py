"""`garage-tools docs`: the parts of the documentation generated from the registry."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def docs() -> None:
    """Documentation generated from the tool registry."""


@docs.command("api")
@click.option(
    "--path",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=Path("docs/api.md"),
    show_default=True,
    help="The API reference to check or rewrite.",
)
@click.option("--write", is_flag=True, help="Rewrite the generated Tools section instead of only checking it.")
def api(path: Path, write: bool) -> None:
    """Check (or with --write, rewrite) the Tools section of docs/api.md against the registry."""
    from garage_tools.surfaces.tool_docs import rewrite, with_tools
    from garage_tools.tools import build_registry

    registry = build_registry()
    if write:
        changed = rewrite(path, registry)
        click.echo(f"{path}: {'rewritten' if changed else 'already up to date'}")
        return
    if with_tools(path.read_text(encoding="utf-8"), registry) != path.read_text(encoding="utf-8"):
        raise click.ClickException(f"{path} differs from the registry: run `garage-tools docs api --write`")
    click.echo(f"{path}: up to date")
