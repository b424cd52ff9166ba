"""The MCP encoding of results with images: any tool's captioned InlineImage, wherever it sits in the result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import BaseModel
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.models import InlineImage, OutputModel
from garage_tools.registry import dump, dump_json
from garage_tools.settings import Settings
from garage_tools.surfaces.mcp_encoding import tool_result, tool_result_json


class Shot(OutputModel):
    title: str
    picture: InlineImage | None = None


class Album(OutputModel):
    cover: InlineImage
    shots: list[Shot]


ALBUM = Album(
    cover=InlineImage(data="AAAA", mime_type="image/png"),  # no caption: an image block on its own
    shots=[
        Shot(title="one", picture=InlineImage(data="BBBB", mime_type="image/webp", caption="First: the spring")),
        Shot(title="two"),  # sent by URL only: no blocks at all
        Shot(title="three", picture=InlineImage(data="CCCC", mime_type="image/jpeg", caption="Third: the cable")),
    ],
)


def test_a_captioned_image_follows_its_caption_and_an_uncaptioned_one_stands_alone() -> None:
    content = tool_result(ALBUM)["content"]
    assert [(block["type"], block.get("text", block.get("data"))) for block in content[1:]] == [
        ("image", "AAAA"),
        ("text", "First: the spring"),
        ("image", "BBBB"),
        ("text", "Third: the cable"),
        ("image", "CCCC"),
    ]


def test_a_caption_is_never_part_of_the_json() -> None:
    encoded = tool_result(ALBUM)
    assert json.loads(encoded["content"][0]["text"]) == encoded["structuredContent"]
    assert "caption" not in json.dumps(encoded["structuredContent"]) and "First" not in encoded["content"][0]["text"]
    assert b"caption" not in dump_json(ALBUM) and "caption" not in json.dumps(dump(ALBUM))  # nor on REST
    schema = Album.model_json_schema(by_alias=True, mode="serialization")
    assert set(schema["$defs"]["InlineImage"]["properties"]) == {"data", "mimeType"}  # the published schema


class Verdict(OutputModel, frozen=True):
    """A result a tool shares between calls (as diagnose does per symptom)."""

    label: str


def test_a_shared_frozen_result_is_encoded_once_and_each_call_gets_its_own_envelope() -> None:
    shared = Verdict(label="Loud bang")
    first, second = tool_result(shared), tool_result(shared)
    assert first["content"] is second["content"]  # the memo answered the second call
    assert first is not second  # a surface may add fields (resultType, _meta) to its own
    first["resultType"] = "complete"
    assert "resultType" not in tool_result(shared)
    assert json.loads(first["content"][0]["text"]) == first["structuredContent"] == {"label": "Loud bang"}


def test_a_result_that_is_not_frozen_is_encoded_afresh_every_time() -> None:
    album = ALBUM.model_copy()
    assert tool_result(album)["content"] is not tool_result(album)["content"]
    assert dump_json(album) == dump_json(album)


def test_the_fast_paths_encoding_is_the_same_json_with_a_shared_results_parts_encoded_once() -> None:
    shared = Verdict(label="Stuck halfway")
    first, second = tool_result_json(shared), tool_result_json(shared)
    assert first["content"] is second["content"] and first["structuredContent"] is second["structuredContent"]
    assert first is not second
    for result in (shared, ALBUM):  # frozen and shared, or encoded afresh: the same JSON as `tool_result`
        assert orjson.loads(orjson.dumps(tool_result_json(result))) == tool_result(result)


def test_the_fast_path_answers_a_call_with_its_once_encoded_parts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Removing `tool_result_json` from the fast path (back to `tool_result`) fails this test."""
    from garage_tools.surfaces import mcp_fast

    used: list[object] = []

    def spy(result: BaseModel) -> dict[str, Any]:
        used.append(result)
        return tool_result_json(result)

    monkeypatch.setattr(mcp_fast, "tool_result_json", spy)
    settings = Settings(data_dir=tmp_path / "var", mail_worker_in_process=False, mcp_fast_path=True)
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "diagnose", "arguments": {"description": "loud bang"}},
    }
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        answer = client.post(
            "/mcp",
            content=json.dumps(call),
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json",
                "MCP-Protocol-Version": "2025-11-25",
            },
        ).json()["result"]
    assert len(used) == 1
    assert answer["structuredContent"]["symptom"]["key"] == "banging_noise"
    assert json.loads(answer["content"][0]["text"]) == answer["structuredContent"]
