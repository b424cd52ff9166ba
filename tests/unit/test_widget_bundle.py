"""The widget's bundle as built at start-up: every sentence it uses is in its words, the cards' stylesheet is
turned from rem into em (rem would follow the host page's root font size), and the setup names the stylesheet
by its fingerprint."""

from __future__ import annotations

import json
import re

from garage_tools.knowledge.loader import Knowledge
from garage_tools.web.widget import REQUIRED_WIDGET_WORDS, WIDGET_DIR, WidgetFiles, build_stylesheet, widget_words


def test_every_sentence_the_widget_uses_is_required_and_present() -> None:
    used = set(re.findall(r"\bown\.([A-Za-z]+)", (WIDGET_DIR / "widget.js").read_text()))
    assert used == REQUIRED_WIDGET_WORDS
    assert widget_words()["widget"].keys() >= REQUIRED_WIDGET_WORDS


def test_the_stylesheet_is_in_em_after_the_cards() -> None:
    css = build_stylesheet().body.decode()
    assert re.search(r"[0-9]rem\b", css) is None
    assert ".gdr-title { margin: 0 0 .5em; font-size: 1.45em;" in css
    assert css.index(".gdr-card") < css.index(".gdw {")


def test_the_script_carries_its_setup(knowledge: Knowledge) -> None:
    files = WidgetFiles.build(knowledge)
    script = files.script.body.decode()
    setup = json.loads(script.rsplit("(parts.GarageResults, ", 1)[1].split(");\n})();", 1)[0])
    assert setup["stylesheet"] == f"/widget/v1.css?v={files.stylesheet.fingerprint}"
    assert setup["chips"]["en"] == [symptom.phrases[0] for symptom in knowledge.tree.symptoms]
    assert setup["chips"]["es"] == [symptom.phrases[0] for symptom in knowledge.language("es").tree.symptoms]
    english, spanish = setup["words"]["en"], setup["words"]["es"]
    assert english["widget"]["heading"] and english["urgency"]["emergency"]
    assert spanish["widget"]["heading"] == "¿Qué hace su puerta de cochera?"
    assert spanish.keys() == english.keys() and spanish["widget"].keys() == english["widget"].keys()
    assert script.index("(function (window) {") < script.index("root.GarageResults = ")
