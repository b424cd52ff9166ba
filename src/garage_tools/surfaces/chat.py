"""`POST /v1/chat/completions` and `GET /v1/models`: the `ask` tool in the OpenAI chat completions protocol.

Voice and chat products (phone answering, website chat, messaging bots) speak this protocol and cannot
call MCP. The surface only translates: the conversation's last user message becomes `ask`'s question and
the earlier user messages its context; the answer comes back as one assistant message (or as server-sent
chunks ending in `data: [DONE]`), with its sources both in the text and as a `sources` field.

Admission is the REST gate's, for the `ask` tool: the same tiers and limits, the browser challenge
(`challengeToken` in the body), one count per call. OpenAI's SDKs refuse to start without an API key, so
`Authorization: Bearer anonymous` is the public tier here; an API key is the pro tier.

Errors keep the service's envelope (`code`, `message`, `status`) and add the two fields OpenAI's clients
read (`type`, `param`), so the same body is both: `{"error": {"message", "type", "param", "code", "status"}}`.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from garage_tools.access.oauth_resources import RESOURCE_OF_SURFACE
from garage_tools.errors import FieldProblem, InvalidArguments, NotFound, ServiceError
from garage_tools.headers import RequestHeaders
from garage_tools.registry import Registry, Tool, dump, invoke
from garage_tools.services import Services
from garage_tools.surfaces.gate import Admitted, RestGate
from garage_tools.tools.ask import AskOutput

MODEL_ID = "garage-tools"
ASK_TOOL = "ask"
#: When the model was first offered (the `created` of `GET /v1/models`): fixed, so the listing never changes.
MODEL_CREATED = 1795737600  # 2026-11-27
ANONYMOUS_KEYS = frozenset({"anonymous", ""})
MAX_MESSAGES = 50
MAX_CONTEXT_MESSAGES = 6
_TOKEN = re.compile(r"\w+|[^\w\s]")
_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


class UnknownModel(NotFound):
    code = "model_not_found"


def error_body(error: ServiceError) -> dict[str, Any]:
    """The service's envelope with OpenAI's `type` and `param` added: one body both kinds of client read."""
    envelope = error.envelope()
    body = envelope["error"]
    body["type"] = _OPENAI_TYPES.get(error.status, "invalid_request_error" if error.status < 500 else "api_error")
    body["param"] = error.details[0].field if error.details else None
    return envelope


async def send_chat_error(error: ServiceError, send: Send, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = orjson.dumps(error_body(error))
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in error.headers.items()]
    if extra:
        named = {name for name, _ in headers}
        headers += [header for header in extra if header[0] not in named]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class ChatGate(RestGate):
    """The REST gate for one tool, `ask`, with the OpenAI SDKs' placeholder key taken as no key; an API key or
    an OAuth access token issued for `/v1` gives the pro tier."""

    caller_surface = "chat"
    resource_path = RESOURCE_OF_SURFACE[caller_surface]

    async def _admit(self, scope: Scope, receive: Receive, tool: Tool[Any, Any] | None = None) -> Admitted:
        headers = RequestHeaders.of(scope)
        headers.authorization = [value for value in headers.authorization if not _anonymous(value)]
        return await super()._admit(scope, receive, tool or self.registry.get(ASK_TOOL))


def _anonymous(authorization: str) -> bool:
    scheme, _, token = authorization.partition(" ")
    return scheme.lower() == "bearer" and token.strip().lower() in ANONYMOUS_KEYS


class ChatSurface:
    """Turns an admitted chat request into an `ask` call and its answer into a chat completion."""

    def __init__(self, registry: Registry, services: Services) -> None:
        self.registry = registry
        self.services = services

    async def __call__(self, request: Admitted, send: Send) -> None:
        assert request.arguments is not None
        context = self.services.tool_context(request.caller, request.base_url, request.headers.idempotency_key)
        try:
            chat = ChatRequest.read(request.arguments)
            result = await invoke(self.registry, ASK_TOOL, chat.ask_arguments(), context)
        except ServiceError as error:
            await send_chat_error(error, send, request.answer_headers())
            return
        assert isinstance(result, AskOutput)
        completion = Completion(chat, result)
        if chat.stream:
            await completion.send_stream(send, request.answer_headers())
        else:
            body = orjson.dumps(completion.whole())
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers + request.answer_headers()})
            await send({"type": "http.response.body", "body": body})


class ChatRequest:
    """The parts of a chat completions request this service acts on; the rest (temperature, ...) is ignored."""

    def __init__(self, model: str, messages: list[tuple[str, str]], stream: bool, include_usage: bool) -> None:
        self.model = model
        self.messages = messages
        self.stream = stream
        self.include_usage = include_usage

    @classmethod
    def read(cls, body: dict[str, Any]) -> ChatRequest:
        model = body.get("model", MODEL_ID)
        if not isinstance(model, str) or model != MODEL_ID:
            raise UnknownModel(f"The model {model!r} does not exist here. Use {MODEL_ID!r} (see GET /v1/models).")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or len(messages) > MAX_MESSAGES:
            raise _invalid("messages", f"must be a list of 1 to {MAX_MESSAGES} messages")
        read = [_message(index, message) for index, message in enumerate(messages)]
        if not any(role == "user" for role, _ in read):
            raise _invalid("messages", "must hold at least one message with role 'user'")
        stream = body.get("stream", False)
        if not isinstance(stream, bool) and stream is not None:
            raise _invalid("stream", "must be true or false")
        options = body.get("stream_options") or {}
        include_usage = bool(options.get("include_usage")) if isinstance(options, dict) else False
        return cls(model, read, bool(stream), include_usage)

    def ask_arguments(self) -> dict[str, Any]:
        """The last user message is the question; the user's earlier messages are its context."""
        said = [text for role, text in self.messages if role == "user"]
        earlier = said[:-1][-MAX_CONTEXT_MESSAGES:]
        arguments: dict[str, Any] = {"question": said[-1]}
        if earlier:
            arguments["context"] = "\n".join(earlier)[-4000:]
        return arguments

    @property
    def prompt_tokens(self) -> int:
        return sum(count_tokens(text) for _, text in self.messages)


def _message(index: int, message: Any) -> tuple[str, str]:
    field = f"messages.{index}"
    if not isinstance(message, dict):
        raise _invalid(field, "must be an object with 'role' and 'content'")
    role = message.get("role")
    if role not in ("system", "developer", "user", "assistant", "tool"):
        raise _invalid(f"{field}.role", "must be system, developer, user, assistant or tool")
    content = message.get("content")
    if content is None:
        return role, ""
    if isinstance(content, str):
        return role, content
    if isinstance(content, list):  # content parts: the text parts count, images and audio are not read here
        return role, " ".join(
            part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    raise _invalid(f"{field}.content", "must be a string or a list of content parts")


def _invalid(field: str, message: str) -> InvalidArguments:
    return InvalidArguments(
        f"Invalid request: {field}: {message}", details=[FieldProblem(field=field, message=message)]
    )


def count_tokens(text: str) -> int:
    """Words and punctuation marks: an approximation of a model's tokens (no model's tokenizer is involved)."""
    return len(_TOKEN.findall(text))


def message_text(result: AskOutput) -> str:
    """The assistant's message: the answer, then its sources as numbered lines."""
    lines = [result.answer]
    if result.sources:
        lines.append("")
        lines.append("Sources:")
        lines += [f"[{s.id}] {s.title}" + (f": {s.url}" if s.url else f" ({s.tool})") for s in result.sources]
    return "\n".join(lines)


class Completion:
    """One answer as a chat completion, whole or as a stream of chunks."""

    def __init__(self, chat: ChatRequest, result: AskOutput) -> None:
        self.chat = chat
        self.result = result
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.text = message_text(result)

    def usage(self) -> dict[str, int]:
        completion = count_tokens(self.text)
        prompt = self.chat.prompt_tokens
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _extras(self) -> dict[str, Any]:
        answer = dump(self.result)
        return {"sources": answer["sources"], "garage_tools": answer}

    def whole(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": MODEL_ID,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": self.usage(),
            **self._extras(),
        }

    def _chunk(self, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        chunk = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": MODEL_ID,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            **extra,
        }
        return b"data: " + orjson.dumps(chunk) + b"\n\n"

    def pieces(self) -> list[str]:
        """The message in pieces a reader sees arrive: a sentence or a line at a time, nothing lost or added."""
        return [piece for piece in re.split(r"(?<=[.!?\n])(?=\s)", self.text) if piece]

    async def send_stream(self, send: Send, extra: list[tuple[bytes, bytes]]) -> None:
        headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers + extra})

        async def emit(data: bytes) -> None:
            await send({"type": "http.response.body", "body": data, "more_body": True})

        await emit(self._chunk({"role": "assistant", "content": ""}))
        for piece in self.pieces():
            await emit(self._chunk({"content": piece}))
        await emit(self._chunk({}, "stop", **self._extras()))
        if self.chat.include_usage:
            usage = {"id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": MODEL_ID}
            await emit(b"data: " + orjson.dumps({**usage, "choices": [], "usage": self.usage()}) + b"\n\n")
        await send({"type": "http.response.body", "body": b"data: [DONE]\n\n", "more_body": False})


def model_card() -> dict[str, Any]:
    return {"id": MODEL_ID, "object": "model", "created": MODEL_CREATED, "owned_by": "garage-tools"}


async def list_models(request: Request) -> Response:
    """`GET /v1/models`: the one model, in OpenAI's list shape."""
    return Response(orjson.dumps({"object": "list", "data": [model_card()]}), media_type="application/json")


async def get_model(request: Request) -> Response:
    """`GET /v1/models/{model}`: the model, or 404 in the chat error shape."""
    if request.path_params["model"] != MODEL_ID:
        error = UnknownModel(f"The model {request.path_params['model']!r} does not exist here. Use {MODEL_ID!r}.")
        return Response(orjson.dumps(error_body(error)), status_code=404, media_type="application/json")
    return Response(orjson.dumps(model_card()), media_type="application/json")
