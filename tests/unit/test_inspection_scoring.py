"""The 24-point checklist, submitInspection's validation, the scoring algorithm and the next step (no I/O)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from pydantic import ValidationError

from garage_tools.errors import InvalidArguments
from garage_tools.knowledge.checklist import SPEC_ITEM_IDS, InspectionChecklist
from garage_tools.knowledge.data_files import DATA_DIR
from garage_tools.knowledge.loader import Knowledge
from garage_tools.registry import parse_arguments
from garage_tools.tools import build_registry
from garage_tools.tools.inspection.models import ItemReport, LocalPro, NextStepAction, Scorecard
from garage_tools.tools.inspection.next_step import next_step
from garage_tools.tools.inspection.scoring import score_inspection

TOOL = build_registry().get("submitInspection")
PHOTO_IDS = {"springs", "cables", "drums", "bottom-seal", "photo-eyes", "motorhead", "wall-button", "remotes", "keypad"}


def body(**changes: Any) -> dict[str, Any]:
    valid: dict[str, Any] = {
        "recipient": {"email": "alex@example.com", "zip": "94110", "name": "Alex Rivera"},
        "consent": {"marketing": False, "contactShare": True},
        "items": {"springs": {"status": "ok"}},
    }
    return {**valid, **changes}


def refusal(arguments: dict[str, Any]) -> InvalidArguments:
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(TOOL, arguments)
    return caught.value


def statuses(knowledge: Knowledge, default: str = "ok", **overrides: str) -> dict[str, ItemReport]:
    """Every item at `default`, except those named (underscores for dashes)."""
    chosen = {item.id: default for item in knowledge.checklist.items}
    chosen |= {key.replace("_", "-"): status for key, status in overrides.items()}
    return {item_id: ItemReport.model_validate({"status": status}) for item_id, status in chosen.items()}


# --- the checklist ----------------------------------------------------------------------------


def test_the_checklist_has_24_items_starting_with_the_specifications_eight(knowledge: Knowledge) -> None:
    ids = knowledge.checklist.ids
    assert len(ids) == 24 == len(set(ids))
    assert tuple(ids[:8]) == SPEC_ITEM_IDS
    assert set(ids) >= PHOTO_IDS
    for item in knowledge.checklist.items:
        assert item.label and item.look_for and item.watch_advice and item.fix_advice and 1 <= item.weight <= 5
    by_id = {item.id: item for item in knowledge.checklist.items}
    assert all(by_id[i].safety_critical for i in ("springs", "cables", "drums", "photo-eyes", "auto-reverse"))
    assert not by_id["bottom-seal"].safety_critical
    assert {i for i in ids if by_id[i].reference_photo_item == i} == PHOTO_IDS


def test_a_checklist_that_breaks_the_published_ids_does_not_load() -> None:
    raw = json.loads((DATA_DIR / "inspection_items.json").read_text(encoding="utf-8"))
    raw.pop("$schema")
    InspectionChecklist.model_validate(raw)
    swapped = copy.deepcopy(raw)
    swapped["items"][0], swapped["items"][1] = swapped["items"][1], swapped["items"][0]
    with pytest.raises(ValidationError, match="specification's items"):
        InspectionChecklist.model_validate(swapped)
    short = copy.deepcopy(raw)
    del short["items"][-1]
    with pytest.raises(ValidationError):
        InspectionChecklist.model_validate(short)
    unordered = copy.deepcopy(raw)
    unordered["scoring"]["grades"][0]["minScore"] = 50
    with pytest.raises(ValidationError, match="minScore"):
        InspectionChecklist.model_validate(unordered)


def test_the_input_schema_lists_the_24_item_ids(knowledge: Knowledge) -> None:
    schema = TOOL.input_model.model_json_schema(by_alias=True)
    items = schema["properties"]["items"]
    assert items["propertyNames"]["enum"] == knowledge.checklist.ids
    assert items["minProperties"] == 1
    assert set(schema["required"]) == {"recipient", "consent", "items"}


# --- validation, as the specification's table says ------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        (body(recipient={"email": "not-an-address", "zip": "94110"}), "recipient.email"),
        (body(recipient={"email": "a@localhost", "zip": "94110"}), "recipient.email"),
        (body(recipient={"email": "a b@example.com", "zip": "94110"}), "recipient.email"),
        (body(recipient={"email": ".alex@example.com", "zip": "94110"}), "recipient.email"),
        (body(recipient={"email": "alex..r@example.com", "zip": "94110"}), "recipient.email"),
        (body(recipient={"email": "x" * 65 + "@example.com", "zip": "94110"}), "recipient.email"),
        (body(recipient={"email": "alex@example.com\n", "zip": "94110"}), "recipient.email"),
        (body(recipient={"email": "alex@example.com", "zip": "9411"}), "recipient.zip"),
        (body(recipient={"email": "alex@example.com", "zip": "941100"}), "recipient.zip"),
        (body(recipient={"email": "alex@example.com", "zip": "94-10"}), "recipient.zip"),
        (body(recipient={"email": "alex@example.com"}), "recipient.zip"),
        (body(recipient={"zip": "94110"}), "recipient.email"),
        (body(consent={"marketing": False}), "consent.contactShare"),
        (body(consent={"contactShare": True}), "consent.marketing"),
        (body(consent={"marketing": "no", "contactShare": True}), "consent.marketing"),
        (body(items={"springs": {"status": "broken"}}), "items.springs.status"),
        (body(items={"springs": {"note": "no status"}}), "items.springs.status"),
        (body(items={"springs": {"status": "ok", "note": "x" * 501}}), "items.springs.note"),
        (body(items={}), "items"),
        (body(notes="x" * 2001), "notes"),
        (body(door={"colour": "red"}), "door.colour"),
        (body(emailReport="yes"), "emailReport"),
        ({"consent": {"marketing": False, "contactShare": False}, "items": {"springs": {"status": "ok"}}}, "recipient"),
    ],
)
def test_invalid_submissions_are_400s_naming_the_field(arguments: dict[str, Any], field: str) -> None:
    problem = refusal(arguments)
    assert problem.status == 400 and problem.code == "invalid_arguments"
    assert problem.details is not None
    assert field in [detail.field for detail in problem.details], problem.message


def test_unknown_item_ids_are_named_together() -> None:
    problem = refusal(body(items={"springs": {"status": "ok"}, "flux-capacitor": {"status": "fix"}, "wheels": {}}))
    assert problem.details is not None and [d.field for d in problem.details] == ["items"]
    assert "flux-capacitor, wheels" in problem.message and "Valid ids: springs, drums" in problem.message


def test_a_full_valid_submission_is_accepted() -> None:
    parsed = parse_arguments(
        TOOL,
        body(
            recipient={"email": "o'brien+door@mail.example.co.uk", "zip": "02134", "name": "Ó Briain"},
            door={"size": "16x7", "yearInstalled": "2009", "motorBrand": "Genie"},
            items={"springs": {"status": "ok", "note": "x" * 500}, "keypad": {"status": "fix", "note": None}},
            notes="y" * 2000,
            emailReport=True,
        ),
    )
    assert parsed.email_report is True and set(parsed.items) == {"springs", "keypad"}


# --- scoring ----------------------------------------------------------------------------------


def test_all_ok_is_an_a_with_nothing_flagged(knowledge: Knowledge) -> None:
    card = score_inspection(knowledge.checklist, statuses(knowledge))
    assert (card.score, card.grade, card.flagged_items) == (100, "A", [])
    assert card.completeness.percent == 100 and card.completeness.not_inspected == []


def test_weights_decide_how_much_a_worn_item_costs(knowledge: Knowledge) -> None:
    # The weights add up to 72. A watch earns half its weight: the seal (1) costs 0.5, the track (4) costs 2.
    assert score_inspection(knowledge.checklist, statuses(knowledge, bottom_seal="watch")).score == 99  # 71.5/72
    assert score_inspection(knowledge.checklist, statuses(knowledge, hinges="watch", rollers="watch")).score == 97


@pytest.mark.parametrize(
    ("overrides", "score", "grade"),
    [
        ({"rollers": "fix"}, 74, "C"),  # 70/72 = 97, but a fix caps at 74
        ({"cables": "watch"}, 89, "B"),  # 69.5/72 = 97, but a safety-critical watch caps at 89
        ({"springs": "fix"}, 39, "F"),  # a safety-critical fix: unsafe until repaired
        ({"auto_reverse": "fix", "bottom_seal": "watch"}, 39, "F"),
    ],
)
def test_caps_keep_a_good_average_from_hiding_a_hazard(
    knowledge: Knowledge, overrides: dict[str, str], score: int, grade: str
) -> None:
    card = score_inspection(knowledge.checklist, statuses(knowledge, **overrides))
    assert (card.score, card.grade) == (score, grade)


def test_low_scores_fall_through_the_grade_bands(knowledge: Knowledge) -> None:
    watch_all = score_inspection(knowledge.checklist, statuses(knowledge, default="watch"))
    assert (watch_all.score, watch_all.grade) == (50, "D")
    fix_all = score_inspection(knowledge.checklist, statuses(knowledge, default="fix"))
    assert (fix_all.score, fix_all.grade) == (0, "F")


def test_items_not_submitted_lower_completeness_not_the_score(knowledge: Knowledge) -> None:
    items = {
        "springs": ItemReport.model_validate({"status": "ok"}),
        "hinges": ItemReport.model_validate({"status": "ok"}),
    }
    card = score_inspection(knowledge.checklist, items)
    assert (card.score, card.grade) == (100, "A")
    assert (card.completeness.inspected, card.completeness.total, card.completeness.percent) == (2, 24, 8)
    assert "balance" in card.completeness.safety_critical_not_inspected
    assert "keypad" not in card.completeness.safety_critical_not_inspected
    assert "2 of 24 items inspected" in card.summary and "Safety checks still to do" in card.summary
    assert [r.status.value for r in card.items].count("not_inspected") == 22


def test_flagged_items_come_most_urgent_first_with_guidance_and_photo_links(knowledge: Knowledge) -> None:
    card = score_inspection(
        knowledge.checklist,
        statuses(
            knowledge,
            remotes="watch",  # routine
            rollers="fix",  # soon (fix, weight 2)
            cables="watch",  # soon (safety watch)
            springs="fix",  # emergency
            limits_and_force="fix",  # soon (fix, weight 3)
            photo_eyes="fix",  # emergency (weight 5, after springs in checklist order)
        ),
    )
    order = [(flag.item_id, flag.urgency.value) for flag in card.flagged_items]
    assert order == [
        ("springs", "emergency"),
        ("photo-eyes", "emergency"),
        ("limits-and-force", "soon"),
        ("rollers", "soon"),
        ("cables", "soon"),
        ("remotes", "routine"),
    ]
    springs, cables = card.flagged_items[0], card.flagged_items[4]
    assert springs.guidance.startswith("A broken or gapped spring") and springs.diy_risk.value == "unsafe"
    assert cables.guidance.startswith("Light surface rust")  # watch advice for a watch
    assert springs.reference_photos is not None and springs.reference_photos.item_id == "springs"
    assert springs.reference_photos.tool == "getInspectionReferencePhotos"
    assert springs.reference_photos.severity == "FIX"  # the pictures that look like the homeowner's answer
    assert card.flagged_items[4].reference_photos and card.flagged_items[4].reference_photos.severity == "WATCH"
    assert springs.issue_key == "broken_spring"


# --- the next step ----------------------------------------------------------------------------


def card_with(knowledge: Knowledge, **overrides: str) -> Scorecard:
    return score_inspection(knowledge.checklist, statuses(knowledge, **overrides))


def test_a_safety_fix_says_stop_and_routes_a_hot_lead(knowledge: Knowledge) -> None:
    step = next_step(card_with(knowledge, springs="fix", rollers="watch"), "94110", contact_share=False)
    assert step.action is NextStepAction.CALL_A_PRO_NOW and step.text.startswith("Stop using the door")
    assert step.tool == "routeByZip" and step.arguments is not None  # for agents, beside the words
    assert (step.arguments.zip_or_location, step.arguments.issue, step.arguments.lead_heat) == (
        "94110",
        "broken_spring",
        "hot",
    )
    assert "torsion or extension springs" in step.text and "rollers" not in step.text  # a watch is no reason to stop
    assert "Call a trained garage door technician near you." in step.text  # no directory here: no pro named
    for machine_word in ("routeByZip", "getInspectionReferencePhotos", "issue", "leadHeat", "94110"):
        assert machine_word not in step.text
    assert step.contact_shared is False


def test_stop_using_the_door_names_only_the_urgent_items(knowledge: Knowledge) -> None:
    # The issue's example: extension-spring containment is urgent; remotes, hinges and the lock are marked Fix too.
    card = card_with(knowledge, spring_safety_cables="fix", remotes="fix", hinges="fix", lock_and_handles="fix")
    step = next_step(card, "84770", contact_share=False)
    stop, repair, yours, *_ = step.text.split(". ")
    assert stop == (
        "Stop using the door until a trained technician has fixed the problem you found with the spring "
        "containment (extension springs): this part holds the door's weight or keeps people safe"
    )
    assert repair == "Also have the technician repair the hinges"  # a pro's job, but no reason to stop
    assert yours == (
        "You can fix the handles and manual lock, and the remote controls yourself: follow the guidance given for each"
    )


def test_several_urgent_items_and_wordy_labels_read_as_one_list(knowledge: Knowledge) -> None:
    card = card_with(knowledge, cables="fix", torsion_shaft="fix", photo_eyes="fix", motorhead="fix")
    text = next_step(card, "84770", contact_share=False).text
    assert text.startswith(
        "Stop using the door until a trained technician has fixed the problems you found with the lift cables; "
        "the photo-eye safety sensors; and the torsion shaft, bearings and spring anchor: these parts hold the "
        "door's weight or keep people safe. Also have the technician repair the opener motor unit and drive."
    )
    book = next_step(card_with(knowledge, rollers="fix", hinges="fix"), "84770", contact_share=False).text
    assert book.startswith("Book a technician to repair the rollers and the hinges.")


def test_the_next_step_names_the_local_pro_and_what_they_were_told(knowledge: Knowledge) -> None:
    card = card_with(knowledge, track="fix")
    sent = LocalPro(
        name="Red Rock Garage Door Co.",
        phone="(435) 555-0101",
        booking_url="https://red-rock.example.com/book",
        partner_id="red-rock",
        contact_details_sent=True,
    )
    with_consent = next_step(card, "84770", contact_share=True, local_pro=sent)
    assert "Red Rock Garage Door Co. serves your area: call (435) 555-0101 or book online." in with_consent.text
    assert "we have sent them your name, e-mail address and this report" in with_consent.text
    assert with_consent.local_pro == sent and with_consent.contact_shared is True

    kept = sent.model_copy(update={"contact_details_sent": False})
    without = next_step(card, "84770", contact_share=False, local_pro=kept)
    assert "Red Rock Garage Door Co. serves your area" in without.text
    assert "We have not passed on your details: they hear from you only if you get in touch." in without.text

    nearest = kept.model_copy(update={"covered": False})
    far = next_step(card, "94110", contact_share=True, local_pro=nearest).text
    assert "No partner of ours serves your area yet. The nearest is Red Rock Garage Door Co." in far
    assert "ask whether they come out that far" in far and "We have not passed on your details." in far


def test_other_outcomes(knowledge: Knowledge) -> None:
    book = next_step(card_with(knowledge, motorhead="fix"), "94110", contact_share=False)
    assert book.action is NextStepAction.BOOK_A_PRO and book.arguments and book.arguments.issue == "opener_failure"
    assert book.text.startswith("Book a technician to repair the opener motor unit and drive.")
    diy = next_step(card_with(knowledge, bottom_seal="fix", remotes="watch"), "94110", contact_share=True)
    assert diy.action is NextStepAction.DO_IT_YOURSELF and diy.arguments is None
    assert diy.text == (
        "You can fix the bottom seal and weatherstripping yourself: follow the guidance given for each, "
        "then inspect again."
    )
    watch = next_step(card_with(knowledge, hinges="watch"), "94110", contact_share=False)
    assert watch.action is NextStepAction.KEEP_AN_EYE and watch.arguments and watch.arguments.lead_heat == "cold"
    assert "the hinges" in watch.text and watch.local_pro is None
    fine = next_step(card_with(knowledge), "94110", contact_share=True)
    assert fine.action is NextStepAction.ROUTINE_CARE and fine.tool is None
