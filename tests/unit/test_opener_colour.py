"""The offline learn-button colour check on generated photos of a motor unit (see opener_photos.py)."""

from __future__ import annotations

import pytest
from PIL import ImageDraw

from garage_tools.imaging.colour import read_learn_button
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.openers import LearnButtonColour
from garage_tools.tools.opener import confidence_level, identify_offline
from tests.unit.opener_photos import PAINTS, motor_unit


@pytest.mark.parametrize("paint", list(PAINTS))
@pytest.mark.parametrize(
    ("size", "light"),
    [((800, 600), 1.0), ((320, 240), 0.55), ((3000, 2000), 1.2), ((600, 900), 0.75)],
    ids=["plain", "small-dim", "large-bright", "portrait"],
)
def test_each_button_colour_is_read(paint: str, size: tuple[int, int], light: float) -> None:
    reading = read_learn_button(motor_unit(paint, size=size, light=light))
    assert reading.colour is PAINTS[paint][1]
    assert [p.colour for p in reading.patches] == [PAINTS[paint][1]]
    assert confidence_level(reading.confidence).value == "high", reading


def test_a_housing_with_no_button_claims_nothing() -> None:
    for photo in (motor_unit(), motor_unit(housing=(232, 222, 200)), motor_unit(noise=40)):  # grey, beige, grainy
        reading = read_learn_button(photo)
        assert reading.colour is None and reading.confidence == 0.0 and reading.patches == ()


@pytest.mark.parametrize("fleck", [1, 4], ids=["pixels", "specks"])
def test_scattered_colour_is_not_a_button(fleck: int) -> None:
    # At the analysis size (no downscale): a quarter of the frame is yellow, in flecks too small to be a button.
    photo = motor_unit(size=(192, 144))
    draw = ImageDraw.Draw(photo)
    for x in range(0, 192, 2 * fleck):
        for y in range(0, 144, 2 * fleck):
            draw.rectangle((x, y, x + fleck - 1, y + fleck - 1), fill=(240, 200, 20))
    reading = read_learn_button(photo)
    assert reading.colour is None and reading.patches == ()
    ImageDraw.Draw(photo).rectangle((80, 60, 100, 80), fill=(240, 200, 20))  # one solid button among them
    assert read_learn_button(photo).colour is LearnButtonColour.YELLOW


def test_a_mode_other_than_rgb_is_read() -> None:
    photo = motor_unit("purple").convert("P")
    assert read_learn_button(photo).colour is LearnButtonColour.PURPLE


def test_confidence_falls_with_size_and_with_a_second_colour() -> None:
    big = read_learn_button(motor_unit("yellow", button=0.3))
    small = read_learn_button(motor_unit("yellow", button=0.1))
    tiny = read_learn_button(motor_unit("yellow", button=0.02))  # a few pixels once downscaled
    two = read_learn_button(motor_unit("yellow", "purple", button=0.25))
    assert big.confidence > small.confidence > two.confidence > tiny.confidence == 0.0
    assert confidence_level(big.confidence).value == "high"
    assert confidence_level(small.confidence).value == "medium"
    assert confidence_level(two.confidence).value == "low"
    assert {p.colour for p in two.patches} == {LearnButtonColour.YELLOW, LearnButtonColour.PURPLE}
    assert big.confidence <= 0.85  # a colour check never claims certainty


def test_a_dominant_colour_beats_a_small_second_one() -> None:
    photo = motor_unit("green", button=0.3)
    ImageDraw.Draw(photo).ellipse((680, 90, 740, 150), fill=PAINTS["red"][0])  # a red lamp, far smaller
    reading = read_learn_button(photo)
    assert reading.colour is LearnButtonColour.GREEN
    alone = read_learn_button(motor_unit("green", button=0.3))
    assert len(reading.patches) == 2 and alone.confidence > reading.confidence > 0.4


@pytest.mark.parametrize(
    ("paint", "slug", "generation", "remote"),
    [
        ("yellow", "chamberlain-security-plus-2-yellow", "Security+ 2.0", "893LM"),
        ("purple", "chamberlain-security-plus-purple", "Security+ (first generation)", "371LM"),
        ("orange", "chamberlain-security-plus-red-orange", "Security+ (first generation)", "971LM"),
        ("green", "chamberlain-billion-code-green", "Billion Code", "890MAX"),
    ],
)
def test_the_colour_leads_to_the_generation_in_the_knowledge_base(
    knowledge: Knowledge, paint: str, slug: str, generation: str, remote: str
) -> None:
    answer = identify_offline(knowledge.openers, read_learn_button(motor_unit(paint)))
    assert answer.identified and answer.slug == slug and answer.generation == generation
    assert answer.family_brands == ["LiftMaster", "Chamberlain", "Craftsman"]
    assert remote in [r.model for r in answer.compatible_remotes]
    assert answer.model is None  # a colour tells the generation, never the model
    assert answer.method == "offline-colour"


def test_two_colours_name_the_runner_up(knowledge: Knowledge) -> None:
    answer = identify_offline(knowledge.openers, read_learn_button(motor_unit("purple", "yellow")))
    assert answer.confidence_level.value == "low"
    assert {answer.learn_button_color, *(a.learn_button_color for a in answer.alternatives)} == {
        LearnButtonColour.PURPLE,
        LearnButtonColour.YELLOW,
    }
    assert any("learn button" in step for step in answer.next_steps)  # what to photograph instead


def test_no_colour_gives_no_brand_and_advice(knowledge: Knowledge) -> None:
    answer = identify_offline(knowledge.openers, read_learn_button(motor_unit()))
    assert not answer.identified and answer.brand is None and answer.slug is None
    assert answer.confidence == 0.0 and answer.confidence_level.value == "low"
    assert answer.compatible_remotes == [] and answer.frequencies_mhz == []
    advice = " ".join(answer.next_steps)
    assert "back or side panel" in advice and "light lens" in advice and "fills" in advice
