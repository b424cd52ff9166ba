"""diagnose in context and in Spanish (issue 27): the subject, word senses, stretched words, several symptoms,
the language read from the text, Spanish texts back for diagnose and costEstimate, and complete Spanish data.

The calls go through the registry as every surface does (`invoke`), and the header tests through a real
server (`api`), so an `Accept-Language` header is read the way a client sends it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from garage_tools.access.caller import Caller
from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError
from garage_tools.knowledge.loader import Knowledge, load_knowledge
from garage_tools.registry import ToolContext, dump, invoke
from garage_tools.tools import build_registry
from tests.tool_data import unopened_data

DATA = unopened_data()  # real stores no handler here opens

REGISTRY = build_registry()


async def call(knowledge: Knowledge, tool: str, arguments: dict[str, Any], languages: tuple[str, ...] = ()) -> Any:
    context = ToolContext(
        knowledge=knowledge, caller=Caller.anonymous("t"), base_url="http://t", data=DATA, languages=languages
    )
    return dump(await invoke(REGISTRY, tool, arguments, context))


async def diagnosed(knowledge: Knowledge, text: str, **more: Any) -> Any:
    return await call(knowledge, "diagnose", {"description": text, "useLlmFallback": True, **more})


async def test_a_bang_in_the_cochera_is_a_broken_spring_urgent_and_in_spanish(knowledge: Knowledge) -> None:
    body = await diagnosed(knowledge, "escuché un estallido en la cochera y el portón ya no sube")
    assert body["lang"] == "es"
    assert body["symptom"]["key"] == "banging_noise" and body["symptom"]["urgency"] == "emergency"
    assert body["likelyIssues"][0]["key"] == "broken_spring" and body["safetyFlag"] is True
    assert body["symptom"]["label"] == "Golpe o estallido fuerte"
    assert body["likelyIssues"][0]["name"] == "Resorte roto o fallando"
    assert body["likelyIssues"][0]["safetyNote"].startswith("Los resortes cargan")
    assert body["symptom"]["urgencyNote"].startswith("Deje de usar la puerta")
    assert body["symptom"]["matchedText"] == "estallido en la cochera y el portón ya no sube"


@pytest.mark.parametrize(
    "text",
    [
        "the kitchen door sticks when it rains",
        "the attic ladder in the garage won't come down",
        "the garage lights won't turn on",
        "the outlet in the garage stopped working",
        "the garage floor is cracked and uneven",
        "will it rain tomorrow",
        "how do I program a new remote",
        "la puerta de la cocina se atora cuando llueve",
        "las luces de la cochera parpadean",
        "la chapa de la puerta está trabada",
    ],
)
async def test_look_alikes_get_no_symptom(knowledge: Knowledge, text: str) -> None:
    body = await diagnosed(knowledge, text)
    assert "symptom" not in body, body.get("symptom")
    assert body["hint"]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("door squeeeeeals going up", "unusual_noise"),  # stretched
        ("garge door is stuk open", "wont_close"),  # a letter left out of four
        ("door feels like it weighs a thousand pounds", "wont_open"),  # weighs: the door's weight
        ("heavy rain gets in under the garage door", "weather_seal_damaged"),  # heavy rain: weather, not weight
        ("it's so loud the neighbours complain", "unusual_noise"),  # no noise word
        ("garage door made a weird banging noise then stopped", "banging_noise"),  # a weird bang is a bang
        ("door is really loud", "unusual_noise"),  # the fallback may not turn "loud" into a bang
        ("how much to fix a door that won't close", "wont_close"),  # an enquiry naming what is wrong
        ("la puerta rechinaaa", "unusual_noise"),
        ("el remote no jala", "remote_not_working"),  # Spanglish
        ("la puerta del garage no avre", "wont_open"),  # b for v
    ],
)
async def test_words_in_context(knowledge: Knowledge, text: str, key: str) -> None:
    body = await diagnosed(knowledge, text)
    assert body.get("symptom", {}).get("key") == key, body.get("symptom")


async def test_several_symptoms_are_ranked_and_the_others_listed(knowledge: Knowledge) -> None:
    body = await diagnosed(knowledge, "the door won't close and the remote does nothing, it squeaks too")
    assert body["symptom"]["key"] == "remote_not_working"
    others = [(other["key"], other["matchedText"]) for other in body["otherSymptoms"]]
    assert others == [("wont_close", "won't close"), ("unusual_noise", "squeaks")]
    assert "otherSymptoms" not in await diagnosed(knowledge, "loud bang")  # "loud" is inside the bang


async def test_the_language_is_read_from_the_text_and_hints_only_settle_a_tie(knowledge: Knowledge) -> None:
    assert (await diagnosed(knowledge, "la puerta no cierra", lang="en"))["lang"] == "es"
    assert (await diagnosed(knowledge, "the door won't close", lang="es"))["lang"] == "en"
    tie = "remote"  # a word both languages use
    assert (await diagnosed(knowledge, tie))["lang"] == "en"
    spanish = await diagnosed(knowledge, tie, lang="es-MX")
    assert spanish["lang"] == "es" and spanish["symptom"]["label"] == "El control remoto o el teclado no funciona"
    assert (await call(knowledge, "diagnose", {"description": tie}, languages=("es", "en")))["lang"] == "es"
    nothing = await diagnosed(knowledge, "hola, buenas tardes")
    assert nothing["lang"] == "es" and nothing["hint"].startswith("No pude saber")


async def test_a_bad_lang_hint_is_a_400_naming_the_field(knowledge: Knowledge) -> None:
    from garage_tools.errors import InvalidArguments

    with pytest.raises(InvalidArguments) as raised:
        await diagnosed(knowledge, "door won't close", lang="spanish please")
    assert "lang" in str(raised.value)


async def test_cost_estimate_answers_in_the_language_asked(knowledge: Knowledge) -> None:
    english = await call(knowledge, "costEstimate", {"issueKey": "broken_spring"})
    spanish = await call(knowledge, "costEstimate", {"issueKey": "broken_spring", "lang": "es"})
    assert english["lang"] == "en" and english["issueName"] == "Broken or failing spring"
    assert spanish["lang"] == "es" and spanish["issueName"] == "Resorte roto o fallando"
    assert spanish["covers"].startswith("Poner resorte") and spanish["safetyNote"].startswith("Los resortes")
    assert spanish["urgencyNote"].startswith("Deje de usar") and english["urgencyNote"].startswith("Stop using")
    assert spanish["costRange"] == english["costRange"] and spanish["issueKey"] == "broken_spring"
    seal = await call(knowledge, "costEstimate", {"issueKey": "worn_seal", "lang": "es"})
    assert "safetyNote" not in seal and seal["urgency"] == "routine"  # codes stay English


def test_every_spanish_text_is_there(knowledge: Knowledge) -> None:
    english, spanish = knowledge.language("en"), knowledge.language("es")
    for symptom in spanish.tree.symptoms:
        assert symptom.label not in {s.label for s in english.tree.symptoms}
    for key, issue in spanish.tree.issues.items():
        assert issue.name != knowledge.tree.issues[key].name and issue.description
        assert (issue.safety_note is None) == (knowledge.tree.issues[key].safety_note is None)
        assert spanish.covers[key] != english.covers[key]
    assert set(spanish.tree.urgency_notes) == set(english.tree.urgency_notes) == {"emergency", "soon", "routine"}


@pytest.mark.parametrize(
    ("file", "path"),
    [
        ("texts.es.json", ("issues", "broken_spring", "safetyNote")),
        ("texts.es.json", ("symptoms", "wont_close")),
        ("texts.es.json", ("costs", "worn_seal")),
        ("texts.es.json", ("urgencyNotes", "soon")),
        ("diagnostic_words.es.json", ("exemplars", "loud_grinding")),
    ],
)
def test_a_missing_spanish_text_stops_start_up(tmp_path: Path, file: str, path: tuple[str, ...]) -> None:
    copy = tmp_path / "data"
    shutil.copytree(DATA_DIR, copy)
    data = json.loads((copy / file).read_text(encoding="utf-8"))
    holder = data
    for step in path[:-1]:
        holder = holder[step]
    del holder[path[-1]]
    (copy / file).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(KnowledgeError, match="es"):
        load_knowledge(copy)


def test_accept_language_is_a_hint_over_http(api: httpx.Client) -> None:
    tie = {"description": "keypad"}
    assert api.post("/api/v1/diagnose", json=tie).json()["lang"] == "en"
    spanish = api.post("/api/v1/diagnose", json=tie, headers={"Accept-Language": "es-US,es;q=0.9"}).json()
    assert spanish["lang"] == "es" and spanish["symptom"]["label"].startswith("El control remoto")
    # The text wins over the header.
    english = api.post(
        "/api/v1/diagnose", json={"description": "the door won't close"}, headers={"Accept-Language": "es"}
    ).json()
    assert english["lang"] == "en" and english["symptom"]["label"] == "Door won't close"
