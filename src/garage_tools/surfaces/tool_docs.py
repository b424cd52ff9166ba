"""What people read about the tools, generated from the registry: argument tables, the list of every tool.

One reading of a tool's input schema (name, type, required, description) serves the agent guide (`/ai`),
the tool pages and the Tools section of docs/api.md (`garage-tools docs api --write`; a test fails when
the file drifts from the registry, as Datasette checks its documented options). The sentence naming every
tool serves `/llms.txt` and the OpenAPI document, so a new tool is named there with no edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from garage_tools.registry import AuthPolicy, Registry, Tool

#: The generated part of docs/api.md lies between these two lines.
BEGIN = "<!-- tools: generated from the registry by `garage-tools docs api --write`; do not edit by hand -->"
END = "<!-- end of generated tools -->"


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a tool, as its input schema publishes it."""

    name: str
    type: str
    required: bool
    description: str


def arguments_of(tool: Tool[Any, Any]) -> list[Argument]:
    """A tool's arguments in schema order (the wire names)."""
    schema = tool.input_model.model_json_schema(by_alias=True)
    required = set(schema.get("required", ()))
    return [
        Argument(name, type_name(spec, schema), name in required, str(spec.get("description", "")))
        for name, spec in schema.get("properties", {}).items()
    ]


def type_name(spec: dict[str, Any], schema: dict[str, Any]) -> str:
    """A short reading of a JSON Schema type: `string`, `number`, `one of a, b`."""
    options = [option for option in spec.get("anyOf", [spec]) if option.get("type") != "null"]
    names = []
    for option in options:
        if "$ref" in option:
            option = schema.get("$defs", {}).get(option["$ref"].rsplit("/", 1)[1], {})
        if "enum" in option:
            names.append("one of " + ", ".join(str(value) for value in option["enum"]))
        else:
            names.append(str(option.get("type", "any")))
    return " or ".join(names) or "any"


def answer_fields(tool: Tool[Any, Any]) -> list[str]:
    """The top-level fields of a tool's answer (the wire names), in schema order."""
    schema = tool.output_model.model_json_schema(by_alias=True, mode="serialization")
    return list(schema.get("properties", {}))


def every_tool(registry: Registry) -> str:
    """Every tool's title in one sentence, for the blurbs of llms.txt and OpenAPI."""
    titles = [tool.title[0].lower() + tool.title[1:] for tool in registry]
    return "; ".join(titles) + "."


def _cell(text: str) -> str:
    return re.sub(r"\s+", " ", text).replace("|", "\\|").strip()


def api_markdown(registry: Registry) -> str:
    """The Tools section of docs/api.md: an index, then each tool's description, arguments and answer fields."""
    lines = [BEGIN, "", "| Tool | What it answers | Auth |", "|---|---|---|"]
    for tool in registry:
        auth = "bearer (API key)" if tool.auth is AuthPolicy.BEARER else "optional"
        lines.append(f"| [`{tool.name}`](#{tool.name.lower()}) | {_cell(tool.summary)} | {auth} |")
    for tool in registry:
        lines += ["", f"### {tool.name}", "", f"**{tool.title}.** {tool.description}", ""]
        arguments = arguments_of(tool)
        if arguments:
            lines += ["| Argument | Type | Required | Description |", "|---|---|---|---|"]
        else:
            lines.append("No arguments.")
        for argument in arguments:
            required = "yes" if argument.required else "no"
            lines.append(f"| `{argument.name}` | {_cell(argument.type)} | {required} | {_cell(argument.description)} |")
        lines += ["", "Answer fields: " + ", ".join(f"`{name}`" for name in answer_fields(tool)) + "."]
    lines += ["", END]
    return "\n".join(lines)


def with_tools(document: str, registry: Registry) -> str:
    """`document` (docs/api.md) with its generated part made anew; ValueError when the markers are missing."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise ValueError("the document lacks the markers of the generated tools section")
    return document[:start] + api_markdown(registry) + document[end + len(END) :]


def rewrite(path: Path, registry: Registry) -> bool:
    """Write the generated part of `path` anew; whether it changed."""
    before = path.read_text(encoding="utf-8")
    after = with_tools(before, registry)
    if after != before:
        path.write_text(after, encoding="utf-8")
    return after != before
