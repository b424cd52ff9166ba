"""The table of limits for people: one overview every page and doc that describes limits is built from
(`/developers`, `/ai`, `/llms.txt`, and the guide's and API reference's generated blocks), so a rule added to
`access/limits.py` shows up on all of them, with the numbers in force.

The plans' rules form a grid (a row per thing counted, a column per plan: no key, then each plan); every
other rule is a row of its own. Every rule of the table is in one or the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from garage_tools.access.limits import PUBLIC, Limits, Plan

#: Where a generated block starts and ends in a Markdown doc (`scripts/limits_docs.py` rewrites it).
DOC_BEGIN = "<!-- limits table: generated from access/limits.py; run scripts/limits_docs.py -->"
DOC_END = "<!-- end of limits table -->"


@dataclass(frozen=True, slots=True)
class PlanColumn:
    name: str
    label: str
    per: str  # "client address" or "key"
    note: str


@dataclass(frozen=True, slots=True)
class PlanRow:
    what: str
    rules: tuple[str, ...]  # the rule each plan's cell counts, in column order
    cells: tuple[str, ...]  # "60 per minute, 2,000 per day"


@dataclass(frozen=True, slots=True)
class OtherRow:
    rule: str
    what: str
    limit: str
    per: str


@dataclass(frozen=True, slots=True)
class Overview:
    plans: tuple[PlanColumn, ...]
    rows: tuple[PlanRow, ...]
    others: tuple[OtherRow, ...]
    default_plan: str

    def rule_names(self) -> set[str]:
        """Every rule the overview shows (a test checks it is the whole table)."""
        return {name for row in self.rows for name in row.rules} | {row.rule for row in self.others}


def overview(limits: Limits) -> Overview:
    """The limits in force, as people read them."""
    plans: tuple[Plan, ...] = (PUBLIC, *limits.plans.values())
    columns = tuple(PlanColumn(plan.name, plan.label, plan.per.value, plan.note) for plan in plans)
    rows = [_row(limits, tuple(plan.calls for plan in plans))]
    for cap in dict.fromkeys(name for plan in plans for name in plan.caps):
        rows.append(_row(limits, tuple(plan.caps.get(cap, "") for plan in plans)))
    used = {name for row in rows for name in row.rules}
    others = tuple(
        OtherRow(rule.name, rule.what, limits.policy(rule.name).describe(), rule.per.value)
        for rule in limits.rules
        if rule.name not in used
    )
    return Overview(columns, tuple(rows), others, limits.default_plan.name)


def _row(limits: Limits, names: tuple[str, ...]) -> PlanRow:
    """One thing the plans count: each plan's rule for it ("" when a plan does not count it)."""
    first = next(name for name in names if name)
    cells = tuple(limits.policy(name).describe() if name else "not counted" for name in names)
    return PlanRow(limits.rule(first).what, names, cells)


def markdown(view: Overview) -> str:
    """The overview as Markdown tables (the docs' generated block, without its markers)."""
    head = "| | " + " | ".join(f"{p.label}, per {p.per}" for p in view.plans) + " |"
    lines = [head, "|---" * (len(view.plans) + 1) + "|"]
    lines += [f"| {row.what} | " + " | ".join(row.cells) + " |" for row in view.rows]
    lines += ["", f"A new key is on the `{view.default_plan}` plan unless the operator moves it.", ""]
    lines += ["| Other limits | Limit | Counted per |", "|---|---|---|"]
    lines += [f"| {row.what} | {row.limit} | {row.per} |" for row in view.others]
    return "\n".join(lines)


def plain_lines(view: Overview) -> list[str]:
    """The overview as short list items, for `/llms.txt`."""
    lines = []
    for column in view.plans:
        cells = zip(view.rows, _cells(view, column), strict=True)
        counted = "; ".join(f"{row.what}: {cell}" for row, cell in cells)
        lines.append(f"- {column.label}, per {column.per}: {counted}")
    lines += [f"- {row.what}: {row.limit}, per {row.per}" for row in view.others]
    return lines


def _cells(view: Overview, column: PlanColumn) -> list[str]:
    index = view.plans.index(column)
    return [row.cells[index] for row in view.rows]
