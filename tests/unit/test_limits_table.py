"""The table of limits: every rule has its setting, a rule added to the table reaches every description of
limits, and the docs' generated blocks are what the table says."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from garage_tools.access.limits import PLANS, RULES, Limits, Per, Rule
from garage_tools.access.limits_text import DOC_BEGIN, DOC_END, markdown, overview, plain_lines
from garage_tools.settings import Settings
from garage_tools.settings.limits import LimitSettings
from garage_tools.surfaces.discovery import llms_txt
from garage_tools.tools import build_registry
from garage_tools.web.portal.tiers import describe_tiers

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXTRA = Rule("questions", "rate_limit_questions", "Questions asked of the helper", Per.ADDRESS)


def test_every_rule_reads_one_setting_with_a_default_and_names_are_unique() -> None:
    fields = Settings.model_fields
    assert len({rule.name for rule in RULES}) == len(RULES)
    assert len({rule.setting for rule in RULES}) == len(RULES)
    for rule in RULES:
        assert rule.setting in fields and rule.setting in LimitSettings.model_fields, rule
        assert isinstance(fields[rule.setting].default, str) and fields[rule.setting].description
    limits = Limits.defaults()
    assert {rule.name for rule in RULES} == overview(limits).rule_names()
    for plan in PLANS:
        assert plan.per in (Per.ADDRESS, Per.KEY)


def with_extra_rule() -> Limits:
    defaults = {name: info.default for name, info in LimitSettings.model_fields.items()}
    settings = SimpleNamespace(**defaults, rate_limit_questions="7 per 3 hours")
    return Limits(settings, rules=(*RULES, EXTRA))


def test_a_rule_added_to_the_table_shows_on_every_description() -> None:
    limits = with_extra_rule()
    shown = overview(limits)
    assert EXTRA.name in shown.rule_names()
    assert "| Questions asked of the helper | 7 per 3 hours | client address |" in markdown(shown)
    assert "- Questions asked of the helper: 7 per 3 hours, per client address" in plain_lines(shown)
    assert "Questions asked of the helper: 7 per 3 hours" in llms_txt(build_registry(), "http://x", limits)
    tiers = describe_tiers(limits, build_registry())
    assert any(row.what == EXTRA.what and row.limit == "7 per 3 hours" for row in tiers.others)


def test_a_plan_naming_a_missing_rule_or_a_bad_notation_stops_start_up() -> None:
    defaults = {name: info.default for name, info in LimitSettings.model_fields.items()}
    with pytest.raises(ValueError, match="GARAGE_TOOLS_RATE_LIMIT_OAUTH_TOKEN"):
        Limits(SimpleNamespace(**{**defaults, "rate_limit_oauth_token": "often"}))
    with pytest.raises(ValueError, match="default_plan"):
        Limits(SimpleNamespace(**{**defaults, "default_plan": "gold"}))
    with pytest.raises(KeyError, match="public"):
        Limits(SimpleNamespace(**defaults), rules=tuple(rule for rule in RULES if rule.name != "public"))


@pytest.mark.parametrize("name", ["guide.md", "api.md"])
def test_the_docs_tables_are_generated_from_the_table(name: str) -> None:
    text = (DOCS / name).read_text(encoding="utf-8")
    block = text[text.index(DOC_BEGIN) + len(DOC_BEGIN) : text.index(DOC_END)].strip()
    assert block == markdown(overview(Limits.defaults())), f"run scripts/limits_docs.py to update docs/{name}"
