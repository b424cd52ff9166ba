"""docs/api.md cannot drift from the registry: its Tools section is the one `garage-tools docs api` generates,
and every tool is named in the blurbs of /llms.txt and the OpenAPI document."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from garage_tools.access.limits import Limits
from garage_tools.cli import main
from garage_tools.settings import Settings
from garage_tools.surfaces.discovery import llms_txt
from garage_tools.surfaces.openapi import openapi_document
from garage_tools.surfaces.tool_docs import BEGIN, END, api_markdown, arguments_of, with_tools
from garage_tools.tools import build_registry

API_MD = Path(__file__).parents[2] / "docs" / "api.md"
REGISTRY = build_registry()


def test_the_tools_section_is_the_registry() -> None:
    document = API_MD.read_text(encoding="utf-8")
    assert with_tools(document, REGISTRY) == document, "run `garage-tools docs api --write`"
    section = document[document.index(BEGIN) : document.index(END)]
    for tool in REGISTRY:
        assert f"### {tool.name}\n" in section
        for argument in arguments_of(tool):
            assert f"| `{argument.name}` |" in section, (tool.name, argument.name)


def test_the_check_fails_on_drift_and_write_mends_it(tmp_path: Path) -> None:
    drifted = tmp_path / "api.md"
    text = API_MD.read_text(encoding="utf-8")
    drifted.write_text(text.replace("| `zipOrLocation` |", "| `zip_or_location` |"), encoding="utf-8")
    runner = CliRunner()
    check = runner.invoke(main, ["docs", "api", "--path", str(drifted)])
    assert check.exit_code != 0 and "docs api --write" in check.output
    assert runner.invoke(main, ["docs", "api", "--path", str(drifted), "--write"]).exit_code == 0
    assert drifted.read_text(encoding="utf-8") == text
    assert runner.invoke(main, ["docs", "api", "--path", str(drifted)]).exit_code == 0


def test_a_document_without_markers_is_refused(tmp_path: Path) -> None:
    bare = tmp_path / "api.md"
    bare.write_text("# API\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["docs", "api", "--path", str(bare)])
    assert result.exit_code != 0 and "markers" in str(result.exception or result.output)


def test_every_tool_is_in_the_blurbs() -> None:
    llms = llms_txt(REGISTRY, "https://doors.example.com", Limits(Settings()))
    blurb = openapi_document(REGISTRY, "https://doors.example.com")["info"]["description"]
    head = llms.split("## Tools")[0]
    for tool in REGISTRY:
        title = tool.title[0].lower() + tool.title[1:]
        assert title in head and title in blurb, tool.name
    assert api_markdown(REGISTRY).count("\n### ") == len(REGISTRY)
