"""The widget's files over HTTP: one script at two addresses, cached with validators, readable from any origin,
and small: the script and the stylesheet it loads stay within 25 KB gzipped."""

from __future__ import annotations

import gzip
import re

import httpx

BUDGET_GZIPPED = 25 * 1024
ORIGIN = {"Origin": "https://doors.example.net"}


def test_the_current_major_and_the_pinned_version_are_the_same_script(api: httpx.Client) -> None:
    current, pinned = api.get("/widget.js"), api.get("/widget/v1.js")
    assert current.status_code == pinned.status_code == 200
    assert current.headers["content-type"].startswith("text/javascript")
    assert current.content == pinned.content
    assert "GarageResults" in current.text and "data-garage-doors" in current.text
    assert "eval(" not in current.text and "new Function" not in current.text


def test_the_script_and_its_stylesheet_fit_the_budget(api: httpx.Client) -> None:
    script = api.get("/widget.js")
    [stylesheet_path] = [part.split('"')[0] for part in script.text.split('"stylesheet":"')[1:]]
    assert stylesheet_path.startswith("/widget/v1.css?v=")
    stylesheet = api.get(stylesheet_path)
    assert stylesheet.status_code == 200 and stylesheet.headers["content-type"].startswith("text/css")
    assert ".gdr-card" in stylesheet.text and ".gdw-chip" in stylesheet.text
    assert re.search(r"[0-9]rem\b", stylesheet.text) is None  # the host's root font size must not scale it
    size = sum(len(gzip.compress(response.content, 9)) for response in (script, stylesheet))
    assert size <= BUDGET_GZIPPED, f"{size} bytes gzipped"


def test_the_files_are_long_cached_with_validators(api: httpx.Client) -> None:
    for path in ("/widget.js", "/widget/v1.js", "/widget/v1.css"):
        first = api.get(path)
        assert "max-age=86400" in first.headers["cache-control"]
        # httpx asks for compression, and a compressed answer's tag is weak: the identity form's is the same tag
        etag, modified = first.headers["etag"].removeprefix("W/"), first.headers["last-modified"]
        assert api.get(path, headers={"If-None-Match": etag}).status_code == 304
        assert api.get(path, headers={"If-None-Match": f"W/{etag}"}).status_code == 304
        assert api.get(path, headers={"If-Modified-Since": modified}).status_code == 304
        assert api.get(path, headers={"If-None-Match": '"other"', "If-Modified-Since": modified}).status_code == 200


def test_the_files_are_readable_from_any_origin(api: httpx.Client) -> None:
    for path in ("/widget.js", "/widget/v1.css"):
        response = api.get(path, headers=ORIGIN)
        assert response.headers["access-control-allow-origin"] == "*"
        assert response.headers["cross-origin-resource-policy"] == "cross-origin"
        assert response.headers["x-content-type-options"] == "nosniff"
        # a copy fetched without Origin lacks the CORS header; the encoding varies too (compression)
        assert response.headers["vary"] == "Origin, Accept-Encoding"


def test_the_challenge_advice_when_the_challenge_is_off(api: httpx.Client) -> None:
    answer = api.get("/challenge", headers=ORIGIN)
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == "*"
    assert "origin" in answer.headers["vary"].lower()
    assert answer.json() == {
        "required": False,
        "provider": None,
        "siteKey": None,
        "scriptUrl": None,
        "action": None,
        "tokenField": "challengeToken",
    }
