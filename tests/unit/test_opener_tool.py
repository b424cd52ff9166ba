"""identifyOpener through invoke(): the key it needs, the offline answer, and the answer through a vision model.

The vision model here is a stand-in for a provider client (the `VisionModel` protocol): it records what
it was asked and replies with a fixed sighting, so these tests can check what the tool makes of a
model's answer. The real clients are tested against fake provider servers elsewhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from garage_tools.access.caller import Caller, Tier
from garage_tools.errors import AuthRequired, ImageMissing, ImageTypeMismatch, InvalidArguments, ProviderUnavailable
from garage_tools.imaging.decode import ImageInput, decode_image
from garage_tools.knowledge.data_files import DATA_DIR
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.openers import LearnButtonColour, OpenerCatalog
from garage_tools.registry import ToolContext, dump, invoke
from garage_tools.tools import build_registry
from garage_tools.tools.opener.tool import IdentifyOpenerOutput, OpenerSighting, identify
from tests.tool_data import unopened_data
from tests.unit.opener_photos import encoded, motor_unit, scene

DATA = unopened_data()  # real stores no handler here opens

REGISTRY = build_registry()
PRO = Caller(tier=Tier.PRO, surface="test", key_id="k1")
M = TypeVar("M", bound=BaseModel)


def context(knowledge: Knowledge, caller: Caller = PRO) -> ToolContext:
    return ToolContext(knowledge=knowledge, caller=caller, base_url="https://doors.example.com", data=DATA)


async def call(knowledge: Knowledge, arguments: dict[str, Any], caller: Caller = PRO) -> IdentifyOpenerOutput:
    result = await invoke(REGISTRY, "identifyOpener", arguments, context(knowledge, caller))
    assert isinstance(result, IdentifyOpenerOutput)
    return result


async def test_an_anonymous_caller_needs_a_key(knowledge: Knowledge) -> None:
    with pytest.raises(AuthRequired) as refused:
        await call(knowledge, {"image": encoded(motor_unit("yellow"))}, Caller.anonymous("rest", "203.0.113.9"))
    assert refused.value.status == 401 and refused.value.code == "auth_required"


async def test_a_yellow_learn_button_is_security_plus_2_in_the_liftmaster_family(knowledge: Knowledge) -> None:
    answer = dump(await call(knowledge, {"image": encoded(motor_unit("yellow"), "JPEG")}))
    assert answer["identified"] is True
    assert answer["learnButtonColor"] == "yellow" and answer["generation"] == "Security+ 2.0"
    assert answer["slug"] == "chamberlain-security-plus-2-yellow"
    assert answer["brand"] == "LiftMaster / Chamberlain / Craftsman"
    assert answer["familyBrands"][0] == "LiftMaster"
    assert answer["frequenciesMhz"] == [310, 315, 390] and answer["years"]["first"] == 2011
    assert [r["model"] for r in answer["compatibleRemotes"]] == ["891LM", "893LM", "893MAX", "895MAX"]
    assert answer["method"] == "offline-colour"
    assert answer["confidenceLevel"] == "high" and 0.7 <= answer["confidence"] <= 0.85
    assert "model" not in answer  # the colour does not tell the model; nothing is made up
    assert any("once" in step and "893MAX" in step for step in answer["nextSteps"])


async def test_a_yellow_button_in_a_real_garage_is_security_plus_2(knowledge: Knowledge) -> None:
    # Issue 10's "done when": a phone-sized JPEG of the unit between wooden joists, beside its light lens and
    # yellow antenna wire. The joists are the largest vivid area in the photo; the button must still win.
    answer = dump(await call(knowledge, {"image": encoded(scene("garage", size=(1600, 1200)), "JPEG")}))
    assert answer["learnButtonColor"] == "yellow" and answer["generation"] == "Security+ 2.0"
    assert answer["slug"] == "chamberlain-security-plus-2-yellow" and answer["alternatives"] == []
    assert answer["confidenceLevel"] == "high"


async def test_a_photo_without_a_button_is_low_confidence_with_photo_advice(knowledge: Knowledge) -> None:
    answer = dump(await call(knowledge, {"image": encoded(motor_unit())}))
    assert answer["identified"] is False and answer["confidence"] == 0 and answer["confidenceLevel"] == "low"
    assert "brand" not in answer and "slug" not in answer and answer["compatibleRemotes"] == []
    assert any("learn button" in step for step in answer["nextSteps"])


async def test_image_problems_are_4xx_with_their_own_codes(knowledge: Knowledge) -> None:
    with pytest.raises(ImageMissing) as missing:
        await call(knowledge, {})
    assert missing.value.status == 400
    photo = encoded(motor_unit("green"))
    with pytest.raises(ImageTypeMismatch):
        await call(knowledge, {"image": {**photo, "mimeType": "image/jpeg"}})
    with pytest.raises(InvalidArguments):
        await call(knowledge, {"image": photo, "brand": "LiftMaster"})


# --- through a vision model ----------------------------------------------------------------


@dataclass
class StandInVision:
    """Answers every photo with `reply` (or raises `error`), recording what it was asked."""

    reply: dict[str, Any]
    name: str = "stand-in:vision-1"
    error: Exception | None = None
    asked: list[dict[str, Any]] = field(default_factory=list)

    async def analyse_json(self, *, system: str, prompt: str, image: bytes, mime_type: str, schema: type[M]) -> M:
        self.asked.append({"system": system, "prompt": prompt, "image": image, "mimeType": mime_type})
        if self.error is not None:
            raise self.error
        return schema.model_validate(self.reply)


async def through(catalog: OpenerCatalog, vision: StandInVision, *paints: str) -> IdentifyOpenerOutput:
    photo = decode_image(ImageInput.model_validate(encoded(motor_unit(*paints))))
    return await identify(catalog, photo, vision)


async def test_the_model_reads_the_label_and_the_knowledge_base_supplies_the_rest(knowledge: Knowledge) -> None:
    vision = StandInVision(
        {"learnButtonColor": "yellow", "brandText": "LiftMaster", "modelText": "87504", "confidence": 0.9}
    )
    answer = await through(knowledge.openers, vision, "yellow")
    assert answer.method == "stand-in:vision-1" and answer.brand == "LiftMaster" and answer.model == "87504"
    assert answer.generation == "Security+ 2.0" and answer.confidence == 0.9 and answer.confidence_level.value == "high"
    assert "893MAX" in [r.model for r in answer.compatible_remotes]
    asked = vision.asked[0]
    assert asked["mimeType"] == "image/png" and asked["image"].startswith(b"\x89PNG")
    assert "learn" in asked["prompt"] and "Genie" in asked["prompt"]


async def test_the_models_reply_schema_is_ours(knowledge: Knowledge) -> None:
    schema = OpenerSighting.model_json_schema(by_alias=True)
    assert {"learnButtonColor", "brandText", "modelText", "confidence"} <= set(schema["properties"])
    assert OpenerSighting.model_validate(
        {"learnButtonColor": "Orange", "confidence": 0.5}
    ).learn_button_color.value == ("red-orange")


async def test_a_model_that_disagrees_with_the_photo_loses_confidence(knowledge: Knowledge) -> None:
    vision = StandInVision({"learnButtonColor": "purple", "confidence": 0.9})
    answer = await through(knowledge.openers, vision, "yellow")
    assert answer.learn_button_color is LearnButtonColour.PURPLE  # the model's reading is the answer...
    assert answer.confidence == 0.54 and any("saw yellow" in note for note in answer.notes)  # ...but doubted


async def test_a_brand_outside_the_colour_scheme_ignores_the_colour(knowledge: Knowledge) -> None:
    vision = StandInVision({"learnButtonColor": "yellow", "brandText": "GENIE", "confidence": 0.8})
    answer = await through(knowledge.openers, vision, "yellow")
    assert answer.brand == "Genie" and answer.slug == "genie" and answer.generation is None
    assert answer.compatible_remotes == [] and any("Intellicode" in step for step in answer.next_steps)


async def test_nothing_recognisable_claims_nothing(knowledge: Knowledge) -> None:
    vision = StandInVision(
        {"learnButtonColor": "none", "brandText": " ", "modelText": "a blurry ceiling!", "confidence": 0.7}
    )
    answer = await through(knowledge.openers, vision)
    assert not answer.identified and answer.brand is None and answer.model is None
    assert answer.confidence == 0 and answer.confidence_level.value == "low"
    assert any("light lens" in step for step in answer.next_steps)


async def test_unverified_and_dip_switch_sightings(knowledge: Knowledge) -> None:
    white = await through(knowledge.openers, StandInVision({"learnButtonColor": "white", "confidence": 0.95}))
    assert white.slug == "chamberlain-white-button" and white.confidence_level.value == "low"
    dip = await through(
        knowledge.openers, StandInVision({"learnButtonColor": "none", "dipSwitchesVisible": True, "confidence": 0.8})
    )
    assert dip.slug == "chamberlain-dip-switch" and any("photo-eye" in note for note in dip.notes)


async def test_a_provider_outage_is_the_documented_503(knowledge: Knowledge) -> None:
    vision = StandInVision({}, error=ProviderUnavailable("the model is away", retry_after=7))
    with pytest.raises(ProviderUnavailable) as outage:
        await through(knowledge.openers, vision, "yellow")
    assert outage.value.status == 503 and outage.value.headers["Retry-After"] == "7"


# --- the data file -------------------------------------------------------------------------


def test_the_schema_file_is_current() -> None:
    on_disk = json.loads((DATA_DIR / "schemas" / "openers.schema.json").read_text())
    expected = OpenerCatalog.model_json_schema(by_alias=True)
    expected["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    expected.setdefault("properties", {})["$schema"] = {"type": "string"}
    assert on_disk == expected, "run `garage-tools knowledge schemas` to refresh openers.schema.json"


def test_a_broken_knowledge_base_is_refused() -> None:
    raw = json.loads((DATA_DIR / "openers.json").read_text())
    raw.pop("$schema")
    OpenerCatalog.model_validate(raw)
    twice = {**raw, "learnButtons": [*raw["learnButtons"], {**raw["learnButtons"][0], "slug": "another-yellow"}]}
    with pytest.raises(ValueError, match="only once"):
        OpenerCatalog.model_validate(twice)
    orphan = {**raw, "learnButtons": [{**raw["learnButtons"][0], "family": "nobody"}]}
    with pytest.raises(ValueError, match="unknown family"):
        OpenerCatalog.model_validate(orphan)
