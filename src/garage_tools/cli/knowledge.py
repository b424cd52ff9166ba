"""`garage-tools knowledge`: check the domain data files, and write their JSON Schemas for editors."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.group()
def knowledge() -> None:
    """Domain data files."""


@knowledge.command("check")
def knowledge_check() -> None:
    """Validate every data file against its schema and the others."""
    from garage_tools.knowledge.data_files import KnowledgeError
    from garage_tools.knowledge.loader import load_knowledge

    try:
        loaded = load_knowledge()
    except KnowledgeError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(
        f"ok: {len(loaded.tree.symptoms)} symptoms, {len(loaded.tree.issues)} issues, "
        f"{len(loaded.regional_prices.states)} state and {len(loaded.regional_prices.metros)} metro price factors, "
        f"{len(loaded.door_styles.styles)} door styles, "
        f"{len(loaded.labs)} labs"
    )


@knowledge.command("schemas")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write them (default: the schemas beside the packaged data files).",
)
def knowledge_schemas(out: Path | None) -> None:
    """Write the JSON Schema of each data file (for editor validation)."""
    from garage_tools.knowledge.ask_words import ASK_FILES
    from garage_tools.knowledge.data_files import DATA_DIR, schema_for
    from garage_tools.knowledge.directory import DIRECTORY_FILES
    from garage_tools.knowledge.labs import FRONT_MATTER_SCHEMA_FILE, LabFrontMatter
    from garage_tools.knowledge.loader import DATA_FILES, LANGUAGE_FILES
    from garage_tools.knowledge.parts import PART_FILES
    from garage_tools.knowledge.photos import PHOTO_FILES
    from garage_tools.knowledge.place_index import PLACE_FILES
    from garage_tools.knowledge.time_zones import TIME_ZONE_FILES

    out = out or DATA_DIR / "schemas"
    out.mkdir(parents=True, exist_ok=True)
    files = {**DATA_FILES, **LANGUAGE_FILES, **DIRECTORY_FILES, **PHOTO_FILES, **PART_FILES, **PLACE_FILES}
    for name, model in {**files, **ASK_FILES, **TIME_ZONE_FILES}.items():
        target = out / name.replace(".json", ".schema.json")
        target.write_text(json.dumps(schema_for(model), indent=2) + "\n", encoding="utf-8")
        click.echo(f"wrote {target}")
    target = out / FRONT_MATTER_SCHEMA_FILE  # the front matter of each labs/<slug>.md
    target.write_text(json.dumps(schema_for(LabFrontMatter), indent=2) + "\n", encoding="utf-8")
    click.echo(f"wrote {target}")
