"""The answerer with no model: each question of ask_questions.json gets the facts it must state, cited.

The answers are the template path's (tools/ask/compose.py) over the packaged knowledge; routing to a
pro is covered end to end (tests/e2e/test_chat_completions.py), where the partner directory is real.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from garage_tools.access.caller import Caller
from garage_tools.knowledge.ask_words import packaged_ask_words
from garage_tools.knowledge.loader import Knowledge, load_knowledge
from garage_tools.registry import ToolContext, dump
from garage_tools.tools.ask import AskInput, ask
from garage_tools.tools.ask.compose import lab_sentences
from garage_tools.tools.ask.reading import read_question
from garage_tools.tools.retrieval import LabChunk
from tests.tool_data import unopened_data

QUESTIONS = json.loads((Path(__file__).parent / "ask_questions.json").read_text(encoding="utf-8"))["questions"]


@pytest.fixture(scope="module")
def knowledge() -> Knowledge:
    return load_knowledge()


def answer(knowledge: Knowledge, question: str, **extra: Any) -> dict[str, Any]:
    context = ToolContext(
        knowledge=knowledge, caller=Caller.anonymous("rest"), base_url="https://doors.example", data=unopened_data()
    )
    return dump(asyncio.run(ask(AskInput.model_validate({"question": question, **extra}), context)))


@pytest.mark.parametrize("case", QUESTIONS, ids=[case["question"][:40] for case in QUESTIONS])
def test_each_question_says_and_cites_what_it_must(knowledge: Knowledge, case: dict[str, Any]) -> None:
    result = answer(knowledge, case["question"])
    assert result["kind"] == case["kind"], result["answer"]
    for fact in case["says"]:
        assert fact.lower() in result["answer"].lower(), (fact, result["answer"])
    cited = {source["tool"] for source in result["sources"]}
    assert set(case["cites"]) <= cited, (cited, result["answer"])
    assert bool(result.get("safetyNote")) is case["safety"], result["answer"]
    if case["safety"]:
        assert result["safetyNote"] in result["answer"]  # said, word for word, as the tree has it


def test_every_citation_names_a_source_and_every_source_is_cited(knowledge: Knowledge) -> None:
    for case in QUESTIONS:
        result = answer(knowledge, case["question"])
        numbers = {int(n) for n in re.findall(r"\[(\d+)\]", result["answer"])}
        assert numbers == {source["id"] for source in result["sources"]}, result["answer"]


def test_the_context_supplies_the_symptom_and_the_door_size(knowledge: Knowledge) -> None:
    reading = read_question(
        knowledge,
        packaged_ask_words(),
        AskInput.model_validate({"question": "how much will that cost?", "context": "loud bang, double door"}),
    )
    assert reading.issue_key == "broken_spring" and reading.door_size == "16x7"
    result = answer(knowledge, "how much will that cost?", context="there was a loud bang, it's a double door")
    assert result["kind"] == "repair-price" and result["costRange"]["min"] >= 200  # the double-door range


def test_a_zip_code_in_the_question_prices_there(knowledge: Knowledge) -> None:
    national = answer(knowledge, "how much to fix a broken spring?")["costRange"]
    local = answer(knowledge, "how much to fix a broken spring in 94110?")["costRange"]
    assert local["max"] > national["max"]


HOLDS = "Springs hold the door's weight under tension."
REPLACED = "A broken spring must be replaced by a technician, never by you."


def test_lab_sentences_skip_list_fragments_and_keep_the_labs_order() -> None:
    chunk = LabChunk(
        rank=1,
        score=1.0,
        text=f"{HOLDS}\nDo this:\n- oil the rollers;\n{REPLACED}",
        lab_slug="s",
        lab_title="Springs",
        section_title="Springs",
        anchor="a",
        url="u",
    )
    picked = [sentence for sentence, _ in lab_sentences([chunk], "who replaces a broken spring?")]
    assert picked == [
        "Springs hold the door's weight under tension.",
        "A broken spring must be replaced by a technician, never by you.",
    ]
