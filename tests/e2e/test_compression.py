"""Compression over the wire, against the real server: pages, CSS, JS, JSON documents and large tool answers
go out gzipped or brotli-compressed when the client asks, with `Vary: Accept-Encoding`; small answers and
pictures go out as they are; the widget arrives under its 25 KB budget."""

from __future__ import annotations

import gzip

import brotli
import httpx
import pytest

WIDGET_BUDGET = 25 * 1024


def raw(
    api: httpx.Client, method: str, path: str, encoding: str | None, **kwargs: object
) -> tuple[httpx.Response, bytes]:
    """The response and its body exactly as it came over the wire (not decoded); `encoding` None sends
    `identity` (httpx would otherwise ask for every coding it knows)."""
    headers = {"Accept-Encoding": encoding or "identity"}
    headers.update(kwargs.pop("headers", {}))  # type: ignore[arg-type]
    with api.stream(method, path, headers=headers, **kwargs) as response:  # type: ignore[arg-type]
        return response, b"".join(response.iter_raw())


def varies_on_encoding(response: httpx.Response) -> bool:
    return "accept-encoding" in {part.strip().lower() for part in response.headers.get("vary", "").split(",")}


def test_the_widget_arrives_gzipped_under_its_budget(api: httpx.Client) -> None:
    response, wire = raw(api, "GET", "/widget.js", "gzip")
    assert response.status_code == 200 and response.headers["content-encoding"] == "gzip"
    assert len(wire) < WIDGET_BUDGET, f"{len(wire)} bytes over the wire"
    plain, identity = raw(api, "GET", "/widget.js", None)
    assert "content-encoding" not in plain.headers and len(identity) > len(wire)
    assert gzip.decompress(wire) == identity
    assert int(response.headers["content-length"]) == len(wire)
    assert varies_on_encoding(response) and "origin" in response.headers["vary"].lower()  # CORS keeps its Vary


def test_brotli_when_the_client_asks_for_it(api: httpx.Client) -> None:
    gzipped = raw(api, "GET", "/widget.js", "gzip")[1]
    response, wire = raw(api, "GET", "/widget.js", "gzip, deflate, br")
    assert response.headers["content-encoding"] == "br"
    assert len(wire) < len(gzipped)
    assert brotli.decompress(wire) == gzip.decompress(gzipped)
    assert raw(api, "GET", "/widget.js", "br;q=0.5, gzip")[0].headers["content-encoding"] == "gzip"


def test_a_compressed_file_keeps_its_validators(api: httpx.Client) -> None:
    response, _ = raw(api, "GET", "/widget.js", "gzip")
    etag = response.headers["etag"]
    assert etag.startswith('W/"')  # the gzip bytes are not the identity bytes
    again, body = raw(api, "GET", "/widget.js", "gzip", headers={"If-None-Match": etag})
    assert again.status_code == 304 and body == b"" and varies_on_encoding(again)


@pytest.mark.parametrize(
    "path", ["/", "/inspection", "/styles", "/static/site.css", "/static/home.js", "/openapi.json"]
)
def test_pages_styles_scripts_and_documents_are_compressed(api: httpx.Client, path: str) -> None:
    response, wire = raw(api, "GET", path, "gzip")
    assert response.status_code == 200
    assert response.headers["content-encoding"] == "gzip" and varies_on_encoding(response)
    assert len(gzip.decompress(wire)) > len(wire)


def test_a_large_tool_answer_is_compressed_and_a_small_one_is_not(api: httpx.Client) -> None:
    large, wire = raw(api, "POST", "/api/v1/getDoorStyles", "gzip", json={})
    assert large.status_code == 200 and large.headers["content-encoding"] == "gzip"
    assert b"styles" in gzip.decompress(wire)
    small, body = raw(api, "POST", "/api/v1/costEstimate", "gzip", json={"issueKey": "nope"})
    assert small.status_code == 400 and len(body) < 1024
    assert "content-encoding" not in small.headers and varies_on_encoding(small)


def test_without_accept_encoding_nothing_is_compressed_but_caches_are_told(api: httpx.Client) -> None:
    response, body = raw(api, "GET", "/", None)
    assert "content-encoding" not in response.headers and b"<html" in body.lower()
    assert varies_on_encoding(response)


def test_a_tool_call_that_accepts_no_coding_goes_through_untouched(api: httpx.Client) -> None:
    """The fast path: no shared cache stores an answer to a POST, so there is nothing to compress or to tell."""
    large, wire = raw(api, "POST", "/api/v1/getDoorStyles", None, json={})
    assert large.status_code == 200 and "content-encoding" not in large.headers and b"styles" in wire
    assert not varies_on_encoding(large)
    asked = raw(api, "POST", "/api/v1/getDoorStyles", "gzip", json={})[0]
    assert asked.headers["content-encoding"] == "gzip" and varies_on_encoding(asked)


def test_pictures_go_out_as_they_are(api: httpx.Client) -> None:
    response, _ = raw(api, "GET", "/photos/springs-fix.webp", "gzip, br")
    assert response.status_code == 200 and response.headers["content-type"] == "image/webp"
    assert "content-encoding" not in response.headers
