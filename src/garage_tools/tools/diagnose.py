"""`diagnose`: a symptom in the user's own words to likely issues, urgency, cost and safety."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import ConfigDict, Field

from garage_tools.errors import ProviderBadReply, ProviderUnavailable
from garage_tools.knowledge.loader import Knowledge, Language
from garage_tools.knowledge.matcher import Match
from garage_tools.knowledge.schemas import DiyRisk, Symptom, Urgency
from garage_tools.languages import supported
from garage_tools.models import Flag, InputModel, OutputModel
from garage_tools.providers.base import LanguageModel
from garage_tools.registry import Tool, ToolContext
from garage_tools.tools.common import DIY_RISK_DESCRIPTION, LANG_PATTERN, CostRange
from garage_tools.tools.diagnose_model import choose_symptom

MAX_CACHED_ANSWERS = 4096
URGENCY_RANK = {Urgency.ROUTINE: 0, Urgency.SOON: 1, Urgency.EMERGENCY: 2}


class DiagnoseInput(InputModel):
    description: str = Field(
        min_length=1,
        max_length=2000,
        description='The symptom in the user\'s own words, e.g. "door won\'t close" or "loud bang from the garage".',
        examples=["my door makes a loud bang", "door wont shut"],
    )
    lang: str | None = Field(
        default=None,
        pattern=LANG_PATTERN,
        description=(
            "A hint: the language the description is probably in (`en`, `es`). Never required: the language "
            "is read from the text itself, and the hint (then the caller's Accept-Language) only settles a tie. "
            "The answer's `lang` says which language was understood; its texts come back in it."
        ),
    )
    use_llm_fallback: Flag = Field(
        default=False,
        description=(
            'If no phrase matches (or only one word, like "noise"), map the text to the nearest symptom: by '
            "the operator's language model, else offline. See `symptom.matchedBy`."
        ),
    )


class MatchMethod(StrEnum):
    PHRASE = "phrase"  # a phrase of the diagnostic tree matched
    MODEL = "model"  # useLlmFallback: the configured language model chose the symptom
    OFFLINE_FALLBACK = "offline-fallback"  # useLlmFallback: the nearest example phrasing, no model


class MatchedSymptom(OutputModel):
    key: str = Field(description="Canonical symptom key; pass it to routeByZip as `issue`.")
    label: str = Field(description="Short human label for the symptom.")
    urgency: Urgency = Field(
        description="`emergency` (stop using the door, call a pro now), `soon` (within days) or `routine`."
    )
    matched_phrase: str = Field(
        description=(
            "The diagnostic tree's phrase that matched, in the tree's own words (\"won't close\" for \"door wont "
            "shut\"): see `matchedText` for the words sent. For a fallback: the nearest example, or the symptom's "
            "first phrase."
        )
    )
    matched_text: str | None = Field(
        default=None,
        description=(
            "For `phrase`: the words of the description that matched `matchedPhrase`, exactly as sent "
            '("wont shut"). Absent for a fallback, which matches the whole description.'
        ),
    )
    matched_by: MatchMethod = Field(
        default=MatchMethod.PHRASE,
        description="`phrase`, or with useLlmFallback `model` or `offline-fallback` (less sure: check with the user).",
    )
    model: str | None = Field(default=None, description="For `model`: which model chose.")
    confidence: float | None = Field(default=None, ge=0, le=1, description="For `model`: its confidence, 0-1.")
    similarity: float | None = Field(
        default=None, ge=0, le=1, description="For `offline-fallback`: similarity to the nearest example, 0-1."
    )
    urgency_note: str | None = Field(
        default=None, description="What the urgency means for the homeowner, in one sentence (in `lang`)."
    )


class OtherSymptom(OutputModel):
    key: str = Field(description="Canonical symptom key.")
    label: str = Field(description="Short human label for the symptom (in `lang`).")
    urgency: Urgency
    matched_phrase: str = Field(description="The diagnostic tree's phrase that matched (in `lang`).")
    matched_text: str | None = Field(default=None, description="The words of the description that matched it.")


class LikelyIssue(OutputModel):
    key: str = Field(description="Issue key; pass it to costEstimate as `issueKey`.")
    name: str
    description: str
    cost_range: CostRange = Field(description="Typical installed repair cost for a single-car door.")
    diy_risk: DiyRisk = Field(description=DIY_RISK_DESCRIPTION)
    urgency: Urgency
    safety_note: str | None = Field(default=None, description="Present when there is a safety concern.")


class DiagnoseOutput(OutputModel):
    # Shared: the diagnoser answers every call about one symptom and phrase with the same object.
    model_config = ConfigDict(frozen=True)

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
    model_error: str | None = Field(
        default=None,
        description="Set when useLlmFallback could not use the model (`provider_unavailable`, `provider_bad_reply`).",
    )
    lang: str = Field(
        default="en",
        description=(
            "The language the description was understood in (`en`, `es`): labels, causes, notes and the hint "
            "are in it. Keys and codes stay English."
        ),
    )
    other_symptoms: list[OtherSymptom] | None = Field(
        default=None,
        description=(
            "Present when the description names more than one symptom: the others, best first (`symptom` is "
            "the best). Each has its own key for routeByZip."
        ),
    )


class Diagnoser:
    """Diagnosis over one knowledge base. Answers depend only on the matched symptom, phrase and words,
    so each is built (and validated) once and reused: a call costs one match."""

    def __init__(self, knowledge: Knowledge, language: Language | None = None) -> None:
        self.knowledge = knowledge
        self.language = language = language or knowledge.language(None)
        self._answers: dict[tuple[str, str, str | None], DiagnoseOutput] = {}
        self._symptoms = {symptom.key: symptom for symptom in language.tree.symptoms}
        self._no_match = DiagnoseOutput(
            likely_issues=[],
            safety_flag=False,
            diy_safe=False,
            hint=language.tree.no_match_hint,
            suggestions=language.matcher.suggestions(),
            lang=language.code,
        )

    @property
    def no_match(self) -> DiagnoseOutput:
        return self._no_match

    def diagnose(self, description: str) -> DiagnoseOutput:
        return self.answer(self.language.matcher.matches(description), description)

    def answer(self, matches: list[Match], description: str) -> DiagnoseOutput:
        """The answer for the phrase matches in `description`, best first (or the no-match answer)."""
        if not matches:
            return self._no_match
        best, *others = matches
        answer = self._cached(best.symptom, best.phrase, best.matched_text(description))
        if not others:
            return answer
        listed = [
            OtherSymptom(
                key=match.symptom.key,
                label=match.symptom.label,
                urgency=match.symptom.urgency,
                matched_phrase=match.phrase,
                matched_text=match.matched_text(description),
            )
            for match in others
        ]
        return answer.model_copy(update={"other_symptoms": listed})

    def offline(
        self, description: str, *, rival: MatchedSymptom | None = None, model_error: str | None = None
    ) -> DiagnoseOutput | None:
        """The offline fallback's answer: the nearest example phrasing's symptom, if near enough (and, against
        a one-word phrase match `rival`, clearly nearer than that symptom)."""
        match = self.language.semantic_matcher.match(
            description, rival=rival.key if rival else None, rival_words=rival.matched_text if rival else None
        )
        if match is None:
            return None
        answer = self._cached(match.symptom, match.exemplar)
        assert answer.symptom is not None
        symptom = answer.symptom.model_copy(
            update={"matched_by": MatchMethod.OFFLINE_FALLBACK, "similarity": round(match.similarity, 3)}
        )
        return answer.model_copy(update={"symptom": symptom, "model_error": model_error})

    def by_model(self, key: str, *, model: str, confidence: float) -> DiagnoseOutput:
        """The deterministic diagnosis of the symptom a language model chose."""
        symptom = self._symptoms[key]
        answer = self._cached(symptom, symptom.phrases[0])
        assert answer.symptom is not None
        chosen = answer.symptom.model_copy(
            update={"matched_by": MatchMethod.MODEL, "model": model, "confidence": round(confidence, 3)}
        )
        return answer.model_copy(update={"symptom": chosen})

    def _cached(self, symptom: Symptom, phrase: str, matched_text: str | None = None) -> DiagnoseOutput:
        key = (symptom.key, phrase, matched_text)
        answer = self._answers.get(key)
        if answer is None:
            if len(self._answers) >= MAX_CACHED_ANSWERS:  # bounded: the words people send vary without end
                self._answers.clear()
            answer = self._answers[key] = self._answer(symptom, phrase, matched_text)
        return answer

    def _answer(self, symptom: Symptom, phrase: str, matched_text: str | None) -> DiagnoseOutput:
        knowledge = self.knowledge
        tree = self.language.tree
        issues = []
        for key in symptom.likely_issues:
            issue = tree.issues[key]
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
                key=symptom.key,
                label=symptom.label,
                urgency=symptom.urgency,
                matched_phrase=phrase,
                matched_text=matched_text,
                urgency_note=tree.urgency_notes.get(symptom.urgency),
            ),
            likely_issues=issues,
            safety_flag=likely_hazard(issues),
            diy_safe=all(i.diy_risk is DiyRisk.SAFE for i in issues),
            lang=self.language.code,
        )


def likely_hazard(issues: list[LikelyIssue]) -> bool:
    """The `safetyFlag` rule: the most likely cause (the first) is unsafe to touch.

    Not "any listed cause": nearly every symptom lists a rare unsafe cause (damaged track behind a
    grinding noise), and a flag raised for 7 of 9 symptoms taught widgets to shout "urgent" and send
    every lead as hot. The flag marks a likely hazard; `diyRisk` still marks every unsafe cause.
    """
    return bool(issues) and issues[0].diy_risk is DiyRisk.UNSAFE


def diagnoser(knowledge: Knowledge, lang: str | None = None) -> Diagnoser:
    """The diagnoser for `lang` (English when None or not spoken), built once per knowledge base."""
    language = knowledge.language(lang)
    return knowledge.derived(f"diagnoser:{language.code}", lambda: Diagnoser(knowledge, language))


def understand(knowledge: Knowledge, description: str, hints: Sequence[str | None] = ()) -> tuple[str, list[Match]]:
    """The language `description` is in and the symptoms it names, best first.

    The language is read from the text (`hints`, such as an explicit `lang` and then Accept-Language, only
    settle a tie). When its phrases find nothing, another language whose words the text also uses gets its
    turn ("the door está stuck"); with no match anywhere, the first guess stands (the hint is in it)."""
    codes = [code for code in map(supported, hints) if code] if any(hints) else []  # most calls give none
    ranked = knowledge.guesser.ranked(description, codes)
    for lang in ranked:
        found = knowledge.language(lang).matcher.matches(description)
        if found:
            return lang, found
    return ranked[0], []


def diagnose_text(knowledge: Knowledge, description: str, hints: Sequence[str | None] = ()) -> DiagnoseOutput:
    """Pure diagnosis over the knowledge base (no I/O)."""
    lang, found = understand(knowledge, description, hints)
    return diagnoser(knowledge, lang).answer(found, description)


def needs_fallback(match: Match | None) -> bool:
    """Whether `useLlmFallback` should look further than the phrase matcher's answer.

    Yes when no phrase matched, and when only a one-word phrase did: "noise", "loud" or "crack"
    alone say little ("grating noise from the track" is grinding, "a loud twang" a spring), and
    the fallback reads the whole description. Chips and longer phrases are trusted as they are.
    """
    return match is None or match.score <= 1


def may_replace(answer: DiagnoseOutput, found: DiagnoseOutput | None) -> bool:
    """Whether the fallback's answer replaces the phrase matcher's: always when that had no symptom; over a
    one-word phrase match only with another symptom at least as urgent, so a fallback can never talk a
    homeowner out of a hazard their own words named."""
    if found is None or found.symptom is None:
        return False
    current = answer.symptom
    if current is None:
        return True
    return found.symptom.key != current.key and URGENCY_RANK[found.symptom.urgency] >= URGENCY_RANK[current.urgency]


async def diagnose_with_fallback(
    knowledge: Knowledge, description: str, model: LanguageModel | None, answer: DiagnoseOutput
) -> DiagnoseOutput:
    """The fallback's answer for a description `needs_fallback` let through; `answer` is the phrase matcher's.

    With a model, the model picks the symptom. If it cannot answer (down, or answering nonsense),
    the offline matcher answers instead and `modelError` says why; if that finds nothing either,
    a phrase match stands (with `modelError`), and without one the caller gets the model's error
    (503 `provider_unavailable` with Retry-After, or 502 `provider_bad_reply`): the model was the
    only hope left, and it may be back shortly. Without a model: the offline matcher.
    """
    diagnosis = diagnoser(knowledge, answer.lang)
    if model is None:
        offline = diagnosis.offline(description, rival=answer.symptom)
        return offline if offline is not None and may_replace(answer, offline) else answer
    try:
        chosen = await choose_symptom(model, knowledge.tree, description)
    except (ProviderUnavailable, ProviderBadReply) as error:
        offline = diagnosis.offline(description, rival=answer.symptom, model_error=error.code)
        if offline is not None and may_replace(answer, offline):
            return offline
        if answer.symptom is not None:
            return answer.model_copy(update={"model_error": error.code})
        raise
    if chosen is None:
        return answer
    key, confidence = chosen
    found = diagnosis.by_model(key, model=model.name, confidence=confidence)
    return found if may_replace(answer, found) else answer


#: A phrase-matcher reading: the answer, and whether `useLlmFallback` would look further (`needs_fallback`).
Reading = tuple[DiagnoseOutput, bool]
#: The readings remembered per knowledge base (by description and hints), as the language guesser's and the
#: matcher's are: the widget's symptom chips send the same few descriptions over and over.
RECENT_READINGS = 4096


def read_description(knowledge: Knowledge, description: str, hints: tuple[str | None, ...]) -> Reading:
    """The phrase matcher's answer for `description` (see `understand`), remembered: a description asked again
    with the same hints costs one look-up, not a guess of its language, a match and an answer's assembly."""
    recent: dict[tuple[str, tuple[str | None, ...]], Reading] = knowledge.derived("diagnose:readings", dict)
    key = (description, hints)
    reading = recent.get(key)
    if reading is None:
        lang, found = understand(knowledge, description, hints)
        answer = diagnoser(knowledge, lang).answer(found, description)
        reading = (answer, needs_fallback(found[0] if found else None))
        if len(recent) >= RECENT_READINGS:
            recent.clear()  # bounded, and cheap: a cleared memo refills with what is asked now
        recent[key] = reading
    return reading


async def diagnose(args: DiagnoseInput, ctx: ToolContext) -> DiagnoseOutput:
    answer, unsure = read_description(ctx.knowledge, args.description, (args.lang, *ctx.languages))
    if not args.use_llm_fallback or not unsure:
        return answer
    model = ctx.data.models.language
    return await diagnose_with_fallback(ctx.knowledge, args.description, model, answer)


TOOL = Tool(
    name="diagnose",
    view="diagnosis",
    icon="diagnose",
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
        "costEstimate. With `useLlmFallback`, text the phrases miss is mapped to the nearest symptom "
        "(by a language model if the operator configured one, else offline); `symptom.matchedBy` says how."
    ),
    input_model=DiagnoseInput,
    output_model=DiagnoseOutput,
    handler=diagnose,
)
