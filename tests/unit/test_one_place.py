"""Small rules written once: each test names the one module that holds its rule and checks the rest read it."""

from __future__ import annotations

from pathlib import Path

from garage_tools import key_format
from garage_tools.access.keys import new_key
from garage_tools.observability.redaction import REDACTED, redact

SOURCE = Path(key_format.__file__).parent


def test_the_key_prefix_is_written_in_one_module_and_the_redaction_reads_it() -> None:
    writers = sorted(
        str(path.relative_to(SOURCE)) for path in SOURCE.rglob("*.py") if key_format.PREFIX in path.read_text("utf-8")
    )
    assert writers == ["key_format.py"]
    key = new_key()[1]
    assert key.startswith(key_format.PREFIX)
    logged = redact(f"caller sent {key} twice")
    assert key not in logged and f"{key_format.PREFIX}{REDACTED}" in logged
