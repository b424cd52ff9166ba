"""diagnose's offline fallback (knowledge/semantic.py) and its data (knowledge/data/symptom_exemplars.json).

The phrasings here are development cases: the matcher's threshold and examples were tuned on them
and on bench/data/diagnose_phrasings_dev.json. The held-out measurement is bench/diagnose_fallback.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from garage_tools.access.caller import Caller
from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError, schema_for
from garage_tools.knowledge.loader import Knowledge, load_knowledge
from garage_tools.knowledge.schemas import SymptomExemplars
from garage_tools.knowledge.semantic import MIN_SIMILARITY, RIVAL_MARGIN, TIE_MARGIN
from garage_tools.registry import ToolContext, dump, invoke
from garage_tools.tools import build_registry
from tests.tool_data import unopened_data

DATA = unopened_data()  # real stores no handler here opens

BENCH_DATA = Path(__file__).parents[2] / "bench" / "data"
REGISTRY = build_registry()


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("sounds like a gunshot", "banging_noise"),  # the two examples
        ("the door rises a little and quits", "opens_partially"),
        ("heard a crash like something fell in the garage", "banging_noise"),
        ("opener whirs but door stays put", "wont_open"),
        ("the door is higher on one side", "moves_unevenly"),
        ("bottom rubber is torn", "weather_seal_damaged"),
        ("code entry pad isnt responding", "remote_not_working"),
        ("scrapey metal noise from the track", "loud_grinding"),
        ("door clanks and rattles", "unusual_noise"),
        ("door keeps going back up when closing", "wont_close"),
    ],
)
def test_descriptions_find_the_nearest_symptom(knowledge: Knowledge, text: str, key: str) -> None:
    match = knowledge.semantic_matcher.match(text)
    assert match is not None and match.symptom.key == key, knowledge.semantic_matcher.rank(text)[:3]
    assert MIN_SIMILARITY <= match.similarity <= 1


@pytest.mark.parametrize(
    "text",
    [
        "hello there",
        "something is wrong with my garage door",  # vague: ask for more, don't guess a bang
        "can you help me with my garage",
        "how do I reset my password",
        "my car is making a funny smell",
        "do you sell doors in blue",
        "the doorbell doesnt work",  # shares only "doesn't work" with a remote example
        "when can you come out",  # shares only "out" with "the weatherstripping is worn out"
    ],
)
def test_texts_that_name_no_symptom_find_none(knowledge: Knowledge, text: str) -> None:
    assert knowledge.semantic_matcher.match(text) is None, knowledge.semantic_matcher.rank(text)[:2]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("the cable on the right snapped and the door hangs", "moves_unevenly"),  # not the spring's bang
        ("sounded like a rifle going off", "banging_noise"),
        ("it only goes up part of the way", "opens_partially"),
        ("the door goes up off kilter", "moves_unevenly"),
        ("i cant program my truck to open the garage", "remote_not_working"),
    ],
)
async def test_word_forms_of_the_tree_reach_the_fallback(knowledge: Knowledge, text: str, key: str) -> None:
    """Gun names, "part of the way", "off kilter", a snapped cable and programming a car: the tree's word forms
    and phrases, which the fallback reads as well (added after the round 4 held-out measurement)."""
    context = ToolContext(knowledge=knowledge, caller=Caller.anonymous("test"), base_url="http://test", data=DATA)
    result = dump(await invoke(REGISTRY, "diagnose", {"description": text, "useLlmFallback": True}, context))
    assert result["symptom"]["key"] == key, result


def test_a_rival_from_a_weaker_match_keeps_a_near_tie(knowledge: Knowledge) -> None:
    text = "it snaps and squeals when it moves"  # "snaps" alone matched banging_noise
    first, second = knowledge.semantic_matcher.rank(text)[:2]
    assert (first.symptom.key, second.symptom.key) == ("unusual_noise", "banging_noise")
    assert first.similarity - second.similarity < RIVAL_MARGIN
    assert knowledge.semantic_matcher.match(text) == first
    assert knowledge.semantic_matcher.match(text, rival="banging_noise") is None
    assert knowledge.semantic_matcher.match(text, rival="weather_seal_damaged") == first


def test_two_symptoms_about_as_near_are_no_guess(knowledge: Knowledge) -> None:
    # Stuck halfway on the way up or on the way down? The words do not say, so the matcher does not pick.
    first, second = knowledge.semantic_matcher.rank("my door is stuck halfway")[:2]
    assert {first.symptom.key, second.symptom.key} == {"wont_close", "opens_partially"}
    assert first.similarity >= MIN_SIMILARITY and first.similarity - second.similarity < TIE_MARGIN
    assert knowledge.semantic_matcher.match("my door is stuck halfway") is None
    found = knowledge.semantic_matcher.match("my door stops halfway up")
    assert found is not None and found.symptom.key == "opens_partially"


def test_ranking_is_stable_and_scored_per_symptom(knowledge: Knowledge) -> None:
    ranked = knowledge.semantic_matcher.rank("grinding noise from the rollers")
    keys = [m.symptom.key for m in ranked]
    assert len(keys) == len(set(keys)) and keys[0] == "loud_grinding"
    assert [m.similarity for m in ranked] == sorted((m.similarity for m in ranked), reverse=True)


# --- through diagnose, offline ----------------------------------------------------------------


async def diagnose(knowledge: Knowledge, text: str, fallback: bool) -> dict[str, Any]:
    context = ToolContext(knowledge=knowledge, caller=Caller.anonymous("test"), base_url="http://test", data=DATA)
    return dump(await invoke(REGISTRY, "diagnose", {"description": text, "useLlmFallback": fallback}, context))


async def test_a_one_word_phrase_match_gives_way_to_a_clearly_nearer_symptom(knowledge: Knowledge) -> None:
    # "noise" alone is the catch-all symptom. (Not "grating noise" any more: "grating" is a word form of
    # grind in the tree now, so that text matches the phrase "grinding noise" without the fallback.)
    text = "rumbly noise coming from the rollers"
    assert (await diagnose(knowledge, text, False))["symptom"]["key"] == "unusual_noise"
    symptom = (await diagnose(knowledge, text, True))["symptom"]
    assert symptom["key"] == "loud_grinding" and symptom["matchedBy"] == "offline-fallback"


async def test_the_fallback_never_talks_a_user_out_of_a_hazard(knowledge: Knowledge) -> None:
    text = "there is a crack in the rubber at the bottom"  # "crack": a one-word banging phrase
    assert knowledge.semantic_matcher.match(text).symptom.key == "weather_seal_damaged"  # type: ignore[union-attr]
    answer = await diagnose(knowledge, text, True)
    assert answer["symptom"]["key"] == "banging_noise" and answer["symptom"]["matchedBy"] == "phrase"
    assert answer["safetyFlag"] is True


async def test_chips_are_never_second_guessed(knowledge: Knowledge) -> None:
    for chip in ["won't close", "loud noise", "opens partially", "weather seal damaged", "remote not working"]:
        with_fallback = await diagnose(knowledge, chip, True)
        assert with_fallback == await diagnose(knowledge, chip, False)
        assert with_fallback["symptom"]["matchedBy"] == "phrase"


# --- the data file ----------------------------------------------------------------------------


def _folded(text: str) -> str:
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


def test_the_schema_file_is_current() -> None:
    on_disk = json.loads((DATA_DIR / "schemas" / "symptom_exemplars.schema.json").read_text())
    assert on_disk == schema_for(SymptomExemplars), "run `garage-tools knowledge schemas`"


def test_examples_cover_every_symptom_and_copy_no_phrase_or_benchmark(knowledge: Knowledge) -> None:
    examples = knowledge.exemplars.exemplars
    assert set(examples) == {s.key for s in knowledge.tree.symptoms}
    assert all(len(texts) >= 8 for texts in examples.values())
    folded = {_folded(text) for texts in examples.values() for text in texts}
    phrases = {_folded(p) for s in knowledge.tree.symptoms for p in s.phrases}
    assert not folded & phrases  # a tree phrase matches before the fallback is asked anyway
    for name in ["diagnose_phrasings.json", "diagnose_phrasings_dev.json"]:
        data = json.loads((BENCH_DATA / name).read_text())
        benchmark = {_folded(item["text"]) for item in data["phrasings"] + data["negatives"]}
        assert not folded & benchmark, f"an example copies a phrasing of {name}"


def _broken_copy(tmp_path: Path, change: Any) -> Path:
    directory = tmp_path / "data"
    shutil.copytree(DATA_DIR, directory)
    path = directory / "symptom_exemplars.json"
    document = json.loads(path.read_text())
    change(document["exemplars"])
    path.write_text(json.dumps(document))
    return directory


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda e: e.pop("banging_noise"), "missing ['banging_noise']"),
        (lambda e: e.update(door_possessed=["a", "b", "c"]), "unknown ['door_possessed']"),
        (lambda e: e.update(wont_open=["only one"]), "at least 3"),
    ],
)
def test_a_broken_examples_file_stops_start_up(tmp_path: Path, change: Any, message: str) -> None:
    with pytest.raises(KnowledgeError, match=r"symptom_exemplars\.json") as caught:
        load_knowledge(_broken_copy(tmp_path, change))
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "how much would a new set of rollers cost",  # shares "rollers" with a grinding example
        "can you give me a quote on a replacement motor",
        "what colour would suit a brick house",
    ],
)
def test_the_fallback_makes_no_guess_for_an_enquiry(knowledge: Knowledge, text: str) -> None:
    assert knowledge.semantic_matcher.match(text) is None, knowledge.semantic_matcher.rank(text)[:2]


async def test_an_enquiry_naming_a_symptom_phrase_still_gets_its_diagnosis(knowledge: Knowledge) -> None:
    context = ToolContext(knowledge=knowledge, caller=Caller.anonymous("test"), base_url="http://test", data=DATA)
    arguments = {"description": "how much to fix a door that won't close", "useLlmFallback": True}
    result = dump(await invoke(REGISTRY, "diagnose", arguments, context))
    assert result["symptom"]["key"] == "wont_close"


@pytest.mark.parametrize(
    "text",
    [
        "how do I clean rust marks off the driveway",  # asks how to do something, reports nothing
        "can I turn my garage into a gym",
        "should I insulate the garage before winter",
        "is my garage covered by home insurance",
        "thinking about converting the garage into a bedroom",
    ],
)
async def test_a_question_about_a_topic_gets_no_guess(knowledge: Knowledge, text: str) -> None:
    """Enquiry shapes ("how do I", "can I", "should I") and topics (insurance, conversions), added after the
    round 6 measurement: the offline fallback shares words with examples without a symptom described."""
    assert knowledge.semantic_matcher.match(text) is None, knowledge.semantic_matcher.rank(text)[:2]
    assert (await diagnose(knowledge, text, True)).get("symptom") is None
