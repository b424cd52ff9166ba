"""The tool registry and `invoke()`, the single call path every surface uses.

A tool is declared once as a `Tool` (name, descriptions, input and output models, auth
policy, MCP annotations, handler). REST, both MCP tiers, OpenAPI, the `/api/v1` index and
llms.txt are all generated from the registry, and every call goes through `invoke`, so the
rules below (credentials, tiers, validation) cannot drift apart between surfaces.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from garage_tools.access.caller import Caller, Tier
from garage_tools.access.limits import UsageCap
from garage_tools.errors import (
    AuthRequired,
    FieldProblem,
    InvalidArguments,
    ServiceError,
    UnknownTool,
    incident,
)
from garage_tools.key_format import EXAMPLE
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.photos import PhotoLibrary, packaged_photo_library
from garage_tools.mail.outbox import Outbox
from garage_tools.models import PATTERN_MEANINGS
from garage_tools.partners.service import Partners
from garage_tools.providers.base import Models
from garage_tools.store.database import Database
from garage_tools.values import value

log = logging.getLogger(__name__)

InT = TypeVar("InT", bound=BaseModel)
OutT = TypeVar("OutT", bound=BaseModel)
Encoded = TypeVar("Encoded")

#: The largest request body a tool accepts unless its declaration says otherwise.
DEFAULT_MAX_BODY_BYTES = 16 * 1024


class AuthPolicy(StrEnum):
    """Who may call a tool."""

    OPTIONAL = "optional"  # anonymous (public tier) and key holders (pro tier) alike
    BEARER = "bearer"  # a valid API key is required


@dataclass(frozen=True, slots=True)
class Question:
    """What to ask the person for a required argument a client left out, rather than fail the call.

    `text` is the question. Without `agree`, the argument is the person's answer in their words; with it, the
    argument is an object whose yes/no field `agree` must be true, and the question is what they agree to
    (a service request's `consent.contactShare`)."""

    text: str
    agree: str | None = None


@dataclass(frozen=True, slots=True)
class Annotations:
    """MCP tool annotations: hints for clients about a tool's side effects.

    Every tool publishes all four; docs/guide.md says why each tool's are what they are (a test holds
    the table to the registry).
    """

    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False


@dataclass(frozen=True, slots=True)
class ToolData:
    """The stores tools read and write. A feature that needs one adds its field here, and only here."""

    database: Database
    outbox: Outbox
    partners: Partners  # the partner directory snapshot and lead recording (routeByZip, getActivePromotions)
    models: Models = field(default_factory=Models)  # language and vision models; empty when none is configured
    photos: PhotoLibrary = field(default_factory=packaged_photo_library)  # the reference photo library


@value
class ToolContext:
    """What a handler may use: the knowledge base, its stores, the caller and the public base URL.

    Deliberately narrow: a handler never sees HTTP, JSON-RPC, settings or the whole service.
    `data` is always there (unit tests of handlers that read no store pass real, unopened stores).
    `idempotency_key` is the caller's `Idempotency-Key` header, for tools that create something.
    """

    knowledge: Knowledge
    caller: Caller
    base_url: str
    data: ToolData
    idempotency_key: str | None = None
    #: The caller's languages, most preferred first (two-letter codes from Accept-Language): a hint for tools
    #: that answer in words (diagnose reads the language from the text itself and uses these on a tie).
    languages: tuple[str, ...] = ()


Handler = Callable[[InT, ToolContext], Awaitable[OutT]]


@dataclass(frozen=True)
class Tool(Generic[InT, OutT]):
    """One tool, declared once."""

    name: str
    title: str
    summary: str
    description: str
    input_model: type[InT]
    output_model: type[OutT]
    handler: Handler[InT, OutT]
    auth: AuthPolicy = AuthPolicy.OPTIONAL
    annotations: Annotations = field(default_factory=Annotations)
    icon: str = "tool"  # a file under web/static/icons/ (without `.svg`): the service serves its own icons
    #: Required arguments a client may ask the person for (argument → the question), rather than fail:
    #: MCP elicitation where the client supports it, and the question in the error where it does not.
    questions: Mapping[str, Question] = field(default_factory=dict)
    view: str | None = None  # an MCP Apps view that draws the answer (surfaces/mcp_apps.py VIEWS)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    usage_cap: UsageCap | None = None


class Registry:
    """An ordered, name-indexed collection of tools."""

    def __init__(self, tools: Iterable[Tool[Any, Any]]) -> None:
        self._tools: dict[str, Tool[Any, Any]] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"tool {tool.name!r} is declared twice")
            self._tools[tool.name] = tool

    def get(self, name: str) -> Tool[Any, Any]:
        """The tool called `name`, or `UnknownTool` (404) naming the tools that exist."""
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownTool(f"No tool named {name!r}. Available tools: {', '.join(self._tools)}.") from None

    def find(self, name: str) -> Tool[Any, Any] | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool[Any, Any]]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> list[str]:
        return list(self._tools)


def authorize(tool: Tool[Any, Any], caller: Caller) -> None:
    """Tier rules, in one place for every surface (the access gate has settled limits already)."""
    caller.refuse_bad_credential()
    if tool.auth is AuthPolicy.BEARER and caller.tier is not Tier.PRO:
        raise AuthRequired(
            f"{tool.name} requires an API key. Send 'Authorization: Bearer {EXAMPLE}'; "
            "keys are free during the beta (see /developers)."
        )


def parse_arguments(tool: Tool[InT, Any], arguments: Mapping[str, Any]) -> InT:
    """Validate raw arguments into the tool's input model, or raise `InvalidArguments`."""
    try:
        # The validator itself: `model_validate` only adds keyword handling around it (0.4 µs on every call).
        parsed: InT = tool.input_model.__pydantic_validator__.validate_python(arguments)
        return parsed
    except ValidationError as exc:
        problems = [_describe(error) for error in exc.errors(include_url=False, include_input=False)]
        problems = [
            FieldProblem(field=p.field, message=f"{p.message}: ask the person. {tool.questions[p.field].text}")
            if p.message == "is required" and p.field in tool.questions
            else p
            for p in problems
        ]
        summary = "; ".join(f"{p.field}: {p.message}" if p.field else p.message for p in problems)
        raise InvalidArguments(f"Invalid arguments for {tool.name}: {summary}", details=problems) from None


def _describe(error: Mapping[str, Any]) -> FieldProblem:
    path = ".".join(str(part) for part in error["loc"])
    kind = error["type"]
    if kind == "missing":
        message = "is required"
    elif kind == "extra_forbidden":
        message = "is not a field of this tool"
    elif kind == "string_pattern_mismatch" and error["ctx"]["pattern"] in PATTERN_MEANINGS:
        message = PATTERN_MEANINGS[error["ctx"]["pattern"]]
    else:
        message = str(error["msg"])
        # Our own validators raise ValueError; pydantic prefixes their text.
        message = message.removeprefix("Value error, ")
    return FieldProblem(field=path, message=message)


async def invoke(registry: Registry, name: str, arguments: Mapping[str, Any], context: ToolContext) -> BaseModel:
    """Run tool `name` for `context.caller`: authorize, validate, handle, validate the output.

    Then settle the usage-cap units the gate reserved for the call (`Caller.reservation`): given back
    when the call failed in a way `UsageCap.counts` says used nothing, kept otherwise. Here, because
    this is where every surface learns the outcome, and before the answer leaves, so the caller's next
    call already sees them.
    """
    tool = registry.get(name)
    reservation = context.caller.reservation
    try:
        authorize(tool, context.caller)
        parsed = parse_arguments(tool, arguments)
        try:
            result: BaseModel = await tool.handler(parsed, context)
            if not isinstance(result, tool.output_model):
                result = tool.output_model.model_validate(result)
        except ServiceError:
            raise
        except Exception:
            raise incident(log, f"tool {tool.name}") from None
        return result
    except ServiceError as error:
        if reservation is not None and tool.usage_cap is not None and not tool.usage_cap.counts(error):
            await reservation.give_back()
        raise
    finally:
        if reservation is not None:
            reservation.keep()  # a result, a counted error or a cancelled call: no-op if given back above


def dump(result: BaseModel) -> dict[str, Any]:
    """The JSON-ready form of a tool result: camelCase names, unset optionals omitted."""
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


class FrozenMemo(Generic[Encoded]):
    """An encoding of tool results, done once for each shared, frozen result.

    Tools such as diagnose answer every call about the same symptom with one shared, immutable
    object, so its encoding for a surface can be kept and reused. Entries hold the object itself, so
    its id cannot be reused while the entry lives; at `entries` the memo starts afresh. Results of
    other models are encoded on every call.
    """

    def __init__(self, encode: Callable[[BaseModel], Encoded], entries: int = 1024) -> None:
        self.encode = encode
        self.entries = entries
        self._memo: dict[int, tuple[BaseModel, Encoded]] = {}

    def __call__(self, result: BaseModel) -> Encoded:
        if not type(result).model_config.get("frozen"):
            return self.encode(result)
        cached = self._memo.get(id(result))
        if cached is not None and cached[0] is result:
            return cached[1]
        encoded = self.encode(result)
        if len(self._memo) >= self.entries:
            self._memo.clear()
        self._memo[id(result)] = (result, encoded)
        return encoded


def _to_json(result: BaseModel) -> bytes:
    encoded: bytes = result.__pydantic_serializer__.to_json(result, by_alias=True, exclude_none=True)
    return encoded


#: `dump` straight to JSON bytes (pydantic-core's serializer; the REST hot path), once per frozen result.
dump_json = FrozenMemo(_to_json)
