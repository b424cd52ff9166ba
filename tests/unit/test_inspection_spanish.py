"""The 24-point inspection in Spanish, without I/O: the checklist's words from texts.es.json (complete, or start-up
stops), a report scored in Spanish (labels, advice, grade label, summary, next step) with its codes left English,
and its e-mail in Spanish."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError
from garage_tools.knowledge.loader import Knowledge, load_knowledge
from garage_tools.knowledge.photos import packaged_photo_library
from garage_tools.tools.inspection.mail import report_mail
from garage_tools.tools.inspection.models import InspectionReport, ItemReport, LocalPro
from garage_tools.tools.inspection.next_step import next_step
from garage_tools.tools.inspection.report import reading
from garage_tools.tools.inspection.scoring import score_inspection

#: English a Spanish report, its next step or its e-mail must not show.
ENGLISH = ("Stop using", "Grade", "to fix", "Torsion", "technician", "Your local pro", "serves your area", "Hello")


def answers(**statuses: str) -> dict[str, ItemReport]:
    return {key.replace("_", "-"): ItemReport.model_validate({"status": s}) for key, s in statuses.items()}


def test_the_spanish_checklist_has_its_own_words_and_the_same_ids_weights_and_flags(knowledge: Knowledge) -> None:
    english, spanish = knowledge.language("en").checklist, knowledge.language("es").checklist
    assert english is knowledge.checklist
    assert spanish.ids == english.ids
    for en, es in zip(english.items, spanish.items, strict=True):
        assert (es.weight, es.safety_critical, es.under_tension, es.hands_on, es.diy_risk, es.issue_key) == (
            en.weight,
            en.safety_critical,
            en.under_tension,
            en.hands_on,
            en.diy_risk,
            en.issue_key,
        )
        for field in ("label", "look_for", "watch_advice", "fix_advice"):
            assert getattr(es, field) and getattr(es, field) != getattr(en, field), (en.id, field)
    assert [b.min_score for b in spanish.scoring.grades] == [b.min_score for b in english.scoring.grades]
    assert all(es.label != en.label for es, en in zip(spanish.scoring.grades, english.scoring.grades, strict=True))
    assert len({item.area for item in spanish.items}) == len({item.area for item in english.items}) == 3
    by_id = {item.id: item for item in spanish.items}
    assert by_id["photo-eyes"].label == "Sensores de seguridad (fotoceldas)"
    # The safety meaning survives the translation: parts under tension are not to be touched or run.
    assert "no use el abridor ni levante la puerta" in by_id["springs"].fix_advice
    assert "No lo toque ni lo ajuste" in by_id["springs"].watch_advice


def _without(tmp_path: Path, *path: str) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(DATA_DIR, copy)
    texts = copy / "texts.es.json"
    data = json.loads(texts.read_text(encoding="utf-8"))
    holder = data
    for step in path[:-1]:
        holder = holder[step]
    del holder[path[-1]]
    texts.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return copy


@pytest.mark.parametrize(
    ("path", "named"),
    [
        (("inspection", "items", "cables"), "inspection item cables"),
        (("inspection", "grades", "F"), "grade F"),
    ],
)
def test_a_missing_inspection_text_stops_start_up(tmp_path: Path, path: tuple[str, ...], named: str) -> None:
    with pytest.raises(KnowledgeError, match=named):
        load_knowledge(_without(tmp_path, *path))


def test_one_english_area_must_have_one_spanish_name(tmp_path: Path) -> None:
    copy = _without(tmp_path, "lang")  # put back below: only the area changes
    texts = copy / "texts.es.json"
    data = json.loads(texts.read_text(encoding="utf-8"))
    data["lang"] = "es"
    data["inspection"]["items"]["cables"]["area"] = "Cables"
    texts.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(KnowledgeError, match="one name for the area 'Springs and cables'"):
        load_knowledge(copy)


def test_a_report_scored_in_spanish_reads_spanish_and_keeps_its_codes(knowledge: Knowledge) -> None:
    spanish = knowledge.language("es")
    card = score_inspection(spanish.checklist, answers(springs="fix", remotes="fix", hinges="watch"), "es")
    assert card.lang == "es" and card.grade == "F"
    assert card.grade_label == "No es segura hasta que la reparen: deje de usar la puerta y llame a un técnico."
    assert card.summary.startswith("Calificación F (")
    assert "por reparar" in card.summary and "Revisiones de seguridad que faltan: tambores" in card.summary
    springs = card.flagged_items[0]
    assert (springs.item_id, springs.status.value, springs.urgency.value) == ("springs", "fix", "emergency")
    assert springs.label == "Resortes de torsión o de extensión" and springs.area == "Resortes y cables"
    assert springs.guidance.startswith("Un resorte roto")

    pro = LocalPro(name="Red Rock Doors", phone="(435) 555-0102", partner_id="red-rock", contact_details_sent=True)
    step = next_step(card, "84770", True, pro)
    assert step.action.value == "call_a_pro_now" and step.arguments is not None
    assert step.text.startswith(
        "Deje de usar la puerta hasta que un técnico capacitado repare el problema que encontró en esta pieza: "
        "resortes de torsión o de extensión."
    )
    assert "Esto lo puede arreglar usted mismo: controles remotos." in step.text
    assert "Red Rock Doors atiende su zona: llame al (435) 555-0102." in step.text
    assert [words for words in ENGLISH if words in step.text + card.summary] == []


def test_english_reports_read_as_they_did(knowledge: Knowledge) -> None:
    card = score_inspection(knowledge.checklist, answers(hinges="watch", rollers="watch"))
    assert card.lang == "en" and card.summary.startswith("Grade D (50/100): 0 to fix, 2 to watch; 2 of 24 items")
    step = next_step(card, "94110", False)
    assert step.text == (
        "Nothing needs fixing now. Check the rollers and the hinges again in a month, and ask a pro to look at them "
        "at your next service."
    )


def _report(knowledge: Knowledge, lang: str) -> InspectionReport:
    card = score_inspection(knowledge.language(lang).checklist, answers(cables="fix", bottom_seal="watch"), lang)
    return InspectionReport(
        **dict(card),
        report_id="A" * 22,
        report_url="https://doors.example/reports/" + "A" * 22,
        report_json_url="https://doors.example/reports/" + "A" * 22 + ".json",
        created_at=datetime(2026, 11, 28, tzinfo=UTC),
        first_name="Ana",
        next_step=next_step(card, "94110", False),
    )


def test_the_report_email_is_in_the_reports_language(knowledge: Knowledge) -> None:
    photos = packaged_photo_library()
    mail = report_mail("ana@example.com", _report(knowledge, "es"), "Ruido al abrir", photos, "https://doors.example")
    assert mail.subject.startswith("Inspección de la puerta de su cochera: calificación F (")
    assert mail.subject.endswith("Deje de usar la puerta hasta que la reparen")
    assert mail.html is not None
    for body in (mail.text, mail.html):
        assert "Hola, Ana:" in body and "Cables de elevación" in body and "Ruido al abrir" in body
        assert "Los resortes, los cables, los tambores y los soportes de abajo" in body
    assert [words for words in ENGLISH if words in mail.text] == []
    assert [words for words in ("Grade", "Hello", "Items to act on", "Your note") if words in mail.html] == []
    # The reference pictures' captions and alt texts are the catalog's Spanish ones too.
    assert "Cable de elevación deshilachado" in mail.html and 'alt="Dibujo de un cable' in mail.html
    assert "Frayed lift cable" not in mail.html and "Illustration of" not in mail.html
    # ... and the pictures are the Spanish ones (the JPEG copies of the `.es.webp` files): Spanish words drawn in.
    shown = re.findall(r'<img src="https://doors\.example/photos/([^"?]+)\?v=[0-9a-f]+&amp;format=jpeg"', mail.html)
    assert shown and all(file.endswith(".es.webp") for file in shown), shown
    assert "cables-fix.es.webp" in shown
    assert "DEJE DE USAR LA PUERTA" in mail.text and '<html lang="es">' in mail.html

    english = report_mail("ana@example.com", _report(knowledge, "en"), None, photos, "https://doors.example")
    assert english.subject.startswith("Your garage door inspection: grade F (")
    assert "Hi Ana," in english.text and "STOP USING THE DOOR" in english.text and '<html lang="en">' in english.html
    assert "/photos/cables-fix.webp?v=" in english.html and ".es.webp" not in english.html


def test_the_pictures_beside_a_spanish_report_are_headed_in_spanish(knowledge: Knowledge) -> None:
    shown = reading(_report(knowledge, "es"), packaged_photo_library())
    headings = {picture.heading for pictures in shown["pictures"].values() for picture in pictures}
    assert headings and headings <= {"Necesita reparación", "Gastado: esté pendiente", "En buen estado"}
    pictures = [picture for pictures in shown["pictures"].values() for picture in pictures]
    assert all(p.caption != p.photo.entry.caption and p.alt.startswith("Dibujo") for p in pictures)
    english = reading(_report(knowledge, "en"), packaged_photo_library())
    assert all(p.caption == p.photo.entry.caption for pics in english["pictures"].values() for p in pics)
    # The pictures themselves are the Spanish ones, on the report page and in the e-mail alike.
    assert pictures and all(p.photo.file.endswith(".es.webp") and ".es.webp?v=" in p.photo.path for p in pictures)
    assert all(not p.photo.file.endswith(".es.webp") for pics in english["pictures"].values() for p in pics)
    assert shown["advice"][0].startswith("Deje de usar la puerta")
