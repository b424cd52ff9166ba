"""The leads spreadsheet's cells: text a spreadsheet shows as text, never runs as a formula (CSV injection)."""

from __future__ import annotations

import unicodedata


def spreadsheet_cells(cells: list[str]) -> list[str]:
    """Cells a spreadsheet will show as text: one that starts like a formula gets a leading apostrophe.

    Spreadsheets skip leading spaces (a non-breaking one too) and read the full-width and small forms of
    `= + - @` (U+FF1D, U+FE66, …) and the minus sign as the characters they look like, so those count too."""
    return [f"'{cell}" if _formula_like(cell) else cell for cell in cells]


def _formula_like(cell: str) -> bool:
    if not cell:
        return False
    if cell[0].isspace() or not cell[0].isprintable():
        return True
    return unicodedata.normalize("NFKC", cell[0]) in _FORMULA_STARTS


_FORMULA_STARTS = frozenset("=+-@\u2212")
