"""What both provider clients share: asking for JSON, checking the reply, and one chance to repair it.

A client subclasses `ChatModel` and supplies `_reply(system, turns)`: one request to its API,
returning the model's text. Everything else is here, so the two providers behave alike:

1. The system prompt gets the reply schema (the JSON Schema of the tool's Pydantic model) and the
   instruction to answer with one JSON object only.
2. The reply is parsed leniently (code fences and stray prose around the object are tolerated)
   and validated strictly against the schema.
3. If that fails, the model sees its own reply and the error, once, and is asked for the corrected
   JSON alone. A second failure is `ProviderBadReply` (502): the model is not up to this schema,
   and a loop of retries would only cost the caller time.
"""

from __future__ import annotations

import json
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeVar

from pydantic import BaseModel, SecretStr, ValidationError

from garage_tools.errors import ProviderBadReply, ProviderUnavailable
from garage_tools.observability.metrics import record_provider_call
from garage_tools.providers.transport import RequestRefused, Transport

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

MAX_ECHO_CHARS = 4000  # how much of a bad reply is shown back to the model when asking for a repair
REFUSED_RETRY_AFTER = 60  # a refused request (bad key, unknown model) needs the operator, not a quick retry
BAD_REPLY_MESSAGE = "The model's answer could not be used (it was not the JSON asked for, twice). Try again."
REFUSED_MESSAGE = "The model provider refused the request; the operator has been told. Retry later."


@dataclass(frozen=True, slots=True)
class Image:
    data: bytes
    mime_type: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the conversation: the user's prompt (maybe with an image) or the model's reply."""

    role: Literal["user", "assistant"]
    text: str
    image: Image | None = None


class BadReply(Exception):
    """The reply is not JSON, or not JSON fitting the schema; the message says how, for the model."""


class NotAChatAnswer(Exception):
    """The server answered 2xx JSON, but not in its API's shape: most likely the base URL points elsewhere."""


def json_instructions(schema: type[BaseModel]) -> str:
    """The part of the system prompt that pins the reply to `schema`."""
    document = json.dumps(schema.model_json_schema(by_alias=True), separators=(",", ":"))
    return (
        "Reply with exactly one JSON object and nothing else: no prose, no Markdown, no code fences. "
        f"It must validate against this JSON Schema:\n{document}"
    )


def parse_reply(text: str, schema: type[M]) -> M:
    """The reply as an instance of `schema`, or `BadReply` saying what is wrong with it."""
    body = text.strip()
    if not body.startswith("{"):
        start, end = body.find("{"), body.rfind("}")
        if start == -1 or end < start:
            raise BadReply("the reply contains no JSON object")
        body = body[start : end + 1]
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise BadReply(f"the reply is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'the object'}: {error['msg']}"
            for error in exc.errors(include_url=False, include_input=False)
        )
        raise BadReply(f"the JSON does not match the schema ({problems})") from None


def repair_prompt(problem: BadReply) -> str:
    return f"That reply cannot be used: {problem}. Answer again with only the corrected JSON object."


class ChatModel(ABC):
    """A chat API client that implements both `LanguageModel` and `VisionModel` (providers/base.py)."""

    provider: ClassVar[str]

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        api_key: SecretStr | None,
        timeout_seconds: float,
        max_retries: int,
    ) -> None:
        self.model = model
        self.name = f"{self.provider}:{model}"
        self.transport = Transport(
            name=self.name,
            base_url=base_url,
            headers=self._headers(api_key.get_secret_value() if api_key is not None else None),
            timeout_seconds=timeout_seconds,
            max_retries=max_retries,
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} at {self.transport.base_url}>"  # never the key

    @abstractmethod
    def _headers(self, api_key: str | None) -> dict[str, str]:
        """The headers every request carries (authentication, API version)."""

    @abstractmethod
    async def _reply(self, system: str, turns: Sequence[Turn]) -> str:
        """One request: the model's text answer to `turns` under `system`."""

    async def complete_json(self, *, system: str, prompt: str, schema: type[M]) -> M:
        """`LanguageModel`: the answer to a text prompt, as `schema`."""
        return await self._measured("complete_json", system, [Turn("user", prompt)], schema)

    async def analyse_json(self, *, system: str, prompt: str, image: bytes, mime_type: str, schema: type[M]) -> M:
        """`VisionModel`: the answer to a prompt about one image, as `schema`."""
        return await self._measured("analyse_json", system, [Turn("user", prompt, Image(image, mime_type))], schema)

    async def _measured(self, operation: str, system: str, turns: list[Turn], schema: type[M]) -> M:
        """`_ask_json`, with its latency and outcome recorded for /metrics."""
        started = time.perf_counter()
        outcome = "error"
        try:
            answer = await self._ask_json(system, turns, schema)
            outcome = "ok"
            return answer
        except ProviderUnavailable:
            outcome = "unavailable"
            raise
        except ProviderBadReply:
            outcome = "bad_reply"
            raise
        finally:
            record_provider_call(self.provider, operation, time.perf_counter() - started, outcome)

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def _ask_json(self, system: str, turns: list[Turn], schema: type[M]) -> M:
        instructions = f"{system}\n\n{json_instructions(schema)}"
        reply = await self._ask(instructions, turns)
        try:
            return parse_reply(reply, schema)
        except BadReply as problem:
            log.warning("%s: reply does not fit %s (%s); asking for a correction", self.name, schema.__name__, problem)
            turns = [*turns, Turn("assistant", reply[:MAX_ECHO_CHARS]), Turn("user", repair_prompt(problem))]
        reply = await self._ask(instructions, turns)
        try:
            return parse_reply(reply, schema)
        except BadReply as problem:
            log.warning("%s: corrected reply does not fit %s either (%s)", self.name, schema.__name__, problem)
            raise ProviderBadReply(BAD_REPLY_MESSAGE) from None

    async def _ask(self, system: str, turns: Sequence[Turn]) -> str:
        try:
            return await self._reply(system, turns)
        except RequestRefused as refused:
            # Retrying will not help: the key, the model name or a parameter is wrong. The operator must act.
            log.error("%s: the provider refused the request (%s)", self.name, refused)
            raise ProviderUnavailable(REFUSED_MESSAGE, retry_after=REFUSED_RETRY_AFTER) from None
        except NotAChatAnswer as odd:
            log.error("%s: the answer is not in the API's shape (%s); check the base URL", self.name, odd)
            raise ProviderUnavailable(REFUSED_MESSAGE, retry_after=REFUSED_RETRY_AFTER) from None
