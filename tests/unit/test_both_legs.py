"""`make test` runs both legs and reports both, even when the first fails (scripts/test-both-legs.sh)."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "scripts" / "test-both-legs.sh"


def test_a_failing_first_leg_does_not_stop_the_second() -> None:
    # A selection that matches nothing makes pytest exit 5 on each leg: both must still run.
    nothing = ["-p", "no:cacheprovider", "tests/unit/test_both_legs.py", "-k", "no_test_has_this_name", "-q"]
    result = subprocess.run([str(SCRIPT), *nothing], capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    summary = result.stdout.split("== test legs\n", 1)[1].splitlines()
    assert [line.split()[0] for line in summary] == ["embedded", "postgres-redis"]
    assert all("FAILED (exit 5)" in line for line in summary), summary
