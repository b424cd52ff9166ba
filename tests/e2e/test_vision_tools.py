"""visualDiagnose and getInspectionReferencePhotos on a real server: verdicts, every bad image a 400 with its
own code (never a 500), the daily photo cap, SSRF attempts through the tool, and the gallery on REST and MCP.

The server trusts 127.0.0.1 as a proxy, so each test speaks from its own client address
(`X-Forwarded-For`) and the photo cap of one test never leaks into another. The general rate limits
are raised (tests/conftest.py RAISED_LIMITS); the photo cap is declared on the tool, so it stays real.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Iterator
from io import BytesIO
from typing import Any

import httpx
import pytest
from PIL import Image

from garage_tools.imaging import MAX_IMAGE_BYTES
from tests.conftest import LiveServer, start_server, stop_server
from tests.unit.image_samples import b64, inline, photo, png_claiming

_addresses = (f"203.0.113.{n}" for n in itertools.count(1))
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}
SPRING_PHOTO = inline(photo("JPEG", (640, 480)), "image/jpeg")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(tmp_path_factory.mktemp("vision"), {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1"})
    yield live
    stop_server(live)


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    """A client with an address of its own."""
    with httpx.Client(base_url=server.url, timeout=30, headers={"X-Forwarded-For": next(_addresses)}) as http:
        yield http


def rest(client: httpx.Client, tool: str, body: dict[str, Any]) -> httpx.Response:
    return client.post(f"/api/v1/{tool}", json=body)


def mcp_call(client: httpx.Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": META},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
    }
    response = client.post("/mcp", content=json.dumps(body), headers={"Content-Type": "application/json", **headers})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


def test_a_photo_with_a_hint_gets_an_offline_verdict(client: httpx.Client) -> None:
    body = {"image": SPRING_PHOTO, "description": "there is a gap in the spring above the door"}
    response = rest(client, "visualDiagnose", body)
    assert response.status_code == 200, response.text
    verdict = response.json()
    assert verdict["part"] == "springs" and verdict["severity"] == "FIX" and verdict["safetyFlag"] is True
    assert verdict["referenceItemId"] == "springs" and verdict["issueKey"] == "broken_spring"
    assert verdict["method"] == "offline-heuristic" and verdict["confidence"] == "low"
    assert verdict["photo"] == {
        "width": 640,
        "height": 480,
        "mimeType": "image/jpeg",
        "brightness": verdict["photo"]["brightness"],
        "sharpness": verdict["photo"]["sharpness"],
        "usable": True,
        "problems": [],
    }
    assert '"photos-public-day";q=20;w=86400' in response.headers["ratelimit-policy"]


def _bomb() -> dict[str, str]:
    return {"data": b64(png_claiming(50_000, 50_000)), "mimeType": "image/png"}


def _truncated() -> dict[str, str]:
    data = photo("JPEG")
    return {"data": b64(data[: len(data) // 2]), "mimeType": "image/jpeg"}


BAD_INPUTS: list[tuple[str, dict[str, Any], str]] = [
    ("neither", {}, "image_missing"),
    ("hint-only", {"description": "gap in the spring"}, "image_missing"),
    (
        "data-url",
        {"image": {"data": "data:image/jpeg;base64," + SPRING_PHOTO["data"], "mimeType": "image/jpeg"}},
        "image_data_url_prefix",
    ),
    ("bad-base64", {"image": {"data": "%%% not base64 %%%", "mimeType": "image/jpeg"}}, "image_bad_base64"),
    ("not-an-image", {"image": {"data": b64(b"just some text"), "mimeType": "image/png"}}, "image_not_an_image"),
    ("mismatch", {"image": {**SPRING_PHOTO, "mimeType": "image/png"}}, "image_type_mismatch"),
    ("unsupported", {"image": {**SPRING_PHOTO, "mimeType": "image/heic"}}, "image_type_mismatch"),
    ("bomb", {"image": _bomb()}, "image_too_large"),
    ("truncated", {"image": _truncated()}, "image_not_an_image"),
    ("http", {"imageUrl": "http://example.com/door.jpg"}, "image_url_not_https"),
    ("loopback", {"imageUrl": "https://127.0.0.1/door.jpg"}, "image_url_forbidden"),
    ("metadata", {"imageUrl": "https://169.254.169.254/latest/meta-data/"}, "image_url_forbidden"),
    ("private", {"imageUrl": "https://10.0.0.1/door.jpg"}, "image_url_forbidden"),
    ("ipv6-loopback", {"imageUrl": "https://[::1]/door.jpg"}, "image_url_forbidden"),
    ("name-to-loopback", {"imageUrl": "https://localhost/door.jpg"}, "image_url_forbidden"),
    ("wrong-type", {"image": "a string"}, "invalid_arguments"),
    ("image-fields", {"image": {"data": SPRING_PHOTO["data"]}}, "invalid_arguments"),
]


@pytest.mark.parametrize(("body", "code"), [(b, c) for _, b, c in BAD_INPUTS], ids=[i for i, _, _ in BAD_INPUTS])
def test_each_bad_input_is_a_400_with_its_own_code(client: httpx.Client, body: dict[str, Any], code: str) -> None:
    response = rest(client, "visualDiagnose", body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == code


def test_an_image_over_the_byte_limit_is_refused_by_its_size(client: httpx.Client) -> None:
    body = {"image": {"data": b64(b"\x00" * (MAX_IMAGE_BYTES + 1)), "mimeType": "image/jpeg"}}
    response = rest(client, "visualDiagnose", body)
    assert response.status_code == 400 and response.json()["error"]["code"] == "image_too_large"


def test_a_bad_image_over_mcp_is_a_tool_error_with_the_same_code(client: httpx.Client) -> None:
    result = mcp_call(client, "visualDiagnose", {"imageUrl": "https://169.254.169.254/latest/meta-data/"})
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"])["error"]["code"] == "image_url_forbidden"


def test_the_photo_cap_refuses_the_21st_photo_of_the_day(client: httpx.Client, server: LiveServer) -> None:
    body = {"image": inline(photo("PNG", (64, 48)), "image/png")}
    for n in range(19):
        assert rest(client, "visualDiagnose", body).status_code == 200, n
    assert mcp_call(client, "visualDiagnose", body)["isError"] is False  # one bucket for REST and MCP: the 20th
    refused = rest(client, "visualDiagnose", body)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited" and "20 per day" in refused.json()["error"]["message"]
    assert int(refused.headers["retry-after"]) > 0
    # Other tools and other addresses are not affected.
    assert rest(client, "getInspectionReferencePhotos", {"itemId": "springs"}).status_code == 200
    with httpx.Client(base_url=server.url, timeout=30, headers={"X-Forwarded-For": next(_addresses)}) as other:
        assert rest(other, "visualDiagnose", body).status_code == 200


def test_photos_refused_for_their_bytes_do_not_use_up_the_cap(client: httpx.Client) -> None:
    bad_base64 = {"image": {"data": "%%% not base64 %%%", "mimeType": "image/jpeg"}}
    not_an_image = {"image": {"data": b64(b"just some text"), "mimeType": "image/png"}}
    for n in range(10):  # twenty refusals in all, as many as the day's cap
        refused = rest(client, "visualDiagnose", bad_base64)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "image_bad_base64", n
        result = mcp_call(client, "visualDiagnose", not_an_image)
        assert json.loads(result["content"][0]["text"])["error"]["code"] == "image_not_an_image", n
    body = {"image": inline(photo("PNG", (64, 48)), "image/png")}
    for n in range(10):
        assert rest(client, "visualDiagnose", body).status_code == 200, n
        assert mcp_call(client, "visualDiagnose", body)["isError"] is False, n
    refused = rest(client, "visualDiagnose", body)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert int(refused.headers["retry-after"]) > 0


def test_a_key_holder_has_the_pro_photo_cap(client: httpx.Client, server: LiveServer) -> None:
    key = server.create_key(email="photos@example.com")[1]
    body = {"image": inline(photo("PNG", (64, 48)), "image/png")}
    response = client.post("/api/v1/visualDiagnose", json=body, headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200
    assert '"photos-pro-day";q=100;w=86400' in response.headers["ratelimit-policy"]


def test_the_gallery_over_rest_gives_urls_that_load(client: httpx.Client) -> None:
    response = rest(client, "getInspectionReferencePhotos", {"itemId": "bottom-seal"})
    assert response.status_code == 200
    answer = response.json()
    assert [p["severity"] for p in answer["photos"]] == ["HEALTHY", "WATCH", "FIX"]
    for entry in answer["photos"]:
        assert "image" not in entry
        picture = client.get(entry["url"])
        assert picture.status_code == 200 and picture.headers["content-type"] == "image/webp"
        assert "immutable" in picture.headers["cache-control"]
        assert Image.open(BytesIO(picture.content)).size == (entry["width"], entry["height"])
    unknown = rest(client, "getInspectionReferencePhotos", {"itemId": "garage"})
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "invalid_arguments"
    assert "photo-eyes" in unknown.json()["error"]["message"]


def test_the_gallery_over_rest_inline_stays_under_100000_characters(client: httpx.Client) -> None:
    response = rest(client, "getInspectionReferencePhotos", {"itemId": "springs", "inlineImages": True})
    assert response.status_code == 200 and len(response.text) < 100_000
    assert all(entry["image"]["mimeType"] == "image/webp" for entry in response.json()["photos"])


def test_the_gallery_over_mcp_is_each_caption_then_its_image(client: httpx.Client) -> None:
    result = mcp_call(client, "getInspectionReferencePhotos", {"itemId": "motorhead"})
    assert result["isError"] is False
    text, *pairs = result["content"]
    assert text["type"] == "text" and json.loads(text["text"]) == result["structuredContent"]
    photos = result["structuredContent"]["photos"]
    assert len(photos) == 3 and [block["type"] for block in pairs] == ["text", "image"] * 3
    for entry, caption, image in zip(photos, pairs[::2], pairs[1::2], strict=True):
        assert caption["text"] == f"{entry['severity']}: {entry['caption']}"
        assert image["mimeType"] == entry["image"]["mimeType"] == "image/webp" and "data" not in entry["image"]
        assert Image.open(BytesIO(base64.b64decode(image["data"]))).format == "WEBP"
    assert result["structuredContent"]["inline"] is True
