"""The front door through the real app: the door size question, local prices with what they cover and the
emergency surcharge, a diagnosis link that reopens the same answer, no dead end when nothing matches, and a
photo check that lets people choose a photo they already took."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.settings import Settings
from garage_tools.web.results import load_words

WORDS = load_words()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(_env_file=None, data_dir=tmp_path, rate_limit_public="1000/minute")
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8000") as test_client:
        yield test_client


def text_of(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_page_asks_the_size_with_pictures_and_takes_any_photo(client: TestClient) -> None:
    page = client.get("/").text
    assert (
        page.count('name="size"') >= 3 and "/static/sizes/single.webp" in page and "/static/sizes/double.webp" in page
    )
    field = re.search(r'<input id="photo-file"[^>]*>', page)
    assert field is not None and "capture" not in field.group(0)  # library or camera: the phone asks
    assert 'id="photo-preview"' in page and "What we look at:" in page
    assert client.get("/static/sizes/double.webp").status_code == 200


def test_a_diagnosis_link_shows_the_local_price_for_the_size_what_it_covers_and_the_surcharge(
    client: TestClient,
) -> None:
    answer = client.get("/", params={"q": "loud bang and the door won't open", "place": "84770", "size": "16x7"})
    assert answer.status_code == 200
    shown = text_of(answer.text)
    assert "Most likely: Broken or failing spring" in shown
    spring = shown[shown.index("Broken or failing spring", shown.index("Possible causes")) :]
    assert re.match(r"Broken or failing spring \$[0-9,]+\u2013\$[0-9,]+ typical near Saint George, UT", spring)
    assert "$200\u2013$600 typical" not in shown  # the national double-door range
    assert "Covers: Installing new torsion spring" in shown and "Priced for a 16 ft wide door." in shown
    assert "Calling out a pro today or after hours adds about $" in shown
    link = re.search(r'<p class="help-permalink"><a href="([^"]+)"', answer.text)
    assert link is not None
    again = client.get(html.unescape(link.group(1)))
    assert text_of(again.text).count("typical near Saint George, UT") == shown.count("typical near Saint George, UT")


def test_nothing_matched_leads_somewhere_in_one_voice(client: TestClient) -> None:
    shown = text_of(client.get("/", params={"q": "the purple elephant sang"}).text)
    assert WORDS["noMatchTitle"] in shown and WORDS["noMatchText"] in shown
    assert WORDS["noMatchPhoto"] in shown and WORDS["noMatchPro"] in shown
    assert "I couldn't tell" not in shown


def test_stuck_halfway_leads_somewhere_useful(client: TestClient) -> None:
    page = client.get("/", params={"q": "my door is stuck halfway"}).text
    shown = text_of(page)
    matched = "Possible causes and typical costs" in shown
    assert matched or (WORDS["noMatchPro"] in shown and 'href="#photo-file"' in page)
    assert "I couldn't tell" not in shown
