"""The packaged data files: where they live, how one is read and checked, and the error that stops start-up.

Every data file (the diagnostic tree, the catalogs, the photo manifest, the partner samples, the web
changelog) is JSON checked against a pydantic model when the service starts, so an expert's typo stops the
service with a message naming the file and the field, instead of a wrong answer later.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

DATA_DIR = Path(__file__).parent / "data"

ModelT = TypeVar("ModelT", bound=BaseModel)


class KnowledgeError(RuntimeError):
    """A data file is missing, malformed or inconsistent; the service refuses to start."""


def read_data_file(path: Path, model: type[ModelT]) -> ModelT:
    """The JSON file at `path` as `model` (its editor's `$schema` line aside), or `KnowledgeError` saying why not."""
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise KnowledgeError(f"{path}: cannot read JSON: {exc}") from exc
    if isinstance(raw, dict):
        raw.pop("$schema", None)
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise KnowledgeError(f"{path}: does not match its schema:\n{exc}") from exc


def schema_for(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema an editor checks a data file of `model` against (`garage-tools knowledge schemas`)."""
    schema: dict[str, Any] = model.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema.setdefault("properties", {})["$schema"] = {"type": "string"}
    return schema
