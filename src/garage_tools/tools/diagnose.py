"""`diagnose`: a symptom in the user's own words to likely issues, urgency, cost and safety."""

from __future__ import annotations

from pydantic import Field

from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.schemas import DiyRisk, Symptom, Urgency
from garage_tools.models import Flag, InputModel, OutputModel
from garage_tools.registry import Tool, ToolContext
from garage_tools.tools.common import DIY_RISK_DESCRIPTION, CostRange


class DiagnoseInput(InputModel):
    description: str = Field(
        min_length=1,
        max_length=2000,
        description='The symptom in the user\'s own words, e.g. "door won\'t close" or "loud bang from the garage".',
        examples=["my door makes a loud bang", "door wont shut"],
    )
    use_llm_fallback: Flag = Field(
        default=False,
        description=(
            "Ask a language model to map the description to a symptom when the deterministic matcher finds "
            "none. Accepted now; the model pass is not yet enabled, so the answer is the matcher's."
        ),
    )


class MatchedSymptom(OutputModel):
    key: str = Field(description="Canonical symptom key; pass it to routeByZip as `issue`.")
    label: str = Field(description="Short human label for the symptom.")
    urgency: Urgency = Field(
        description="`emergency` (stop using the door, call a pro now), `soon` (within days) or `routine`."
    )
    matched_phrase: str = Field(description="The phrase of the diagnostic tree that matched.")


class LikelyIssue(OutputModel):
    key: str = Field(description="Issue key; pass it to costEstimate as `issueKey`.")
    name: str
    description: str
    cost_range: CostRange = Field(description="Typical installed repair cost for a single-car door.")
    diy_risk: DiyRisk = Field(description=DIY_RISK_DESCRIPTION)
    urgency: Urgency
    safety_note: str | None = Field(default=None, description="Present when there is a safety concern.")


class DiagnoseOutput(OutputModel):
    symptom: MatchedSymptom | None = Field(
        default=None, description="The recognised symptom; absent when none matched."
    )
    likely_issues: list[LikelyIssue] = Field(description="Most likely causes first; empty when nothing matched.")
    safety_flag: bool = Field(
        description=(
            "True when the most likely cause is unsafe for a homeowner to touch (e.g. a broken spring or "
            "cable): tell the user to stop using the door and call a professional. Less likely unsafe causes "
            "show as `likelyIssues[].diyRisk` without raising the flag."
        )
    )
    diy_safe: bool = Field(description="True only when every likely issue is safe to fix yourself.")
    hint: str | None = Field(default=None, description="Present when nothing matched: what to try instead.")
    suggestions: list[str] | None = Field(
        default=None, description="Present when nothing matched: phrases the matcher recognises."
    )


class Diagnoser:
    """Diagnosis over one knowledge base. Answers depend only on the matched symptom and phrase,
    so each is built (and validated) once and reused: a call costs one match."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self._answers: dict[tuple[str, str], DiagnoseOutput] = {}
        self._no_match = DiagnoseOutput(
            likely_issues=[],
            safety_flag=False,
            diy_safe=False,
            hint=knowledge.tree.no_match_hint,
            suggestions=knowledge.matcher.suggestions(),
        )

    def diagnose(self, description: str) -> DiagnoseOutput:
        match = self.knowledge.matcher.match(description)
        if match is None:
            return self._no_match
        answer = self._answers.get((match.symptom.key, match.phrase))
        if answer is None:
            answer = self._answers[(match.symptom.key, match.phrase)] = self._answer(match.symptom, match.phrase)
        return answer

    def _answer(self, symptom: Symptom, phrase: str) -> DiagnoseOutput:
        knowledge = self.knowledge
        issues = []
        for key in symptom.likely_issues:
            issue = knowledge.tree.issues[key]
            issues.append(
                LikelyIssue(
                    key=key,
                    name=issue.name,
                    description=issue.description,
                    cost_range=CostRange.of(knowledge.costs.issues[key].single, knowledge.costs.currency),
                    diy_risk=issue.diy_risk,
                    urgency=issue.urgency,
                    safety_note=issue.safety_note,
                )
            )
        return DiagnoseOutput(
            symptom=MatchedSymptom(
                key=symptom.key, label=symptom.label, urgency=symptom.urgency, matched_phrase=phrase
            ),
            likely_issues=issues,
            safety_flag=likely_hazard(issues),
            diy_safe=all(i.diy_risk is DiyRisk.SAFE for i in issues),
        )


def likely_hazard(issues: list[LikelyIssue]) -> bool:
    """The `safetyFlag` rule: the most likely cause (the first) is unsafe to touch.

    Not "any listed cause": nearly every symptom lists a rare unsafe cause (damaged track behind a
    grinding noise), and a flag raised for 7 of 9 symptoms taught widgets to shout "urgent" and send
    every lead as hot. The flag marks a likely hazard; `diyRisk` still marks every unsafe cause.
    """
    return bool(issues) and issues[0].diy_risk is DiyRisk.UNSAFE


def diagnose_text(knowledge: Knowledge, description: str) -> DiagnoseOutput:
    """Pure diagnosis over the knowledge base (no I/O)."""
    return knowledge.derived("diagnoser", lambda: Diagnoser(knowledge)).diagnose(description)


async def diagnose(args: DiagnoseInput, ctx: ToolContext) -> DiagnoseOutput:
    return diagnose_text(ctx.knowledge, args.description)


TOOL = Tool(
    name="diagnose",
    title="Diagnose a garage door symptom",
    summary="Map a symptom in plain words to likely issues, urgency, typical cost and DIY safety.",
    description=(
        "Give the homeowner's description of what the garage door does or sounds like (\"won't close\", "
        '"loud bang", "opens partially", "remote not working"). Returns the recognised symptom with its '
        "urgency, the likely issues (most likely first) each with a typical cost range, a DIY risk rating and "
        "a safety note, and `safetyFlag` when the most likely cause is unsafe to touch (a broken spring or cable): "
        "then tell the user to stop using the door and call a professional. When nothing matches, the answer "
        "is still a success with a "
        "`hint` and `suggestions` to rephrase. Pass `symptom.key` to routeByZip and an issue `key` to "
        "costEstimate. `useLlmFallback` is accepted, but the language-model fallback is not enabled yet."
    ),
    input_model=DiagnoseInput,
    output_model=DiagnoseOutput,
    handler=diagnose,
)
