"""Rewrite the generated limits tables in docs/guide.md and docs/api.md from the table in access/limits.py.

Run `.cache/uv-0.13.9/bin/uv run python scripts/limits_docs.py` after adding or changing a rule, a plan or a
default; tests/unit/test_limits_table.py fails while a doc's block differs from what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from garage_tools.access.limits import Limits
from garage_tools.access.limits_text import DOC_BEGIN, DOC_END, markdown, overview

DOCS = Path(__file__).resolve().parent.parent / "docs"
FILES = ("guide.md", "api.md")


def with_block(text: str, block: str) -> str:
    """`text` with the part between the markers replaced by `block` (ValueError when a marker is missing)."""
    start, end = text.index(DOC_BEGIN) + len(DOC_BEGIN), text.index(DOC_END)
    return f"{text[:start]}\n{block}\n{text[end:]}"


def main() -> int:
    block = markdown(overview(Limits.defaults()))
    for name in FILES:
        path = DOCS / name
        path.write_text(with_block(path.read_text(encoding="utf-8"), block), encoding="utf-8")
        print(f"rewrote the limits table in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
