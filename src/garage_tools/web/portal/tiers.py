"""What each plan gives, as the portal's tables show it: read from the table of limits in force
(`access/limits_text.py`) and the registry, so the page never drifts from what the gate counts."""

from __future__ import annotations

from dataclasses import dataclass

from garage_tools.access.limits import Limits
from garage_tools.access.limits_text import OtherRow, PlanColumn, overview
from garage_tools.registry import AuthPolicy, Registry


@dataclass(frozen=True, slots=True)
class TierRow:
    what: str
    cells: tuple[str, ...]  # one per plan column


@dataclass(frozen=True, slots=True)
class TierTable:
    columns: tuple[PlanColumn, ...]
    rows: tuple[TierRow, ...]
    others: tuple[OtherRow, ...]
    default_plan: str


def describe_tiers(limits: Limits, registry: Registry) -> TierTable:
    """The plan table (the limits of each plan, how they count, the tools that need a key, the price) and the
    service's other limits."""
    view = overview(limits)
    rows = [TierRow(row.what, row.cells) for row in view.rows]
    rows.append(TierRow("Counted per", tuple(column.per for column in view.plans)))
    keyed = [tool.name for tool in registry if tool.auth is AuthPolicy.BEARER]
    if keyed:
        keyed_cells = ("not available (401)",) + ("included",) * (len(view.plans) - 1)
        rows.append(TierRow(f"Needs a key: {', '.join(keyed)}", keyed_cells))
    rows.append(TierRow("Price", tuple(column.note for column in view.plans)))
    return TierTable(view.plans, tuple(rows), view.others, view.default_plan)
