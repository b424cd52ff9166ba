"""diagnose as a widget meets it: `safetyFlag` means a likely hazard, and the no-match hint carries examples."""

from __future__ import annotations

import re

import pytest

from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.schemas import DiyRisk
from garage_tools.tools.diagnose import diagnose_text

# Each chip widgets offer, and whether the homeowner should be told to stop and call a pro.
# Flagged: the most likely cause is a broken spring or cable. Not flagged: a grinding or loud noise,
# a door that won't close (usually the photo-eyes), a dead remote, a worn seal.
CHIP_SAFETY = {
    "won't open": True,  # most likely a broken spring
    "won't close": False,
    "grinding noise": False,
    "loud bang": True,
    "moves unevenly": True,  # most likely a broken cable
    "opens partially": True,
    "remote not working": False,
    "loud noise": False,
    "weather seal damaged": False,
}


@pytest.mark.parametrize(("chip", "flagged"), CHIP_SAFETY.items())
def test_safety_flag_marks_a_likely_hazard_for_each_chip(knowledge: Knowledge, chip: str, flagged: bool) -> None:
    result = diagnose_text(knowledge, chip)
    assert result.safety_flag is flagged
    assert result.likely_issues, chip
    # The rule itself: the most likely cause is unsafe to touch.
    assert (result.likely_issues[0].diy_risk is DiyRisk.UNSAFE) is flagged


def test_fewer_than_half_of_the_chips_raise_the_flag(knowledge: Knowledge) -> None:
    flagged = [chip for chip in CHIP_SAFETY if diagnose_text(knowledge, chip).safety_flag]
    assert len(flagged) == 4, flagged


def test_an_unsafe_but_unlikely_cause_is_still_marked_on_the_issue(knowledge: Knowledge) -> None:
    result = diagnose_text(knowledge, "grinding noise")
    assert result.safety_flag is False
    unsafe = [issue.key for issue in result.likely_issues if issue.diy_risk is DiyRisk.UNSAFE]
    assert unsafe == ["track_damage"]  # the widget still warns on this line
    assert result.diy_safe is False


def test_the_no_match_hint_itself_offers_phrases_that_work(knowledge: Knowledge) -> None:
    result = diagnose_text(knowledge, "my car is making a funny smell")
    assert result.symptom is None and result.hint
    quoted = re.findall(r'"([^"]+)"', result.hint)
    assert 2 <= len(quoted) <= 3, result.hint
    for phrase in quoted:  # widgets show only the hint: every example in it must be recognised
        matched = diagnose_text(knowledge, phrase)
        assert matched.symptom is not None, phrase
    assert "one of these phrases" not in result.hint  # it no longer points at a list widgets don't show
