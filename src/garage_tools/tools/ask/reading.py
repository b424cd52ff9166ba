"""Reading a question: what it asks (a symptom, a price, a how-to), about which part, where and for which door.

Pure and deterministic over the knowledge base and `ask_words.json`: the same words always read the same
way, which is what lets the answerer work with no model at all and be tested sentence by sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from garage_tools.knowledge.ask_words import AskWords
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.matcher import words
from garage_tools.knowledge.parts import PartFinder, packaged_part_words
from garage_tools.knowledge.schemas import DoorType
from garage_tools.tools.ask.models import AnswerKind, AskInput
from garage_tools.tools.diagnose import DiagnoseOutput, diagnose_text, diagnoser

_ZIP = re.compile(r"(?<![0-9])([0-9]{5})(?![0-9])")
DOUBLE_SIZE = "16x7"
SINGLE_SIZE = "9x7"


@dataclass(frozen=True, slots=True)
class Reading:
    """What the answerer understood; `kind` decides which tools it asks."""

    kind: AnswerKind
    question: str
    zip: str | None
    door_size: str | None
    door_type: DoorType | None
    issue_key: str | None  # the issue the question names: its part, or the symptom's likeliest cause
    diagnosis: DiagnoseOutput  # of the question (or of the earlier context, for "how much will that cost?")
    symptom_text: str  # the words that diagnosis is of: the question, or the earlier context


def part_finder(knowledge: Knowledge) -> PartFinder:
    return knowledge.derived("part_finder", lambda: PartFinder(packaged_part_words(), knowledge.checklist))


def read_question(knowledge: Knowledge, cues: AskWords, args: AskInput) -> Reading:
    """How `args.question` (with its earlier `context`) reads."""
    text = args.question
    tokens = words(text)
    everything = f"{args.context or ''}\n{text}"
    diagnosis, symptom_text = diagnose_text(knowledge, text), text
    if diagnosis.symptom is None and args.context:
        earlier = diagnose_text(knowledge, args.context)
        if earlier.symptom is not None:
            diagnosis, symptom_text = earlier, args.context
    if diagnosis.symptom is None and cues.first_person.found_in(tokens) is not None:
        # The person describes their own door in words no phrase knows: the nearest example phrasing, offline.
        diagnosis = diagnoser(knowledge).offline(text) or diagnosis
    issue_key = _named_issue(knowledge, text, diagnosis)
    door_type = next((entry.door_type for entry in cues.door_types if entry.found_in(tokens)), None)
    wants_price = cues.price.found_in(tokens) is not None
    wants_diy = cues.diy.found_in(tokens) is not None
    new_door = cues.new_door.found_in(tokens) is not None

    if wants_diy and issue_key is not None and not new_door:
        kind = AnswerKind.DIY
    elif wants_price and (new_door or (door_type is not None and issue_key is None)):
        kind = AnswerKind.NEW_DOOR
    elif wants_price and issue_key is not None:
        kind = AnswerKind.REPAIR_PRICE
    elif diagnosis.symptom is not None and not _general_question(cues, tokens):
        kind = AnswerKind.SYMPTOM
    elif wants_price:
        kind = AnswerKind.NEW_DOOR if door_type is not None else AnswerKind.EXPLAIN
    elif (
        diagnosis.symptom is None
        and door_type is None
        and _asks_nothing(cues, tokens, text)
        and not _names_a_part(knowledge, text)
    ):
        # "my door is stuck halfway", "the thing is acting weird": words no symptom fits, no question and no part
        # or door named. A lab passage that shares a word would read as an answer to something never asked;
        # asking for more words is honest.
        kind = AnswerKind.UNKNOWN
    else:
        kind = AnswerKind.EXPLAIN
    return Reading(
        kind=kind,
        question=text,
        zip=args.zip or _zip_in(everything),
        door_size=args.door_size or _door_size_in(cues, words(everything)),
        door_type=door_type,
        issue_key=issue_key,
        diagnosis=diagnosis,
        symptom_text=symptom_text,
    )


def _named_issue(knowledge: Knowledge, text: str, diagnosis: DiagnoseOutput) -> str | None:
    """The issue a part named in `text` leads to ("torsion spring" -> broken_spring), else the likeliest cause."""
    mention = part_finder(knowledge).find(text)
    if mention is not None and mention.item.issue_key is not None:
        return mention.item.issue_key
    return diagnosis.likely_issues[0].key if diagnosis.likely_issues else None


def _general_question(cues: AskWords, tokens: list[str]) -> bool:
    """ "Why do springs break in the cold?" asks how things are, not what this door is doing: it starts with a
    question word and says nothing of the person's own door."""
    starts = bool(tokens) and cues.question_words.found_in(tokens[:2]) is not None
    return starts and cues.first_person.found_in(tokens) is None


def _asks_nothing(cues: AskWords, tokens: list[str], text: str) -> bool:
    """No question mark, and no question word leading off: the words tell rather than ask."""
    return "?" not in text and not (bool(tokens) and cues.question_words.found_in(tokens[:2]) is not None)


def _names_a_part(knowledge: Knowledge, text: str) -> bool:
    """A part named ("belt drive vs chain drive") is something the labs can explain unasked."""
    return part_finder(knowledge).find(text) is not None


def _zip_in(text: str) -> str | None:
    found = _ZIP.search(text)
    return found.group(1) if found else None


def _door_size_in(cues: AskWords, tokens: list[str]) -> str | None:
    if cues.double_door.found_in(tokens) is not None:
        return DOUBLE_SIZE
    if cues.single_door.found_in(tokens) is not None:
        return SINGLE_SIZE
    return None
