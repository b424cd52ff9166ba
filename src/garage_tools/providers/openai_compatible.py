"""A client for OpenAI's Chat Completions API, and the many servers that speak it.

POST `{base}/chat/completions` with `Authorization: Bearer <key>` (left out when no key is set:
local servers such as Ollama, vLLM and LM Studio need none). Images travel as `image_url` parts
holding a `data:` URL, which OpenAI and the local servers' vision models all accept.

JSON mode (`response_format: {"type": "json_object"}`) is asked for because it makes a malformed
reply rare, but not every server has it: when one refuses the parameter, this client stops
sending it and relies on the instructions and the repair step alone (see chat.py).
Neither `temperature` nor a token limit is sent: some models refuse any but their default.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence
from typing import Any

from garage_tools.providers.chat import ChatModel, NotAChatAnswer, Turn
from garage_tools.providers.transport import RequestRefused

log = logging.getLogger(__name__)


class OpenAICompatible(ChatModel):
    provider = "openai-compatible"
    _json_mode = True

    def _headers(self, api_key: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

    async def _reply(self, system: str, turns: Sequence[Turn]) -> str:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, *(_message(turn) for turn in turns)],
        }
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        try:
            answer = await self.transport.post_json("/chat/completions", body)
        except RequestRefused as refused:
            detail = refused.detail.lower()
            if not (self._json_mode and refused.status in (400, 422) and "response_format" in detail):
                raise
            log.info("%s: the server does not take response_format json_object; asking without it", self.name)
            self._json_mode = False
            del body["response_format"]
            answer = await self.transport.post_json("/chat/completions", body)
        return _text(answer)


def _message(turn: Turn) -> dict[str, Any]:
    if turn.image is None:
        return {"role": turn.role, "content": turn.text}
    url = f"data:{turn.image.mime_type};base64,{base64.b64encode(turn.image.data).decode('ascii')}"
    return {
        "role": turn.role,
        "content": [{"type": "text", "text": turn.text}, {"type": "image_url", "image_url": {"url": url}}],
    }


def _text(answer: dict[str, Any]) -> str:
    """The first choice's text. `content` is a string, or on some servers a list of text parts; a refusal has none."""
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise NotAChatAnswer("no `choices`")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise NotAChatAnswer("no `choices[0].message`")
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""
