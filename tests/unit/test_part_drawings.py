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
