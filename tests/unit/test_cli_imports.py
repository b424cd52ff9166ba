"""The command loads what it runs, not the service around it.

`garage-tools --help` used to import the whole service (about two seconds on a 2-core machine), which
every CLI call of the test suite paid, and which each `serve --workers N` worker paid again on start:
enough, on a loaded machine, to miss uvicorn's worker health check. Commands that do not serve must
not load the server, its Starlette app, the MCP SDK or uvicorn.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: What only `serve` needs.
SERVER_MODULES = ("garage_tools.app", "garage_tools.surfaces", "garage_tools.web", "mcp", "uvicorn")
_LOADED = "--- modules loaded ---"
_PROGRAM = f"""
import atexit, sys
atexit.register(lambda: print({_LOADED!r}, *sorted(sys.modules), sep="\\n"))
from garage_tools.cli import main
main(prog_name="garage-tools")
"""


def modules_loaded_by(args: list[str], workdir: Path) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
    result = subprocess.run(
        [sys.executable, "-c", _PROGRAM, *args], cwd=workdir, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split(_LOADED, 1)[1].split())


def loaded_server_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == s or m.startswith(f"{s}.") for s in SERVER_MODULES))


def test_help_lists_the_commands_without_loading_the_service(tmp_path: Path) -> None:
    modules = modules_loaded_by(["--help"], tmp_path)
    assert "garage_tools.cli" in modules
    assert loaded_server_modules(modules) == []
    assert "garage_tools.services" not in modules and "sqlalchemy" not in modules


@pytest.mark.parametrize("args", [["partners", "list"], ["keys", "list"]])
def test_a_command_that_does_not_serve_loads_no_server(tmp_path: Path, args: list[str]) -> None:
    modules = modules_loaded_by(args, tmp_path)
    assert "garage_tools.services" in modules  # it did run against the store
    assert loaded_server_modules(modules) == []
