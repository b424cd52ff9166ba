"""What a server keeps for its whole life is frozen, so the garbage collector's full passes skip it.

Each case runs in a fresh interpreter: the freeze count only grows, and this one may have loaded the
data already. Without the freeze, a full collection in a server that had answered a routing call
walked about 475,000 objects (about 175 ms here, with every request in flight waiting).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def frozen_by(setup: str, action: str) -> list[int]:
    """How many objects `action` froze (after `setup`), and what else it prints."""
    script = f"import gc\n{setup}\nbefore = gc.get_freeze_count()\n{action}\nprint(gc.get_freeze_count() - before)"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    return [int(word) for word in result.stdout.split()]


def test_start_up_freezes_the_knowledge_indexes_and_schemas(tmp_path: Path) -> None:
    [frozen] = frozen_by(
        f"import os; os.chdir({str(tmp_path)!r})\n"
        "from starlette.testclient import TestClient\nfrom garage_tools.app import create_app\napp = create_app()",
        "with TestClient(app): pass",
    )
    assert frozen > 100_000


# The lists and dictionaries a Gazetteer holds (its index), and how many of them a full collection still scans.
HELD_AND_SCANNED = (
    "held = [o for o in gc.get_referents(*gc.get_referents(places)) if gc.is_tracked(o)]\n"
    "scanned = {id(o) for o in gc.get_objects()}\n"
    "print(len(held), sum(id(o) in scanned for o in held))"
)


def test_the_us_places_are_frozen_once_read() -> None:
    held, scanned, _ = frozen_by(
        "from garage_tools.knowledge.places import us_places", f"places = us_places()\n{HELD_AND_SCANNED}"
    )
    assert held >= 8 and scanned == 0  # the index's columns and lookup tables, none left for the collector


def test_a_server_has_the_us_places_read_and_frozen_before_its_first_request(tmp_path: Path) -> None:
    held, scanned, _ = frozen_by(
        f"import os; os.chdir({str(tmp_path)!r})\n"
        "from starlette.testclient import TestClient\nfrom garage_tools.app import create_app\n"
        "import garage_tools.knowledge.places as module\napp = create_app()",
        f"with TestClient(app):\n    places = module._loaded\n{HELD_AND_SCANNED}",
    )
    assert held >= 8 and scanned == 0
