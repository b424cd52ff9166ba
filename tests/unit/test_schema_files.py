"""Every data file's JSON Schema on disk is the one its model writes, so editors validate against the truth."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from garage_tools.cli import main
from garage_tools.knowledge.data_files import DATA_DIR


def test_every_schema_file_is_current(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["knowledge", "schemas", "--out", str(tmp_path)])
    assert done.exit_code == 0, done.output
    written = sorted(tmp_path.glob("*.json"))
    assert written
    stale = [p.name for p in written if p.read_text() != (DATA_DIR / "schemas" / p.name).read_text()]
    assert stale == [], "run `garage-tools knowledge schemas` to refresh them"
