"""Scoring a submitted inspection: a pure function over the checklist, tested without I/O.

The algorithm (the numbers live in `inspection_items.json` under `scoring`):

1. Each inspected item earns its weight (1-5) times the credit of its status: ok 1, watch 0.5, fix 0.
2. The raw score is 100 x earned / the weights of the inspected items, rounded half up. Items not
   submitted are not inspected: they leave the score alone and lower `completeness` instead, so an
   honest "I couldn't check that" never reads as a failure.
3. Caps keep a pleasant average from hiding a hazard: any `fix` caps the score at 74 (no better
   than C), any safety-critical `watch` at 89 (no A), and any safety-critical `fix` at 39 (an F:
   unsafe until repaired).
4. The grade is the first band whose `minScore` the score reaches (A 90, B 75, C 60, D 40, F 0).
5. Flagged items (watch and fix) are ordered by urgency: a safety-critical fix is `emergency`, any
   other fix or a safety-critical watch is `soon`, any other watch `routine`; ties go to fix before
   watch, safety-critical first, heavier weight first, then checklist order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from garage_tools.catalogs import translations
from garage_tools.knowledge.checklist import ChecklistItem, InspectionChecklist, ItemStatus
from garage_tools.knowledge.photos import PhotoSeverity
from garage_tools.knowledge.schemas import Urgency
from garage_tools.languages import DEFAULT
from garage_tools.tools.inspection.models import (
    Completeness,
    FlaggedItem,
    ItemReport,
    ItemResult,
    ReferencePhotos,
    ReportStatus,
    Scorecard,
)

_URGENCY_RANK = {Urgency.EMERGENCY: 0, Urgency.SOON: 1, Urgency.ROUTINE: 2}


def urgency_of(item: ChecklistItem, status: ItemStatus) -> Urgency:
    """How soon a flagged item needs acting on."""
    if status is ItemStatus.FIX:
        return Urgency.EMERGENCY if item.safety_critical else Urgency.SOON
    return Urgency.SOON if item.safety_critical else Urgency.ROUTINE


def raw_score(checklist: InspectionChecklist, items: Mapping[str, ItemReport]) -> int:
    """Step 1-2: the weighted share of credit over the inspected items, 0-100 (100 when none were)."""
    credit = checklist.scoring.credit
    earned = possible = 0.0
    for item in checklist.items:
        report = items.get(item.id)
        if report is None:
            continue
        possible += item.weight
        earned += item.weight * getattr(credit, report.status.value)
    if possible == 0:
        return 100
    return math.floor(100 * earned / possible + 0.5)


def score_cap(checklist: InspectionChecklist, items: Mapping[str, ItemReport]) -> int:
    """Step 3: the highest score these statuses allow."""
    caps = checklist.scoring.caps
    cap = 100
    for item in checklist.items:
        report = items.get(item.id)
        if report is None or report.status is ItemStatus.OK:
            continue
        if report.status is ItemStatus.FIX:
            cap = min(cap, caps.safety_critical_fix if item.safety_critical else caps.any_fix)
        elif item.safety_critical:
            cap = min(cap, caps.safety_critical_watch)
    return cap


def _photos(item: ChecklistItem, severity: PhotoSeverity) -> ReferencePhotos | None:
    """Where pictures of the part are, at the severity of the homeowner's answer."""
    return ReferencePhotos(item_id=item.reference_photo_item, severity=severity) if item.reference_photo_item else None


def _flag(item: ChecklistItem, report: ItemReport) -> FlaggedItem:
    fix = report.status is ItemStatus.FIX
    return FlaggedItem(
        item_id=item.id,
        label=item.label,
        area=item.area,
        status=ItemStatus.FIX if fix else ItemStatus.WATCH,
        urgency=urgency_of(item, report.status),
        safety_critical=item.safety_critical,
        guidance=item.fix_advice if fix else item.watch_advice,
        diy_risk=item.diy_risk,
        note=report.note or None,
        issue_key=item.issue_key,
        reference_photos=_photos(item, PhotoSeverity.FIX if fix else PhotoSeverity.WATCH),
    )


def _summary(
    score: int, grade: str, flagged: list[FlaggedItem], completeness: Completeness, unchecked: list[str], lang: str
) -> str:
    _ = translations(lang).gettext
    fixes = sum(flag.status is ItemStatus.FIX for flag in flagged)
    watches = len(flagged) - fixes
    text = _(
        "Grade {grade} ({score}/100): {fixes} to fix, {watches} to watch; {inspected} of {total} items inspected."
    ).format(
        grade=grade,
        score=score,
        fixes=fixes,
        watches=watches,
        inspected=completeness.inspected,
        total=completeness.total,
    )
    if unchecked:
        text += " " + _("Safety checks still to do: {items}.").format(items=", ".join(unchecked))
    return text


def score_inspection(checklist: InspectionChecklist, items: Mapping[str, ItemReport], lang: str = DEFAULT) -> Scorecard:
    """The scored report for `items` (item id → status and note), by the algorithm above, in the words of
    `checklist` (knowledge's `Language.checklist`) and of `lang`."""
    score = min(raw_score(checklist, items), score_cap(checklist, items))
    band = checklist.scoring.grade_for(score)
    order = {item.id: index for index, item in enumerate(checklist.items)}
    flagged = [
        _flag(item, items[item.id])
        for item in checklist.items
        if item.id in items and items[item.id].status != ItemStatus.OK
    ]
    weights = {item.id: item.weight for item in checklist.items}
    flagged.sort(
        key=lambda flag: (
            _URGENCY_RANK[flag.urgency],
            flag.status is not ItemStatus.FIX,
            not flag.safety_critical,
            -weights[flag.item_id],
            order[flag.item_id],
        )
    )
    missing = [item for item in checklist.items if item.id not in items]
    total = len(checklist.items)
    completeness = Completeness(
        inspected=total - len(missing),
        total=total,
        percent=math.floor(100 * (total - len(missing)) / total),
        not_inspected=[item.id for item in missing],
        safety_critical_not_inspected=[item.id for item in missing if item.safety_critical],
    )
    results = [
        ItemResult(
            item_id=item.id,
            label=item.label,
            area=item.area,
            status=ReportStatus(items[item.id].status.value) if item.id in items else ReportStatus.NOT_INSPECTED,
            safety_critical=item.safety_critical,
            note=(items[item.id].note or None) if item.id in items else None,
        )
        for item in checklist.items
    ]
    return Scorecard(
        score=score,
        grade=band.grade,
        grade_label=band.label,
        summary=_summary(
            score,
            band.grade,
            flagged,
            completeness,
            [item.label.lower() for item in missing if item.safety_critical],
            lang,
        ),
        completeness=completeness,
        flagged_items=flagged,
        items=results,
        lang=lang,
    )
