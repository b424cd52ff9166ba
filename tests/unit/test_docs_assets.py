"""The Swagger UI files are served from memory, with an ETag, 304s and a day's caching, compressed once."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from garage_tools.surfaces import compression
from garage_tools.surfaces.compression import Compression
from garage_tools.web.docs import SWAGGER_ASSETS, CompressedFiles, swagger_ui_directory


@pytest.fixture
def files() -> CompressedFiles:
    return CompressedFiles(swagger_ui_directory(), SWAGGER_ASSETS)


def test_each_file_is_compressed_once_and_answered_from_memory(
    files: CompressedFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    compressions: list[int] = []
    real = compression.compress
    monkeypatch.setattr(
        compression, "compress", lambda data, coding, **kw: compressions.append(len(data)) or real(data, coding, **kw)
    )
    client = TestClient(Compression(Starlette(routes=[Route("/assets/{name}", files.serve)])))
    first = client.get("/assets/swagger-ui-bundle.js", headers={"Accept-Encoding": "gzip"})
    second = client.get("/assets/swagger-ui-bundle.js", headers={"Accept-Encoding": "gzip"})
    assert first.status_code == second.status_code == 200
    assert first.headers["content-encoding"] == "gzip" and first.headers["cache-control"] == "public, max-age=86400"
    assert first.content == (swagger_ui_directory() / "swagger-ui-bundle.js").read_bytes()  # httpx unzips it
    assert len(compressions) == 1
    assert first.headers["etag"].startswith('W/"')  # the compressed bytes are not the file's
    cached = client.get("/assets/swagger-ui-bundle.js", headers={"If-None-Match": first.headers["etag"]})
    assert cached.status_code == 304 and cached.content == b""
    anything = client.get("/assets/swagger-ui.css", headers={"If-None-Match": "*"})  # any current copy (RFC 9110)
    assert anything.status_code == 304
    plain = client.get("/assets/swagger-ui.css", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.headers["content-type"].startswith("text/css")
    assert client.get("/assets/swagger-initializer.js").status_code == 404


def test_a_missing_file_stops_start_up(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="lacks"):
        CompressedFiles(tmp_path, SWAGGER_ASSETS)
