"""REST against a real uvicorn server: answers, CORS, and every error envelope."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import KEY_CACHE_SECONDS, LiveServer
from tests.polling import eventually

JSON = {"Content-Type": "application/json"}


def assert_envelope(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert error["code"] == code and error["status"] == status and error["message"]
    assert "Traceback" not in response.text
    return error


def test_diagnose_answers_in_the_field_shape(api: httpx.Client) -> None:
    response = api.post("/api/v1/diagnose", json={"description": "Door WON'T shut!!"})
    assert response.status_code == 200
    body = response.json()
    assert body["symptom"]["key"] == "wont_close" and body["symptom"]["urgency"] == "soon"
    first = body["likelyIssues"][0]
    assert {"key", "name", "description", "costRange", "diyRisk"} <= set(first)
    assert {"min", "max"} <= set(first["costRange"])
    assert body["safetyFlag"] in (True, False)
    assert "issues" not in body and "urgency" not in body  # the old layout is never produced


def test_diagnose_no_match_is_200_with_a_hint(api: httpx.Client) -> None:
    body = api.post("/api/v1/diagnose", json={"description": "hello"}).json()
    assert body["likelyIssues"] == [] and body["hint"] and body["suggestions"]
    assert "symptom" not in body


def test_use_llm_fallback_is_accepted(api: httpx.Client) -> None:
    response = api.post("/api/v1/diagnose", json={"description": "loud bang", "useLlmFallback": True})
    assert response.status_code == 200 and response.json()["symptom"]["key"] == "banging_noise"


def test_cost_estimate(api: httpx.Client) -> None:
    body = api.post(
        "/api/v1/costEstimate", json={"issueKey": "broken_spring", "doorSize": "16x7", "zip": "10001"}
    ).json()
    assert body["sizeClass"] == "double" and body["region"]["multiplier"] > 1
    assert body["costRange"]["min"] > body["nationalRange"]["min"]
    assert body["diyRisk"] == "unsafe" and body["safetyNote"]


def test_door_styles_filters(api: httpx.Client) -> None:
    body = api.post("/api/v1/getDoorStyles", json={"type": "glass", "budget": "premium"}).json()
    assert body["count"] == len(body["styles"]) > 0
    assert all(s["type"] == "glass" and s["budget"] == "premium" for s in body["styles"])
    assert {"durability", "insulation", "curbAppeal", "lowMaintenance"} == set(body["styles"][0]["ratings"])
    assert api.post("/api/v1/getDoorStyles", json={"minRValue": 99}).json()["styles"] == []


def test_challenge_token_is_not_a_tool_argument(api: httpx.Client) -> None:
    # Server to server (no Origin), the token is not checked, and it never reaches the tool as an argument.
    response = api.post("/api/v1/getDoorStyles", json={"challengeToken": "XXXX.DUMMY.TOKEN.XXXX", "budget": "premium"})
    assert response.status_code == 200
    assert {style["budget"] for style in response.json()["styles"]} == {"premium"}
    too_long = api.post("/api/v1/getDoorStyles", json={"challengeToken": "x" * 2049})
    assert assert_envelope(too_long, 400, "invalid_arguments")["details"] == [
        {"field": "challengeToken", "message": "must be a string of at most 2048 characters"}
    ]
    # A control character, in any of JSON's ways of writing it, is refused like one in any other field.
    for written in ('"a\\fb"', '"\\b"', '"\\u000c"'):
        body = f'{{"challengeToken": {written}}}'.encode()
        refused = api.post("/api/v1/getDoorStyles", content=body, headers={"Content-Type": "application/json"})
        assert_envelope(refused, 400, "invalid_text")


def test_valid_key_is_accepted(api: httpx.Client, pro_key: str) -> None:
    response = api.post(
        "/api/v1/diagnose", json={"description": "loud bang"}, headers={"Authorization": f"Bearer {pro_key}"}
    )
    assert response.status_code == 200


def test_invalid_key_is_401_never_a_downgrade(api: httpx.Client) -> None:
    response = api.post(
        "/api/v1/diagnose", json={"description": "x"}, headers={"Authorization": "Bearer svc_live_fake"}
    )
    assert_envelope(response, 401, "invalid_key")


def test_revoked_key_is_401_within_the_key_cache_time(api: httpx.Client, live_server: LiveServer) -> None:
    key_id, key = live_server.create_key(name="to-revoke")
    headers = {"Authorization": f"Bearer {key}"}
    assert api.post("/api/v1/getDoorStyles", json={}, headers=headers).status_code == 200
    live_server.cli("keys", "revoke", key_id)  # another process: this server learns of it within the cache time

    def refused() -> httpx.Response | None:
        response = api.post("/api/v1/getDoorStyles", json={}, headers=headers)
        return response if response.status_code != 200 else None

    response = eventually(
        refused,
        seconds=KEY_CACHE_SECONDS + 2,
        every=0.2,
        what="the revoked key to be refused after the key cache time",
    )
    assert_envelope(response, 401, "invalid_key")
    assert "revoked" in live_server.cli("keys", "list").stdout


def test_unknown_tool_is_404(api: httpx.Client) -> None:
    error = assert_envelope(api.post("/api/v1/fixMyDoor", json={}), 404, "unknown_tool")
    assert "diagnose" in str(error["message"])


@pytest.mark.parametrize("body", [b"{", b"{'a': 1}", b"nul", b"\xff\xfe"])
def test_malformed_json_is_400(api: httpx.Client, body: bytes) -> None:
    assert_envelope(api.post("/api/v1/diagnose", content=body, headers=JSON), 400, "invalid_json")


@pytest.mark.parametrize("body", [b"[]", b'"text"', b"42", b"null", b"true", b""])
def test_non_object_body_is_400(api: httpx.Client, body: bytes) -> None:
    assert_envelope(api.post("/api/v1/diagnose", content=body, headers=JSON), 400, "invalid_body")


def test_schema_violations_name_each_field(api: httpx.Client) -> None:
    response = api.post("/api/v1/costEstimate", json={"doorSize": "huge", "zip": "123", "colour": "red"})
    error = assert_envelope(response, 400, "invalid_arguments")
    fields = {d["field"] for d in error["details"]}  # type: ignore[union-attr]
    assert fields == {"issueKey", "doorSize", "zip", "colour"}
    for name in fields:
        assert name in str(error["message"])


def test_bad_enum_names_allowed_values(api: httpx.Client) -> None:
    error = assert_envelope(api.post("/api/v1/getDoorStyles", json={"budget": "cheap"}), 400, "invalid_arguments")
    assert "economy" in str(error["message"]) and "premium" in str(error["message"])


def test_wrong_content_type_is_415(api: httpx.Client) -> None:
    response = api.post(
        "/api/v1/diagnose", content=b"description=x", headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert_envelope(response, 415, "unsupported_media_type")


def test_json_with_charset_and_no_content_type_are_fine(api: httpx.Client) -> None:
    body = b'{"description":"loud bang"}'
    assert (
        api.post(
            "/api/v1/diagnose", content=body, headers={"Content-Type": "application/json; charset=utf-8"}
        ).status_code
        == 200
    )
    assert api.post("/api/v1/diagnose", content=body).status_code == 200


def test_body_over_the_tool_limit_is_413(api: httpx.Client) -> None:
    body = b'{"description":"' + b"a" * 20_000 + b'"}'
    assert_envelope(api.post("/api/v1/diagnose", content=body, headers=JSON), 413, "payload_too_large")


def test_chunked_body_over_the_limit_is_413(api: httpx.Client) -> None:
    def chunks():  # no Content-Length: the limit is enforced while streaming
        yield b'{"description":"'
        for _ in range(40):
            yield b"a" * 1000
        yield b'"}'

    assert_envelope(api.post("/api/v1/diagnose", content=chunks(), headers=JSON), 413, "payload_too_large")


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
def test_other_methods_are_405_with_allow(api: httpx.Client, method: str) -> None:
    response = api.request(method, "/api/v1/diagnose")
    assert_envelope(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "POST"


def test_unknown_path_is_a_404_envelope(api: httpx.Client) -> None:
    assert_envelope(api.get("/nothing/here"), 404, "not_found")


@pytest.mark.parametrize("origin", ["https://contractor.example", "null"])
def test_cors_preflight_allows_any_origin_with_json_and_auth(api: httpx.Client, origin: str) -> None:
    response = api.options(
        "/api/v1/diagnose",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, authorization",
        },
    )
    assert response.status_code in (200, 204)
    assert response.headers["access-control-allow-origin"] in ("*", origin)
    allowed = response.headers["access-control-allow-headers"].lower()
    assert "content-type" in allowed and "authorization" in allowed
    assert "POST" in response.headers["access-control-allow-methods"]


def test_cors_headers_on_answers_and_errors(api: httpx.Client) -> None:
    ok = api.post("/api/v1/diagnose", json={"description": "x"}, headers={"Origin": "null"})
    bad = api.post("/api/v1/nope", json={}, headers={"Origin": "https://a.example"})
    assert ok.headers["access-control-allow-origin"] == "*"
    assert bad.headers["access-control-allow-origin"] == "*"


def test_tool_index(api: httpx.Client, live_server: LiveServer) -> None:
    index = api.get("/api/v1").json()
    names = [t["name"] for t in index["tools"]]
    assert {"diagnose", "costEstimate", "getDoorStyles"} <= set(names)
    diagnose = index["tools"][names.index("diagnose")]
    assert diagnose["auth"] == "optional" and diagnose["path"] == "/api/v1/diagnose"
    assert diagnose["url"] == f"{live_server.url}/api/v1/diagnose" and diagnose["docs"].startswith(live_server.url)


def test_llms_txt_and_agent_guide_list_every_tool(api: httpx.Client) -> None:
    llms = api.get("/llms.txt").text
    docs = api.get("/ai").text
    for name in ["diagnose", "costEstimate", "getDoorStyles"]:
        assert name in llms and f'id="{name}"' in docs
    assert api.get("/privacy").status_code == 200
