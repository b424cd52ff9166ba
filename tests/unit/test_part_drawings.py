"""Every question of the inspection form shows a drawing of its part (issue 28): the gallery's healthy picture
where it covers the part, the form's own drawing for the nine parts it does not."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.photos import packaged_photo_library
from garage_tools.settings import Settings
from garage_tools.web.part_drawings import PARTS, drawings_of


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(_env_file=None, data_dir=tmp_path))) as test_client:
        yield test_client


def test_every_item_has_a_drawing_and_every_drawing_loads(client: TestClient, knowledge: Knowledge) -> None:
    page = client.get("/inspection").text
    figures = re.findall(r'<figure class="drawing">\s*<img src="([^"]+)"[^>]*alt="([^"]+)"', page)
    assert len(figures) == len(knowledge.checklist.items) == 24
    for source, alt in figures:
        assert alt.startswith("Illustration of"), alt
        image = client.get(source)
        assert image.status_code == 200 and image.headers["content-type"] == "image/webp", source
    assert "/static/inspection/parts/hinges.webp" in page  # a part the gallery does not cover


def test_the_forms_own_drawings_cover_only_what_the_gallery_does_not(knowledge: Knowledge) -> None:
    drawings = drawings_of(knowledge.checklist, packaged_photo_library())
    own = {item for item, drawing in drawings.items() if drawing.path.startswith("/static/inspection/parts/")}
    assert own == {item.id for item in knowledge.checklist.items if item.reference_photo_item is None}
    assert all((PARTS / Path(drawings[item].path).name).stat().st_size < 24 * 1024 for item in own)


def test_the_spanish_form_shows_the_spanish_drawings(client: TestClient) -> None:
    """The words drawn in each picture (title, badge, call-outs) are in the page's language, as its captions are."""
    page = client.get("/inspection?lang=es").text
    sources = re.findall(r'<figure class="drawing">\s*<img src="([^"]+)"', page)
    assert len(sources) == 24
    assert [source for source in sources if ".es.webp" not in source] == []
    assert "/static/inspection/parts/hinges.es.webp" in page and "/photos/springs-healthy.es.webp?v=" in page
    for source in sources:
        image = client.get(source)
        assert image.status_code == 200 and image.headers["content-type"] == "image/webp", source
    english = client.get("/inspection?lang=en").text
    assert ".es.webp" not in english and "/static/inspection/parts/hinges.webp" in english


def test_a_language_without_drawings_of_its_own_gets_the_default_ones(knowledge: Knowledge) -> None:
    library = packaged_photo_library()
    english = drawings_of(knowledge.checklist, library)
    assert drawings_of(knowledge.checklist, library, "fr") == english
    spanish = drawings_of(knowledge.checklist, library, "es")
    assert spanish.keys() == english.keys()
    for item, drawing in spanish.items():
        assert drawing.path.split("?")[0].removesuffix(".es.webp") == english[item].path.split("?")[0].removesuffix(
            ".webp"
        )
        assert (drawing.alt, drawing.caption) == (english[item].alt, english[item].caption)  # the page translates
