"""The drawing scripts make the committed pictures, in every language the service speaks (issue 29).

`scripts/draw_reference_photos.py` and `scripts/draw_part_drawings.py` draw each picture once per language, its
words (title, badge, call-outs, caption band) from one table per language. Drawing them again must give the
committed files byte for byte, so the English pictures stay as published and a Spanish picture always matches
its table; the manifests name each language's file. A sample is drawn on every run; all of them under `slow`.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from garage_tools.knowledge.photos import PACKAGED_MANIFEST
from garage_tools.languages import DEFAULT, SUPPORTED
from garage_tools.web.part_drawings import PARTS

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _script(name: str) -> ModuleType:
    """A drawing script as a module (the part drawings import the gallery's, so scripts/ is on the path)."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules.get(name) or importlib.util.module_from_spec(spec)
    if name not in sys.modules:
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


PHOTOS = _script("draw_reference_photos")
PARTS_SCRIPT = _script("draw_part_drawings")
SAMPLE = {"springs-fix.webp", "keypad-healthy.webp", "wall-button-watch.webp", "warning-labels.webp"}


def _cases() -> list[Any]:
    cases = []
    for script, pictures, folder in (
        (PHOTOS, PHOTOS.PICTURES, PACKAGED_MANIFEST.parent),
        (PARTS_SCRIPT, PARTS_SCRIPT.DRAWINGS, PARTS),
    ):
        for picture in pictures:
            for lang in SUPPORTED:
                marks = () if picture.file in SAMPLE else (pytest.mark.slow,)
                name = PHOTOS.file_in(picture.file, lang)
                cases.append(pytest.param(script, picture, lang, folder / name, id=name, marks=marks))
    return cases


@pytest.mark.parametrize(("script", "picture", "lang", "committed"), _cases())
def test_each_picture_is_drawn_as_committed(script: ModuleType, picture: Any, lang: str, committed: Path) -> None:
    assert script.draw(picture, lang) == committed.read_bytes(), f"run scripts/{script.__name__}.py again"


def test_the_manifests_name_each_languages_file() -> None:
    photos = json.loads(PACKAGED_MANIFEST.read_text(encoding="utf-8"))["photos"]
    drawings = json.loads((PARTS / "drawings.json").read_text(encoding="utf-8"))["drawings"]
    others = [lang for lang in SUPPORTED if lang != DEFAULT]
    assert others  # Spanish at least
    for entry in [*photos, *drawings]:
        assert entry["files"] == {lang: entry["file"].removesuffix(".webp") + f".{lang}.webp" for lang in others}


@pytest.mark.slow
def test_every_phrase_a_picture_draws_has_a_translation() -> None:
    """A phrase missing from a language's table stops the script; a table holds no phrase no picture draws."""
    for lang in SUPPORTED:
        if lang == DEFAULT:
            continue
        used: set[str] = set()

        class Recording(dict[str, str]):
            def __getitem__(self, english: str) -> str:
                used.add(english)
                return super().__getitem__(english)

        for script, pictures in ((PHOTOS, PHOTOS.PICTURES), (PARTS_SCRIPT, PARTS_SCRIPT.DRAWINGS)):
            for picture in pictures:
                canvas = PHOTOS.Canvas(Recording(script.words_of(lang)))
                PHOTOS.frame(canvas, picture.title, getattr(picture, "severity", "HEALTHY"), picture.label)
                picture.draw(canvas, getattr(picture, "severity", "HEALTHY"))
        assert set(PHOTOS.WORDS[lang]) | set(PARTS_SCRIPT.WORDS[lang]) == used
