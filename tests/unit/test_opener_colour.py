"""The offline learn-button colour check on generated photos of a motor unit (see opener_photos.py)."""

from __future__ import annotations

import pytest
from PIL import ImageDraw

from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.openers import LearnButtonColour
from garage_tools.tools.opener.colour import read_learn_button
from garage_tools.tools.opener.tool import confidence_level, identify_offline
from tests.unit.opener_photos import PAINTS, WOOD, motor_unit, scene


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


@pytest.mark.parametrize(
    "shape",
    [
        [(320, 220), (480, 380)],  # round
        [(290, 240), (510, 360)],  # round, seen at a slant
        [(400, 190), (490, 280), (400, 370), (310, 280)],  # square, turned 45 degrees
    ],
    ids=["round", "slanted", "tilted-square"],
)
def test_round_slanted_and_tilted_buttons_are_still_buttons(shape: list[tuple[int, int]]) -> None:
    photo = motor_unit()
    draw = ImageDraw.Draw(photo)
    (draw.polygon if len(shape) > 2 else draw.ellipse)(shape, fill=PAINTS["green"][0])
    reading = read_learn_button(photo)
    assert reading.colour is LearnButtonColour.GREEN and confidence_level(reading.confidence).value != "low", reading


# --- what a colour check must not take for a button (a reviewer's probes, drawn in opener_photos.scene) ----


@pytest.mark.parametrize(
    ("name", "button", "distractor"),
    [
        ("joist", LearnButtonColour.YELLOW, LearnButtonColour.RED_ORANGE),  # a long strip of wood
        ("hand", LearnButtonColour.PURPLE, LearnButtonColour.RED_ORANGE),  # skin: too dull for button plastic
        ("label", LearnButtonColour.RED_ORANGE, LearnButtonColour.YELLOW),  # printed on, and larger than the button
        ("wall", None, LearnButtonColour.YELLOW),  # the whole frame
    ],
)
def test_wood_skin_a_label_or_a_wall_is_not_a_button(
    name: str, button: LearnButtonColour | None, distractor: LearnButtonColour
) -> None:
    reading = read_learn_button(scene(name))
    assert reading.colour is button, reading
    assert distractor not in [patch.colour for patch in reading.patches]  # not even a runner-up
    if button is None:
        assert reading.confidence == 0.0 and [p.colour for p in reading.set_aside] == [LearnButtonColour.YELLOW]
    else:
        assert confidence_level(reading.confidence).value == "high"  # the real button, in its housing


def test_a_cord_across_the_frame_is_not_a_button() -> None:
    photo = motor_unit("yellow", button=0.2)  # a green extension cord running corner to corner, in front
    ImageDraw.Draw(photo).line((60, 40, 760, 580), fill=PAINTS["green"][0], width=24)
    reading = read_learn_button(photo)
    assert reading.colour is LearnButtonColour.YELLOW and [p.colour for p in reading.patches] == [reading.colour]
    assert [p.colour for p in reading.set_aside] == [LearnButtonColour.GREEN]


def test_a_button_colour_with_no_housing_around_it_rests_on_colour_alone() -> None:
    photo = scene("wall")  # a yellow square on a wooden joist: a sticker or a toy as much as a button
    draw = ImageDraw.Draw(photo)
    draw.rectangle((0, 150, 800, 450), fill=WOOD[1])
    draw.rectangle((340, 240, 460, 360), fill=PAINTS["yellow"][0])
    reading = read_learn_button(photo)
    assert reading.colour is LearnButtonColour.YELLOW and reading.colour_only
    assert confidence_level(reading.confidence).value == "low"
    housed = read_learn_button(motor_unit("yellow", button=0.2))
    assert not housed.colour_only and confidence_level(housed.confidence).value == "high"


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
    other = answer.alternatives[0].learn_button_color.value
    assert any(other in note and "less certain" in note for note in answer.notes)
    assert answer.next_steps[0].startswith("Photograph only the learn button") and other in answer.next_steps[0]


def test_the_answer_says_why_a_colour_was_set_aside_or_doubted(knowledge: Knowledge) -> None:
    wall = identify_offline(knowledge.openers, read_learn_button(scene("wall")))
    assert not wall.identified and wall.confidence == 0.0
    assert any("yellow areas" in note and "not taken for a learn button" in note for note in wall.notes)
    label = identify_offline(knowledge.openers, read_learn_button(scene("label")))
    assert label.learn_button_color is LearnButtonColour.RED_ORANGE and label.alternatives == []
    assert any("yellow areas" in note for note in label.notes)
    photo = scene("wall")
    ImageDraw.Draw(photo).rectangle((340, 240, 460, 360), fill=PAINTS["purple"][0])
    alone = identify_offline(knowledge.openers, read_learn_button(photo))
    assert alone.learn_button_color is LearnButtonColour.PURPLE and alone.confidence_level.value == "low"
    assert any("only its colour" in note for note in alone.notes)
    assert alone.next_steps[0].startswith("Retake the photo with the button and some of the motor unit's housing")


def test_no_colour_gives_no_brand_and_advice(knowledge: Knowledge) -> None:
    answer = identify_offline(knowledge.openers, read_learn_button(motor_unit()))
    assert not answer.identified and answer.brand is None and answer.slug is None
    assert answer.confidence == 0.0 and answer.confidence_level.value == "low"
    assert answer.compatible_remotes == [] and answer.frequencies_mhz == []
    advice = " ".join(answer.next_steps)
    assert "back or side panel" in advice and "light lens" in advice and "fills" in advice
