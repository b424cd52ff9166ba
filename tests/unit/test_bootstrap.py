"""`make setup` (scripts/bootstrap.sh) says what it is doing while it works, and nothing when all is in place."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BOOTSTRAP = REPO / "scripts" / "bootstrap.sh"
STAMP = REPO / ".venv" / ".bootstrap-done"


def run() -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BOOTSTRAP)], cwd=REPO, capture_output=True, text=True, timeout=300, check=True)


def test_bootstrap_narrates_its_work_and_is_quiet_when_there_is_none() -> None:
    STAMP.unlink(missing_ok=True)  # as after a fresh clone or a changed lock file
    working = run()
    assert "bootstrap: installing the locked Python packages" in working.stderr
    assert working.stderr.rstrip().endswith("bootstrap: ready")
    assert working.stdout.strip().endswith("/bin/uv")  # what the Makefile reads
    idle = run()
    assert idle.stderr == ""
