"""The door styles page through the real app: a drawing per style (made by scripts/draw_door_styles.py, small
files), the price on each card explained, a compare view for two or three styles, and the installer slot."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.knowledge.loader import Knowledge
from garage_tools.settings import Settings
from garage_tools.web.pages import STATIC

DRAWINGS = STATIC / "styles"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(_env_file=None, data_dir=tmp_path))) as test_client:
        yield test_client


def test_every_style_has_a_small_drawing(knowledge: Knowledge) -> None:
    for style in knowledge.door_styles.styles:
        drawing = DRAWINGS / f"{style.id}.webp"
        assert drawing.is_file(), f"run scripts/draw_door_styles.py: {style.id} has no drawing"
        assert drawing.stat().st_size < 8 * 1024
    assert {p.stem for p in DRAWINGS.glob("*.webp")} == {s.id for s in knowledge.door_styles.styles}


def test_each_card_shows_its_drawing_and_says_what_the_price_is_for(client: TestClient) -> None:
    page = client.get("/styles", params={"maxPriceUsd": "3000"})
    assert page.status_code == 200
    cards = page.text.count('<li class="styles-card"')
    assert cards > 1 and page.text.count('class="styles-drawing" src="/static/styles/') == cards
    words = " ".join(page.text.split())
    assert "for a single-car door (8x7 or 9x7), up to $" in words and "for a double-car door (16x7)" in words
    assert "A double-car door (16x7) of the same style" in words  # why 3000 shows doors up to $3,450
    assert page.text.count('name="id" value="') == cards and 'action="/styles/compare"' in page.text
    assert page.text.count('class="styles-quote"') == cards
    drawing = client.get(re.search(r'src="(/static/styles/[a-z0-9-]+\.webp)"', page.text).group(1))  # type: ignore[union-attr]
    assert drawing.status_code == 200 and drawing.headers["content-type"] == "image/webp"


def test_two_or_three_styles_side_by_side(client: TestClient) -> None:
    ids = ["steel-flush-vinyl-back", "custom-cedar-carriage-house", "glass-full-view-aluminum-frosted"]
    page = client.get("/styles/compare", params=[("id", i) for i in ids])
    assert page.status_code == 200
    head = page.text.split("<thead>")[1].split("</thead>")[0]
    assert [head.index(f"/static/styles/{i}.webp") for i in ids] == sorted(
        head.index(f"/static/styles/{i}.webp") for i in ids
    )
    assert "Installed price" in page.text and "Stain-Grade Cedar Carriage-House" in page.text


@pytest.mark.parametrize(
    ("query", "status"),
    [([("id", "steel-flush-vinyl-back")], 400), ([("id", "a"), ("id", "b"), ("id", "c"), ("id", "d")], 400),
     ([("id", "steel-flush-vinyl-back"), ("id", "no-such-style")], 404)],
)  # fmt: skip
def test_a_comparison_needs_two_or_three_known_styles(
    client: TestClient, query: list[tuple[str, str]], status: int
) -> None:
    page = client.get("/styles/compare", params=query)
    assert page.status_code == status and "styles page" in page.text


def test_the_styles_and_a_comparison_read_in_spanish(client: TestClient) -> None:
    spanish = {"Accept": "text/html", "Accept-Language": "es-MX,es;q=0.9"}
    page = client.get("/styles?maxPriceUsd=abc", headers=spanish).text
    assert '<html lang="es"' in page and "Estilos de puerta" in page and "Ver estilos" in page
    assert "Puerta de acero acanalada estilo ranch (una capa)" in page  # the catalog's words, not only the page's
    assert "No tomamos en cuenta el precio más alto" in page and "Features and ratings" not in page
    ids = re.findall(r'name="id" value="([a-z0-9-]+)"', page)[:2]
    compared = client.get("/styles/compare", params=[("id", ids[0]), ("id", ids[1])], headers=spanish).text
    assert (
        "Comparar estilos de puerta" in compared
        and "Precio instalada" in compared
        and "Installed price" not in compared
    )
