"""The homeowner page's forms without JavaScript: the server calls the tools for them, admitted as on REST.

A form post and a REST call come out of the same rate-limit window and the same daily photo cap, a photo the
tool refuses is given back in both, a refused call reads as a plain sentence, and a post from another site
or without the page's token is refused before anything runs. Each test runs with the counters in memory and
in the local Redis.
"""

from __future__ import annotations

import asyncio
import html as html_module
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from garage_tools.access.redis_client import RedisClient
from garage_tools.app import create_app
from garage_tools.settings import Settings
from garage_tools.store.referrals import ReferralRepository
from garage_tools.web.results import load_words
from tests.polling import eventually
from tests.redis_keys import delete_matching
from tests.unit.image_samples import inline, photo

REDIS_URL = "redis://127.0.0.1:6379/0"
BASE = "http://127.0.0.1:8000"
WORDS = load_words()
#: The one-tap chips widgets offer and the symptom each must map to (reference/compat.md, diagnose).
CHIPS = {
    "won't open": "Door won't open",
    "won't close": "Door won't close",
    "grinding noise": "Grinding or scraping noise",
    "loud bang": "Loud bang",
    "moves unevenly": "Door moves unevenly or hangs crooked",
    "opens partially": "Door opens only partway",
    "remote not working": "Remote or keypad not working",
    "loud noise": "Unusual or loud noise",
    "weather seal damaged": "Weather seal damaged",
}
SMALL_PNG = photo("PNG", (64, 48))


def settings_for(tmp_path: Path, backend: str, **limits: Any) -> Iterator[Settings]:
    prefix = f"garage-tools-test-{uuid.uuid4().hex[:12]}:"
    redis: dict[str, Any] = {"redis_url": REDIS_URL, "redis_key_prefix": prefix} if backend == "redis" else {}
    yield Settings(_env_file=None, data_dir=tmp_path, **{"rate_limit_public": "1000/minute", **limits}, **redis)
    if backend == "redis":
        asyncio.run(_delete_keys(prefix))


async def _delete_keys(prefix: str) -> None:
    client = RedisClient(REDIS_URL)
    await delete_matching(client, f"{prefix}*")
    await client.close()


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def client(tmp_path: Path, backend: str) -> Iterator[TestClient]:
    for settings in settings_for(tmp_path, backend):
        with TestClient(create_app(settings), base_url=BASE) as test_client:
            yield test_client


def token(client: TestClient) -> str:
    """The page's form token (the page also sets it as the browser's cookie)."""
    page = client.get("/")
    assert page.status_code == 200
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def ask(client: TestClient, **fields: str) -> Any:
    return client.post("/", data={"csrf": token(client), **fields})


def send_photo(client: TestClient, data: bytes, mime: str = "image/png", **fields: str) -> Any:
    files = {"photo": ("door.png", data, mime)}
    return client.post("/photo", data={"csrf": token(client), **fields}, files=files)


def left(response: Any, window: str) -> int:
    """What a REST response's RateLimit header says is left in `window`."""
    fields = dict(item.split(";", 1) for item in response.headers["ratelimit"].split(", "))
    return int(fields[f'"{window}"'].split(";")[0].removeprefix("r="))


def text_of(html: str) -> str:
    """The page's text as a person reads it (scripts and tags dropped, entities undone, spaces collapsed)."""
    plain = html_module.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", " ", html, flags=re.S)))
    return " ".join(plain.split())


def test_the_page_offers_the_nine_chips_and_each_diagnoses_its_symptom(client: TestClient) -> None:
    page = client.get("/").text
    assert re.findall(r'name="chip" value="([^"]+)"', page.replace("&#39;", "'")) == list(CHIPS)
    for chip, label in CHIPS.items():
        answer = ask(client, chip=chip)
        assert answer.status_code == 200
        assert f'<p class="gdr-symptom">{label}</p>'.replace("'", "&#39;") in answer.text, chip


def test_a_described_spring_is_dangerous_with_its_cost_and_photos(client: TestClient) -> None:
    answer = ask(client, description="loud bang and the door won't open")
    assert answer.status_code == 200
    shown = text_of(answer.text)
    assert "Most likely: Broken or failing spring" in shown
    assert WORDS["safetyTitle"] in shown and "$150\u2013$350 typical repair cost" in shown
    assert 'src="http://127.0.0.1:8000/photos/springs-fix.webp' in answer.text
    assert 'href="/parts/springs"' in answer.text


def test_a_zip_code_gives_a_pro_to_call_and_prices_for_the_place(client: TestClient) -> None:
    answer = ask(client, description="loud bang and the door won't open", place="84770")
    assert answer.status_code == 200
    shown = text_of(answer.text)
    assert "Dixie Door & Spring" in shown and 'href="tel:+14355550102"' in answer.text
    assert "Book online" in shown and "$40 off a full tune-up" in shown
    assert "$145\u2013$350 typical near Saint George, UT" in shown  # Utah's price level, not the national range
    assert WORDS["proUrgent"] in shown  # the lead is hot: the diagnosis said to stop using the door


def test_the_referral_is_recorded_hot_from_the_page(client: TestClient) -> None:
    ask(client, description="loud bang", place="84770")
    ask(client, description="grinding noise", place="84770")
    services = client.app.state.services  # type: ignore[attr-defined]
    repository = ReferralRepository(services.database)

    def both_recorded() -> list[Any]:
        client.portal.call(services.tool_data.partners.referrals.flush)  # type: ignore[union-attr]
        leads = client.portal.call(repository.all)  # type: ignore[union-attr]
        return leads if len(leads) >= 2 else []

    leads = eventually(both_recorded, seconds=30, what="both referrals, written in the background")
    assert sorted((lead.issue, lead.heat, lead.surface, lead.zip) for lead in leads) == [
        ("banging_noise", "hot", "web", "84770"),
        ("loud_grinding", "warm", "web", "84770"),
    ]


def test_a_city_in_several_states_gets_the_likeliest_pro_and_the_other_places_to_choose(client: TestClient) -> None:
    answer = ask(client, place="St. George")
    assert answer.status_code == 200 and WORDS["proHeading"] in text_of(answer.text)
    assert 'href="tel:+1435555' in answer.text  # the place a partner covers: Southern Utah
    intro = WORDS["otherPlaces"].replace("{place}", "Saint George, UT")
    assert intro in text_of(answer.text)
    assert 'name="place" value="Saint George, GA"' in answer.text
    chosen = ask(client, place="Saint George, GA")
    assert chosen.status_code == 200 and "Did you mean another?" not in text_of(chosen.text)


def test_an_unknown_place_and_an_empty_question_are_plain_sentences(client: TestClient) -> None:
    unknown = ask(client, place="Nowhere Town")
    assert unknown.status_code == 400 and WORDS["errors"]["unknown_location"] in text_of(unknown.text)
    assert "zipOrLocation" not in unknown.text and "unknown_location" not in text_of(unknown.text)
    empty = ask(client, description="  ")
    assert empty.status_code == 400 and WORDS["errors"]["describe"] in text_of(empty.text)


def test_a_photo_gets_a_verdict_in_plain_words(client: TestClient) -> None:
    answer = send_photo(client, photo("JPEG", (640, 480)), "image/jpeg", description="gap in the spring")
    assert answer.status_code == 200
    shown = text_of(answer.text)
    assert "Torsion or extension springs: Broken or failing spring" in shown
    assert WORDS["severity"]["FIX"] in shown and WORDS["safetyTitle"] in shown
    assert WORDS["verdictOffline"] in shown and "Typical repair cost: $150\u2013$350." in shown
    assert 'href="/parts/springs"' in answer.text
    assert "offline-heuristic" not in answer.text and "getInspectionReferencePhotos" not in answer.text


def test_a_photo_without_words_says_it_cannot_be_judged_alone(client: TestClient) -> None:
    answer = send_photo(client, SMALL_PNG)
    assert answer.status_code == 200
    shown = text_of(answer.text)
    assert WORDS["verdictUnknownTitle"] in shown and WORDS["verdictOfflineNoWords"] in shown


def test_form_posts_and_rest_calls_share_one_rate_limit(tmp_path: Path, backend: str) -> None:
    for settings in settings_for(tmp_path, backend, rate_limit_public="5/minute"):
        with TestClient(create_app(settings), base_url=BASE) as client:
            assert client.post("/api/v1/diagnose", json={"description": "loud bang"}).status_code == 200
            assert ask(client, description="loud bang").status_code == 200  # the journey: one call, as on REST
            last = client.post("/api/v1/diagnose", json={"description": "loud bang"})
            assert last.status_code == 200 and left(last, "public-minute") == 2
            for _ in range(2):
                assert client.post("/api/v1/diagnose", json={"description": "loud bang"}).status_code == 200
            refused_form = ask(client, description="loud bang")
            assert refused_form.status_code == 429 and int(refused_form.headers["retry-after"]) > 0
            seconds = refused_form.headers["retry-after"]
            assert WORDS["tooMany"].replace("{seconds}", seconds) in text_of(refused_form.text)
            assert client.post("/api/v1/diagnose", json={"description": "loud bang"}).status_code == 429


def test_the_photo_cap_is_shared_with_rest_and_its_refusal_is_a_plain_sentence(client: TestClient) -> None:
    for n in range(19):
        assert client.post("/api/v1/visualDiagnose", json={"image": inline(SMALL_PNG, "image/png")}).status_code == 200
    assert send_photo(client, SMALL_PNG).status_code == 200  # the 20th photo of the day
    refused = send_photo(client, SMALL_PNG)
    assert refused.status_code == 429 and WORDS["photoCapReached"] in text_of(refused.text)
    assert client.post("/api/v1/visualDiagnose", json={"image": inline(SMALL_PNG, "image/png")}).status_code == 429
    assert ask(client, description="loud bang").status_code == 200  # other tools are not capped


def test_a_photo_the_tool_refuses_is_given_back_to_the_cap(client: TestClient) -> None:
    refused = send_photo(client, b"just some text, not a picture")
    assert refused.status_code == 400 and WORDS["errors"]["image_not_an_image"] in text_of(refused.text)
    after = client.post("/api/v1/visualDiagnose", json={"image": inline(SMALL_PNG, "image/png")})
    assert after.status_code == 200 and left(after, "photos-public-day") == 19  # only this photo counted


def test_an_oversized_photo_is_refused_unread_and_uncounted(client: TestClient) -> None:
    refused = send_photo(client, b"\xff\xd8" + b"\x00" * (6 * 1024 * 1024), "image/jpeg")
    assert refused.status_code == 413 and WORDS["errors"]["image_too_large"] in text_of(refused.text)
    after = client.post("/api/v1/visualDiagnose", json={"image": inline(SMALL_PNG, "image/png")})
    assert left(after, "photos-public-day") == 19


def test_posts_without_the_token_or_from_another_site_are_refused(client: TestClient) -> None:
    good = token(client)
    assert client.post("/", data={"description": "loud bang"}).status_code == 403
    assert client.post("/", data={"csrf": "x" * 43, "description": "loud bang"}).status_code == 403
    foreign = client.post("/", data={"csrf": good, "description": "loud bang"}, headers={"Origin": "https://evil.test"})
    assert foreign.status_code == 403 and "did not come from this site" in foreign.text
    cross = client.post("/", data={"csrf": good, "description": "x"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    files = {"photo": ("door.png", SMALL_PNG, "image/png")}
    photo_forged = client.post("/photo", data={"csrf": good}, files=files, headers={"Origin": "https://evil.test"})
    assert photo_forged.status_code == 403
    own = client.post("/", data={"csrf": good, "description": "loud bang"}, headers={"Origin": BASE})
    assert own.status_code == 200
    after = client.post("/api/v1/visualDiagnose", json={"image": inline(SMALL_PNG, "image/png")})
    assert left(after, "photos-public-day") == 19  # the forged photo never reached the tool
