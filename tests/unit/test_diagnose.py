"""diagnose: chip phrases, field variants, typos, safety and the no-match answer."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from garage_tools.access.caller import Caller
from garage_tools.knowledge.loader import Knowledge, load_knowledge
from garage_tools.registry import ToolContext, invoke
from garage_tools.tools import build_registry
from garage_tools.tools.diagnose import RECENT_READINGS, diagnose_text, read_description
from tests.tool_data import unopened_data

BENCH_DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
DATA = unopened_data()  # real stores no handler here opens
REGISTRY = build_registry()

# The one-tap chips that widgets in the field offer, and the symptom each MUST map to.
CHIPS = {
    "won't open": "wont_open",
    "won't close": "wont_close",
    "grinding noise": "loud_grinding",
    "loud bang": "banging_noise",
    "moves unevenly": "moves_unevenly",
    "opens partially": "opens_partially",
    "remote not working": "remote_not_working",
    "loud noise": "unusual_noise",
    "weather seal damaged": "weather_seal_damaged",
}


def assert_diagnosed(knowledge: Knowledge, text: str, key: str) -> None:
    """`text` is diagnosed as symptom `key`; a failure shows the words the matcher read."""
    result = diagnose_text(knowledge, text)
    assert result.symptom is not None and result.symptom.key == key, knowledge.matcher.normalise(text)


@pytest.mark.parametrize(("phrase", "key"), CHIPS.items())
def test_every_chip_phrase_matches_its_symptom(knowledge: Knowledge, phrase: str, key: str) -> None:
    result = diagnose_text(knowledge, phrase)
    assert result.symptom is not None and result.symptom.key == key


@pytest.mark.parametrize("phrase", list(CHIPS))
@pytest.mark.parametrize("variant", [str.upper, str.title, lambda p: p + "!!", lambda p: "  my door: " + p + "."])
def test_chips_tolerate_case_and_punctuation(knowledge: Knowledge, phrase: str, variant: object) -> None:
    assert callable(variant)
    result = diagnose_text(knowledge, variant(phrase))
    assert result.symptom is not None and result.symptom.key == CHIPS[phrase]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("wont close", "wont_close"),
        ("door wont shut", "wont_close"),
        ("The door won\u2019t shut", "wont_close"),  # typographic apostrophe
        ("the door will not close", "wont_close"),
        ("door reverses before it hits the floor", "wont_close"),
        ("opens a few inches then stops", "opens_partially"),
        ("goes up halfway and stops", "opens_partially"),
        ("door won't open all the way", "opens_partially"),
        ("opener hums but the door doesn't move", "wont_open"),
        ("door hangs crooked", "moves_unevenly"),
        ("it came off the track", "moves_unevenly"),
        ("light coming in under the door", "weather_seal_damaged"),
        ("clicker stopped working", "remote_not_working"),
        ("squeaky hinges", "unusual_noise"),
        ("sounds like a gunshot", "banging_noise"),
    ],
)
def test_free_text_seen_in_the_field(knowledge: Knowledge, text: str, key: str) -> None:
    result = diagnose_text(knowledge, text)
    assert result.symptom is not None and result.symptom.key == key


@pytest.mark.parametrize(
    ("typo", "key"),
    [
        ("grindng noise", "loud_grinding"),
        ("remote not wroking", "remote_not_working"),
        ("weather seel damaged", "weather_seal_damaged"),
        ("bnag", "banging_noise"),
        ("door wont clsoe", "wont_close"),
        ("opens partialy", "opens_partially"),
    ],
)
def test_common_misspellings(knowledge: Knowledge, typo: str, key: str) -> None:
    result = diagnose_text(knowledge, typo)
    assert result.symptom is not None and result.symptom.key == key


@pytest.mark.parametrize("text", ["it went up and came down", "door hangs straight", "what's the weather like"])
def test_short_real_words_are_not_bent_into_symptoms(knowledge: Knowledge, text: str) -> None:
    # "went" is one letter from "wont" and "hang" from "bang": a matcher that corrected
    # them would invent a symptom the user never described.
    result = diagnose_text(knowledge, text)
    assert result.symptom is None or result.symptom.key not in {"wont_open", "banging_noise"}


def test_loud_bang_is_an_emergency_with_unsafe_causes(knowledge: Knowledge) -> None:
    result = diagnose_text(knowledge, "loud bang from the garage")
    assert result.symptom is not None
    assert result.symptom.urgency == "emergency"
    assert result.safety_flag is True
    assert result.diy_safe is False
    spring = result.likely_issues[0]
    assert spring.key == "broken_spring"
    assert spring.diy_risk == "unsafe"
    assert spring.safety_note is not None and "technician" in spring.safety_note
    assert 0 < spring.cost_range.min < spring.cost_range.max


def test_seal_damage_is_safe_to_fix_yourself(knowledge: Knowledge) -> None:
    result = diagnose_text(knowledge, "weather seal damaged")
    assert result.safety_flag is False
    assert result.diy_safe is True
    assert [i.key for i in result.likely_issues] == ["worn_seal"]


def test_the_specs_issue_keys_exist_with_every_attribute(knowledge: Knowledge) -> None:
    for key in [
        "broken_spring",
        "worn_rollers",
        "broken_cable",
        "sensor_misalignment",
        "opener_failure",
        "track_damage",
        "worn_seal",
    ]:
        issue = knowledge.tree.issues[key]
        assert issue.name and issue.description and issue.urgency and issue.diy_risk
        assert key in knowledge.costs.issues


@pytest.mark.parametrize("key", ["broken_spring", "broken_cable"])
def test_spring_and_cable_work_is_never_diy(knowledge: Knowledge, key: str) -> None:
    assert knowledge.tree.issues[key].diy_risk == "unsafe"


def test_no_match_is_a_helpful_answer(knowledge: Knowledge) -> None:
    result = diagnose_text(knowledge, "hello there")
    assert result.symptom is None
    assert result.likely_issues == []
    assert result.hint
    assert result.suggestions
    recognised = set()
    for phrase in result.suggestions:  # every suggestion really is recognised
        symptom = diagnose_text(knowledge, phrase).symptom
        assert symptom is not None
        recognised.add(symptom.key)
    assert recognised == set(CHIPS.values())  # one per symptom


def test_a_repeated_description_is_answered_from_the_recent_matches(knowledge: Knowledge) -> None:
    from garage_tools.knowledge.matcher import RECENT_MATCHES, SymptomMatcher

    matcher = SymptomMatcher(knowledge.tree)
    first = matcher.match("my door makes a loud bang")
    assert first is not None and first.symptom.key == "banging_noise"
    assert matcher.match("my door makes a loud bang") is first  # the same object: no second matching pass
    assert matcher.match("my door makes a LOUD bang") == first  # a new text is matched afresh, the same way
    for n in range(RECENT_MATCHES + 10):
        matcher.match(f"door {n}")
    assert len(matcher._recent) <= RECENT_MATCHES
    assert matcher.match("my door makes a loud bang") == first


def test_a_shared_answer_is_encoded_to_json_once(knowledge: Knowledge) -> None:
    from garage_tools.registry import dump, dump_json

    first = diagnose_text(knowledge, "loud bang")
    again = diagnose_text(knowledge, "loud bang")
    assert again is first  # one immutable answer per symptom and phrase
    encoded = dump_json(first)
    assert dump_json(again) is encoded  # the same bytes object: no second encoding
    assert json.loads(encoded) == dump(first)
    with pytest.raises(ValidationError):
        first.safety_flag = False  # frozen: a shared answer cannot be changed under other callers


# --- classes of failure fixed after the round 5 measurement (phrasings of our own, not the benchmark's) ---


@pytest.mark.parametrize(
    ("word", "kept"),
    [
        ("house", "house"),  # one letter from "mouse" (a pest), but the first letter differs
        ("right", "right"),  # from "light" ("light under the door")
        ("mower", "mower"),  # from "lower" (close)
        ("steel", "steel"),  # same first letter as "seal": a knownWords entry
        ("string", "string"),  # "spring"
        ("changes", "changes"),  # an enquiry word ("charges") is never a correction target
    ],
)
def test_everyday_words_are_not_corrected_into_symptom_words(knowledge: Knowledge, word: str, kept: str) -> None:
    assert knowledge.matcher.normalise(word) == [kept]


def test_typos_that_keep_the_first_letter_are_still_corrected(knowledge: Knowledge) -> None:
    assert knowledge.matcher.normalise("grindng sprnig") == ["grind", "spring"]


@pytest.mark.parametrize(
    "text",
    [
        "the tumble dryer in my garage squeals",
        "the fridge in the garage rattles like crazy",
        "our back door won't shut properly",
        "the water heater in the garage is leaking",
        "my truck battery is dead again",
    ],
)
def test_something_else_in_the_garage_is_not_a_door_symptom(knowledge: Knowledge, text: str) -> None:
    assert knowledge.matcher.match(text) is None
    assert knowledge.semantic_matcher.match(text) is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("the freezer is parked right by the door and now the door won't close", "wont_close"),  # door named
        ("garage won't open and the car is trapped inside", "wont_open"),  # "garage" as the door, not a room
        ("a bang like a truck backfiring, then the door was too heavy", "banging_noise"),  # a comparison
    ],
)
def test_a_door_named_beside_another_thing_is_still_diagnosed(knowledge: Knowledge, text: str, key: str) -> None:
    result = diagnose_text(knowledge, text)
    assert result.symptom is not None and result.symptom.key == key


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("a massive ka boom from the garage around midnight", "banging_noise"),  # sound words for a bang
        ("heard a twang and one spring is now in two pieces", "banging_noise"),
        ("the zapper clipped to my visor stopped working", "remote_not_working"),  # names for a remote
        ("my handheld quit working yesterday", "remote_not_working"),
        ("the door rises to about waist level and then quits", "opens_partially"),  # how far, and stopping
        ("it stops roughly two thirds of the way up", "opens_partially"),
        ("the door is stuck half open", "opens_partially"),
        ("door froze to the ground overnight and won't go up", "wont_open"),  # frozen or seized is stuck
        ("the whole thing seized up, nothing moves", "wont_open"),
        ("sunshine gets in underneath the door", "weather_seal_damaged"),  # under, below, along the bottom
        ("the rubber at the bottom has perished", "weather_seal_damaged"),
        ("grating noise every time it moves", "loud_grinding"),  # grate, gnash, crunch
        ("the door hits the floor and reopens", "wont_close"),  # reopening is reversing
    ],
)
def test_homeowner_words_for_the_trees_words(knowledge: Knowledge, text: str, key: str) -> None:
    assert_diagnosed(knowledge, text, key)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("it won't lift at all, totally stuck", "wont_open"),  # "at all" and "totally" are no "fully"
        ("remote, keypad, wall button, doesn't matter which, the door stays closed", "wont_open"),  # an idiom
        ("the keypad does nothing though its backlight blinks", "remote_not_working"),  # the keypad's light
        ("it stops partway down and then comes back up", "wont_close"),  # partway while closing
        ("it only gets as far as knee height", "opens_partially"),
        ("squeaking and groaning on the way down", "unusual_noise"),  # "on the way down" says when, not what
    ],
)
def test_sentence_shapes(knowledge: Knowledge, text: str, key: str) -> None:
    assert_diagnosed(knowledge, text, key)


# --- classes of failure fixed after the round 6 measurement (phrasings of our own, not the benchmark's) ---


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("my door will not go down, it stays up all day", "wont_close"),  # the negation belongs to "down"
        ("unable to shut the door, it is stuck open again", "wont_close"),
        ("we can't get it lowered, it stays open", "wont_close"),
        ("the door just sits there closed whatever I press", "wont_open"),  # staying shut is not opening
        ("it refused to go up after the storm and remains shut", "wont_open"),
        ("door wont open more than a third of the way", "opens_partially"),  # no direction skipped: still partial
    ],
)
def test_direction_words_decide_opening_or_closing(knowledge: Knowledge, text: str, key: str) -> None:
    assert_diagnosed(knowledge, text, key)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("it shudders when it's halfway down", "moves_unevenly"),  # halfway says when, not where it stops
        ("the panel leans to one side once it's halfway open", "moves_unevenly"),
        ("squeals as it gets halfway up", "unusual_noise"),
        ("it stops when it's halfway up every time", "opens_partially"),  # a stop at a position still is one
        ("it rises in fits and starts, really juddering", "moves_unevenly"),  # stop-start is jerky travel
    ],
)
def test_a_position_during_travel_is_not_a_stop(knowledge: Knowledge, text: str, key: str) -> None:
    assert_diagnosed(knowledge, text, key)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("a scratchy dragging sound whenever it moves", "loud_grinding"),  # dragging and scratching grind
        ("loud scraping as it closes", "loud_grinding"),  # loud + a grinding word is grinding, not a noise
        ("one huge clang from the garage around midnight", "banging_noise"),  # a single clang: a bang
        ("something under tension gave way with a twang", "banging_noise"),
        ("it goes bang bang bang all the way up", "unusual_noise"),  # a repeated knock during travel
        ("knocking noises from the rollers as it travels", "unusual_noise"),
    ],
)
def test_sound_words_name_the_right_noise(knowledge: Knowledge, text: str, key: str) -> None:
    assert_diagnosed(knowledge, text, key)


@pytest.mark.parametrize(
    "text",
    [
        "kaboom from the garage, now the spring is in pieces",  # a word form of bang (round 5)
        "heard a clang from the garage and the spring is in two pieces",  # a single clang (round 6)
    ],
)
def test_a_spring_described_by_its_sound_keeps_the_safety_flag(knowledge: Knowledge, text: str) -> None:
    result = diagnose_text(knowledge, text)
    assert result.symptom is not None and result.symptom.key == "banging_noise"
    assert result.safety_flag is True


@pytest.mark.parametrize(
    "text",
    [
        "the sliding door to the patio sticks in its track",  # another door's track is its own
        "our french doors squeak on their hinges",
        "the tv remote needs new batteries, it does nothing",
        "my car key fob has stopped working",
        "the shed door won't shut",
        "someone backed into the bins and dented them",
    ],
)
def test_another_thing_as_the_subject_is_not_a_door_symptom(knowledge: Knowledge, text: str) -> None:
    assert knowledge.matcher.match(text) is None, knowledge.matcher.normalise(text)
    assert knowledge.semantic_matcher.match(text) is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("it opens a couple of feet then stops, not enough to get the car out", "opens_partially"),  # car: object
        ("my truck's remote stopped working", "remote_not_working"),  # the truck only qualifies the remote
        ("the button in the car does nothing any more", "remote_not_working"),
        ("the dog went mad at a loud pop, and a spring looks broken", "banging_noise"),  # door part named
    ],
)
def test_the_door_stays_the_subject_when_another_thing_is_only_mentioned(
    knowledge: Knowledge, text: str, key: str
) -> None:
    assert_diagnosed(knowledge, text, key)


@pytest.mark.parametrize(
    "text",
    [
        "the washing machine drum bangs about on spin",  # an appliance's parts are its own
        "our fridge rattles, I think the compressor bracket is loose",
        "the kitchen appliance hums",
        "the oven fan grinds",
        "the microwave door won't close",  # and so is its door
        "the window by the stairs leaks, the seal has gone",  # a window's seal
        "a leaking window",  # a description that opens with the thing it describes
        "the gate motor hums but the gate won't open",  # a gate's opener
        "the screen door spring snapped",  # another door's spring
        "my shed door hinge snapped and the door drags",  # "the door" is the shed door named before
        "a humming noise from the old freezer",  # where a sound comes from
        "the garage fridge hums",  # "garage" says where the fridge is
        "my van won't start after a night in the icy garage",
    ],
)
def test_appliances_windows_other_doors_gates_and_cars_are_not_the_door(knowledge: Knowledge, text: str) -> None:
    assert knowledge.matcher.match(text) is None, knowledge.matcher.normalise(text)
    assert knowledge.semantic_matcher.match(text) is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("the car is stuck in there and the opener just hums", "wont_open"),  # a car stands by
        ("it's freezing in the garage and the door won't open", "wont_open"),
        ("the garage won't close again", "wont_close"),  # "garage" for the door
        ("a rattling from the garage door as the car pulls in", "unusual_noise"),
        ("a loud bang from the garage and a spring is in two pieces", "banging_noise"),
        ("banging noise, the windows shook", "banging_noise"),  # "banging noise" describes no window
    ],
)
def test_the_door_stays_the_subject_beside_those_things(knowledge: Knowledge, text: str, key: str) -> None:
    assert_diagnosed(knowledge, text, key)


@pytest.mark.parametrize(
    ("text", "phrase", "matched"),
    [
        ("door wont shut", "won't close", "wont shut"),  # the field's own variant
        ("Door WON'T shut!!", "won't close", "WON'T shut"),  # as sent: case and apostrophe kept
        ("the door will not go down at all", "won't close", "will not go down"),
        ("Garage door won\u2019t close", "won't close", "won\u2019t close"),
        ("my door makes a loud bang", "loud bang", "loud bang"),
    ],
)
def test_the_words_that_matched_are_reported_beside_the_trees_phrase(
    knowledge: Knowledge, text: str, phrase: str, matched: str
) -> None:
    result = diagnose_text(knowledge, text)
    assert result.symptom is not None
    assert (result.symptom.matched_phrase, result.symptom.matched_text) == (phrase, matched)


def test_the_words_that_matched_are_always_a_span_of_the_description(knowledge: Knowledge) -> None:
    development = json.loads((BENCH_DATA / "diagnose_phrasings_dev.json").read_text(encoding="utf-8"))
    spans = 0
    for item in development["phrasings"]:
        text = item["text"]
        match = knowledge.matcher.match(text)
        if match is None:
            continue
        matched = match.matched_text(text)
        assert matched is not None and matched in text, text
        # It starts and ends on the phrase's first and last words, read the way the matcher reads them.
        read, wanted = knowledge.matcher.normalise(matched), knowledge.matcher.normalise(match.phrase)
        assert (read[0], read[-1]) == (wanted[0], wanted[-1]), (text, matched)
        spans += 1
    assert spans > 400


def test_a_car_reversing_into_the_door_is_not_the_door_reversing(knowledge: Knowledge) -> None:
    assert knowledge.matcher.normalise("my son reversed into it") == ["son", "collided"]
    assert knowledge.matcher.match("will my policy pay if a van backs into the door") is None


@pytest.mark.parametrize("word", ["learn", "learned", "changed", "lunch"])
def test_new_word_forms_do_not_become_typo_targets_for_everyday_words(knowledge: Knowledge, word: str) -> None:
    assert knowledge.matcher.normalise(word) == [word]  # "learn" is not "lean", "changed" not "clanged"


# -- a description asked again --------------------------------------------------------------------


async def test_a_description_asked_again_is_answered_from_memory_per_hint() -> None:
    """The second call with the same words and hints gets the remembered answer (the same object, whose encodings
    the surfaces also remember); other hints are another question, read afresh."""
    fresh = load_knowledge()  # its own memory, so no other test's calls are in it
    english = ToolContext(knowledge=fresh, caller=Caller.anonymous("test"), base_url="http://test", data=DATA)
    spanish = replace(english, languages=("es",))
    args = {"description": "my door makes a loud bang"}

    first = await invoke(REGISTRY, "diagnose", args, english)
    assert await invoke(REGISTRY, "diagnose", args, english) is first
    assert (await invoke(REGISTRY, "diagnose", args, spanish)).lang == "en"  # the words are English

    # The look-up is what answers: a reading planted under the same words and hints is what comes back.
    planted = diagnose_text(fresh, "the remote does not work")
    remembered = fresh.derived("diagnose:readings", dict)
    assert set(remembered) == {("my door makes a loud bang", (None,)), ("my door makes a loud bang", (None, "es"))}
    remembered["my door makes a loud bang", (None,)] = (planted, False)
    assert await invoke(REGISTRY, "diagnose", args, english) is planted


def test_the_memory_of_descriptions_is_bounded() -> None:
    fresh = load_knowledge()
    for n in range(RECENT_READINGS + 5):
        read_description(fresh, f"loud bang number {n}", (None,))
    assert 0 < len(fresh.derived("diagnose:readings", dict)) <= RECENT_READINGS
