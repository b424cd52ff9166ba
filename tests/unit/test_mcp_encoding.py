"""The MCP encoding of results with images: any tool's captioned InlineImage, wherever it sits in the result."""

from __future__ import annotations

import json

from garage_tools.models import InlineImage, OutputModel
from garage_tools.registry import dump, dump_json
from garage_tools.surfaces.mcp_encoding import tool_result


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
