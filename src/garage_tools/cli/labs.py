"""`garage-tools labs`: the interactive labs' committed preview images."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click


class LabSlug(click.ParamType[str]):
    """A lab's slug, checked against the labs when the command runs rather than when its help is listed."""

    name = "slug"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from garage_tools.knowledge.labs import LAB_SLUGS

        slug: str = click.Choice(LAB_SLUGS).convert(value, param, ctx)
        return slug


@click.group()
def labs() -> None:
    """The interactive labs."""


@labs.command("render-previews")
@click.option("--only", multiple=True, type=LabSlug(), metavar="SLUG", help="Just this lab (repeatable).")
@click.option("--base-url", default=None, help="Shoot a running service here instead of starting one.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write <slug>.png (default: the previews the package serves).",
)
@click.option(
    "--chromium",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="The browser to drive (default /usr/bin/chromium, else Playwright's own).",
)
def labs_render_previews(only: tuple[str, ...], base_url: str | None, out: Path | None, chromium: Path | None) -> None:
    """Screenshot each lab with headless Chromium and write its 960x540 preview PNG (needs Playwright)."""
    from contextlib import nullcontext

    from garage_tools.knowledge.labs import LAB_SLUGS, PREVIEW_DIR
    from garage_tools.web.previews import PreviewError, Written, local_server, render_previews

    def report(written: Written) -> None:
        kind = "palette" if written.palette else "full colour"
        click.echo(f"wrote {written.path} ({written.size / 1024:.0f} KB, {kind})")

    slugs = list(only) or list(LAB_SLUGS)
    try:
        with nullcontext(base_url.rstrip("/")) if base_url else local_server() as url:
            render_previews(url, slugs, out or PREVIEW_DIR, chromium=chromium, report=report)
    except PreviewError as exc:
        raise click.ClickException(str(exc)) from exc
