"""A client for Anthropic's Messages API.

POST `{base}/v1/messages` with `x-api-key` and `anthropic-version` headers. The system prompt is
the top-level `system` field; images travel as base64 `image` content blocks before the text,
as Anthropic's vision guide recommends. The API has no JSON mode: the schema in the system prompt
and the repair step (chat.py) keep replies in shape. `max_tokens` is required by the API; our
replies are small objects, so `MAX_TOKENS` leaves ample room.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from garage_tools.providers.chat import ChatModel, NotAChatAnswer, Turn

ANTHROPIC_VERSION = "2023-06-01"
MAX_TOKENS = 1024


class Anthropic(ChatModel):
    provider = "anthropic"

    def _headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    async def _reply(self, system: str, turns: Sequence[Turn]) -> str:
        body = {
            "model": self.model,
            "max_tokens": MAX_TOKENS,
            "system": system,
            "messages": [_message(turn) for turn in turns],
        }
        return _text(await self.transport.post_json("/v1/messages", body))


def _message(turn: Turn) -> dict[str, Any]:
    if turn.image is None:
        return {"role": turn.role, "content": turn.text}
    source = {
        "type": "base64",
        "media_type": turn.image.mime_type,
        "data": base64.b64encode(turn.image.data).decode("ascii"),
    }
    return {"role": turn.role, "content": [{"type": "image", "source": source}, {"type": "text", "text": turn.text}]}


def _text(answer: dict[str, Any]) -> str:
    """The reply's text blocks joined (a refusal or an empty reply gives "", which the repair step handles)."""
    content = answer.get("content")
    if not isinstance(content, list):
        raise NotAChatAnswer("no `content` list")
    return "".join(
        block.get("text", "") for block in content if isinstance(block, dict) and block.get("type") == "text"
    )
