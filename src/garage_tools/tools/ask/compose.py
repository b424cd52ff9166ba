"""The answerer with no model: it asks the tools, then carries their facts to a person in template sentences.

Every factual sentence is filled from a tool's answer (the diagnostic tree through diagnose, costEstimate,
getDoorStyles, routeByZip, the labs through retrieval) and cites it as [n]; the safety note comes from the
diagnostic tree, never from free text. A how or why question is answered with the labs' own sentences,
those that share the most words with the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from garage_tools.access.caller import Tier
from garage_tools.errors import ServiceError
from garage_tools.knowledge.ask_words import AskWords
from garage_tools.knowledge.lab_index import terms
from garage_tools.knowledge.schemas import DiyRisk
from garage_tools.registry import ToolContext
from garage_tools.tools import catalog, cost, diagnose, retrieval, routing
from garage_tools.tools.ask.models import AnswerKind, AskOutput, NextStep, ProContact, Source
from garage_tools.tools.ask.reading import Reading
from garage_tools.tools.catalog import DoorStylesInput, find_styles
from garage_tools.tools.common import CostRange
from garage_tools.tools.cost import CostEstimateInput, estimate
from garage_tools.tools.retrieval import LabChunk, RetrieveInput, retrieve
from garage_tools.tools.routing import LeadHeat, RouteByZipInput, RouteOutput
from garage_tools.tools.routing.tool import route_by_zip

#: How many lab sections the answerer reads, by tier (the pro tier's retrieval depth).
LAB_DEPTH = {Tier.PUBLIC: 5, Tier.PRO: 10}
MAX_LAB_SENTENCES = 3
MAX_STYLES_LISTED = 3
MIN_SENTENCE_WORDS = 6
LAB_CHUNKS_READ = 2  # sections whose sentences may answer a how or why question
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9$*])")


def money(amount: int) -> str:
    return f"${amount:,}"


@dataclass
class Draft:
    """An answer being written: sentences with their citations, and the sources they cite."""

    sentences: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    next_steps: list[NextStep] = field(default_factory=list)

    def cite(self, tool: str, title: str, url: str | None = None) -> int:
        """The number of the source (`tool`, `url`), added the first time it is cited."""
        for source in self.sources:
            if source.tool == tool and source.url == url and source.title == title:
                return source.id
        source = Source(id=len(self.sources) + 1, title=title, url=url, tool=tool)
        self.sources.append(source)
        return source.id

    def say(self, sentence: str, *cited: int) -> None:
        marks = "".join(f" [{n}]" for n in cited)
        self.sentences.append(f"{sentence}{marks}" if marks else sentence)

    def text(self) -> str:
        return " ".join(self.sentences)


def lab_sentences(chunks: list[LabChunk], question: str, limit: int = MAX_LAB_SENTENCES) -> list[tuple[str, LabChunk]]:
    """The whole sentences of `chunks` sharing the most words with `question` (the first chunk wins ties), each
    with its chunk, in the order the labs give them. List fragments ("replacing the seal;") are never picked."""
    wanted = set(terms(question))
    found: list[tuple[int, int, str, LabChunk]] = []  # (overlap, position, sentence, chunk)
    for chunk in chunks:
        for line in chunk.text.splitlines():
            for sentence in _SENTENCE_END.split(line):
                sentence = sentence.strip().rstrip("…").strip()
                if len(sentence.split()) < MIN_SENTENCE_WORDS or sentence.endswith((":", ";", ",")):
                    continue
                found.append((len(wanted & set(terms(sentence))), len(found), sentence, chunk))
    best = sorted((item for item in found if item[0] > 0), key=lambda item: (-item[0], item[1]))[:limit]
    return [(sentence, chunk) for _, _, sentence, chunk in sorted(best, key=lambda item: item[1])]


class Composer:
    """Answers one reading with the tools and the templates of `ask_words.json`."""

    def __init__(self, words: AskWords) -> None:
        self.words = words
        self.templates = words.templates

    async def answer(self, reading: Reading, ctx: ToolContext) -> AskOutput:
        draft = Draft()
        extra: dict[str, object] = {}
        if reading.kind is AnswerKind.SYMPTOM:
            extra = await self._symptom(reading, ctx, draft)
        elif reading.kind is AnswerKind.DIY:
            extra = self._diy(reading, ctx, draft)
        elif reading.kind is AnswerKind.REPAIR_PRICE:
            extra = self._repair_price(reading, ctx, draft)
        elif reading.kind is AnswerKind.NEW_DOOR:
            extra = self._new_door(reading, ctx, draft)
        kind = reading.kind
        if kind is AnswerKind.EXPLAIN and not self._explain(reading, ctx, draft):
            kind = AnswerKind.UNKNOWN
        if kind is AnswerKind.UNKNOWN:
            draft.say(self.templates.unknown)
        safety = self._safety_note(reading, ctx)
        if safety is not None and not any(safety in sentence for sentence in draft.sentences):
            draft.say(
                f"{self.templates.safety_prefix} {safety}",
                draft.cite(diagnose.TOOL.name, "Safety: the diagnostic tree"),
            )
        return AskOutput(
            answer=draft.text(),
            kind=kind,
            sources=draft.sources,
            safety_note=safety,
            next_steps=draft.next_steps,
            composed_by="templates",
            issue_key=reading.issue_key if kind is not AnswerKind.UNKNOWN else None,
            **extra,
        )

    # --- the kinds of question ------------------------------------------------------------

    async def _symptom(self, reading: Reading, ctx: ToolContext, draft: Draft) -> dict[str, object]:
        diagnosis = reading.diagnosis
        assert diagnosis.symptom is not None
        symptom = diagnosis.symptom
        cited = draft.cite(diagnose.TOOL.name, f"Diagnosis: {symptom.label}")
        draft.say(
            self.templates.symptom.format(symptom=symptom.label, urgency=self.templates.urgency[symptom.urgency]),
            cited,
        )
        first = diagnosis.likely_issues[0] if diagnosis.likely_issues else None
        extra: dict[str, object] = {"urgency": symptom.urgency, "symptom_key": symptom.key}
        if first is not None:
            draft.say(self.templates.cause.format(issue=first.name.lower(), description=first.description), cited)
        if reading.zip is None:
            if first is not None:
                extra["cost_range"] = self._price(reading, ctx, draft, first.key)
            draft.say(self.templates.ask_place)
            return extra
        heat = LeadHeat.HOT if diagnosis.safety_flag else LeadHeat.WARM
        route = await self._route(reading, ctx, symptom.key, heat)
        place = _place(route) if route is not None else reading.zip
        if first is not None:
            extra["cost_range"] = self._price(
                reading, ctx, draft, first.key, zip_code=route.location.zip if route else None
            )
        if route is not None:
            extra["pro"] = self._pro(route, place, draft)
        return extra

    def _diy(self, reading: Reading, ctx: ToolContext, draft: Draft) -> dict[str, object]:
        assert reading.issue_key is not None
        issue = ctx.knowledge.tree.issues[reading.issue_key]
        cited = draft.cite(cost.TOOL.name, f"Repair cost and DIY safety: {issue.name}")
        if issue.diy_risk is DiyRisk.UNSAFE:
            note = issue.safety_note or ""
            draft.say(self.templates.diy_unsafe.format(issue=issue.name.lower(), note=note), cited)
        elif issue.diy_risk is DiyRisk.SAFE:
            draft.say(self.templates.diy_safe.format(issue=issue.name.lower()), cited)
        else:
            draft.say(self.templates.diy_caution.format(issue=issue.name.lower()), cited)
        picked = lab_sentences(self._lab_sections(f"{reading.question} {issue.name}", ctx), reading.question, limit=2)
        if picked:
            self._quote(picked, draft)
            lab = picked[0][1]
            draft.next_steps.append(NextStep(label=f"Read: {lab.section_title}", url=lab.url))
        return {"cost_range": self._price(reading, ctx, draft, reading.issue_key)}

    def _repair_price(self, reading: Reading, ctx: ToolContext, draft: Draft) -> dict[str, object]:
        assert reading.issue_key is not None
        return {"cost_range": self._price(reading, ctx, draft, reading.issue_key, zip_code=reading.zip)}

    def _new_door(self, reading: Reading, ctx: ToolContext, draft: Draft) -> dict[str, object]:
        styles = find_styles(ctx.knowledge, DoorStylesInput.model_validate({"type": reading.door_type})).styles
        if not styles:
            draft.say(self.templates.styles_none)
            return {}
        kind = reading.door_type.value if reading.door_type is not None else "garage"
        low, high = min(s.price_range.min for s in styles), max(s.price_range.max for s in styles)
        cited = draft.cite(catalog.TOOL.name, f"Door styles: {kind}", None)
        draft.say(self.templates.styles_range.format(kind=kind, low=money(low), high=money(high)), cited)
        listed = "; ".join(
            self.templates.styles_item.format(name=s.name, low=money(s.price_range.min), high=money(s.price_range.max))
            for s in styles[:MAX_STYLES_LISTED]
        )
        draft.say(f"{listed}.", cited)
        url = f"{ctx.base_url.rstrip('/')}/styles" + (f"?type={reading.door_type.value}" if reading.door_type else "")
        draft.next_steps.append(NextStep(label="Compare door styles", url=url))
        return {"cost_range": CostRange(min=low, max=high)}

    def _explain(self, reading: Reading, ctx: ToolContext, draft: Draft) -> bool:
        chunks = self._lab_sections(reading.question, ctx)
        picked = lab_sentences(chunks, reading.question)
        if not picked:
            return False
        self._quote(picked, draft)
        lab = picked[0][1]
        draft.say(self.templates.explain_more.format(lab=lab.lab_title))
        draft.next_steps.append(NextStep(label=f"Read: {lab.section_title}", url=lab.url))
        return True

    def _quote(self, picked: list[tuple[str, LabChunk]], draft: Draft) -> None:
        for sentence, chunk in picked:
            draft.say(sentence, draft.cite(retrieval.TOOL.name, f"{chunk.lab_title}: {chunk.section_title}", chunk.url))

    # --- the tools ------------------------------------------------------------------------

    def _price(
        self, reading: Reading, ctx: ToolContext, draft: Draft, issue_key: str, zip_code: str | None = None
    ) -> CostRange:
        zip_code = zip_code or reading.zip
        arguments = {"issueKey": issue_key, "doorSize": reading.door_size, "zip": zip_code}
        found = estimate(ctx.knowledge, CostEstimateInput.model_validate(arguments))
        where = (
            self.templates.price_where.format(place=found.region.region if found.region else zip_code)
            if zip_code is not None
            else self.templates.price_national
        )
        cited = draft.cite(
            cost.TOOL.name, f"Repair cost: {found.issue_name}", found.sources[0].url if found.sources else None
        )
        draft.say(
            self.templates.price_repair.format(
                issue=found.issue_name, low=money(found.cost_range.min), high=money(found.cost_range.max), where=where
            ),
            cited,
        )
        return found.cost_range

    async def _route(self, reading: Reading, ctx: ToolContext, issue: str, heat: LeadHeat) -> RouteOutput | None:
        assert reading.zip is not None
        try:
            return await route_by_zip(
                RouteByZipInput.model_validate({"zipOrLocation": reading.zip, "issue": issue, "leadHeat": heat}), ctx
            )
        except ServiceError:
            return None  # an unknown ZIP code: the answer goes on without a pro

    def _pro(self, route: RouteOutput, place: str, draft: Draft) -> ProContact | None:
        if not route.covered or route.partner is None or route.partner_id is None:
            draft.say(self.templates.no_pro.format(place=place))
            return None
        partner = route.partner
        cited = draft.cite(routing.TOOL.name, f"Local pro: {partner.display_name}", partner.url)
        draft.say(self.templates.pro.format(partner=partner.display_name, place=place, phone=partner.phone), cited)
        draft.next_steps.append(NextStep(label=f"Call {partner.display_name}", url=f"tel:{partner.phone}"))
        if partner.scheduler_url:
            draft.next_steps.append(NextStep(label=f"Book {partner.display_name} online", url=partner.scheduler_url))
        return ProContact(
            partner_id=route.partner_id,
            name=partner.display_name,
            phone=partner.phone,
            booking_url=partner.scheduler_url,
        )

    def _lab_sections(self, question: str, ctx: ToolContext) -> list[LabChunk]:
        depth = LAB_DEPTH[ctx.caller.tier]
        query = RetrieveInput.model_validate({"query": question[: retrieval.MAX_QUERY_CHARS], "topK": depth})
        return retrieve(ctx.knowledge, query, ctx.base_url).chunks[:LAB_CHUNKS_READ]

    def _safety_note(self, reading: Reading, ctx: ToolContext) -> str | None:
        """The tree's safety note whenever the question is about a dangerous part or a hazard's symptom."""
        keys = [reading.issue_key] if reading.issue_key else []
        if reading.kind is AnswerKind.SYMPTOM and reading.diagnosis.safety_flag:
            keys.insert(0, reading.diagnosis.likely_issues[0].key)
        for key in keys:
            issue = ctx.knowledge.tree.issues.get(key)
            if issue is not None and issue.diy_risk is DiyRisk.UNSAFE and issue.safety_note:
                return issue.safety_note
        return None


def _place(route: RouteOutput) -> str:
    return f"{route.location.city}, {route.location.state}"
