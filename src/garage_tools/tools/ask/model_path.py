"""The answerer with a language model: the model picks tools from the registry's own schemas and writes.

Two requests to the operator's model (the providers ask for JSON and check it, providers/chat.py):
first it chooses up to three tool calls, which run here through each tool's own validation and handler;
then it writes the answer from those results alone, citing them as [n]. The safety note is never the
model's: it comes from the diagnostic tree, as on the template path. When the model is down or answers
nonsense, the template answer stands, with `modelError` saying why.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from pydantic import BaseModel, Field

from garage_tools.errors import ProviderBadReply, ProviderUnavailable, ServiceError
from garage_tools.providers.base import LanguageModel
from garage_tools.registry import Tool, ToolContext, dump, parse_arguments
from garage_tools.tools import catalog, cost, diagnose, retrieval, routing
from garage_tools.tools.ask.compose import LAB_DEPTH
from garage_tools.tools.ask.models import AskInput, AskOutput, Source
from garage_tools.tools.ask.reading import Reading

log = logging.getLogger(__name__)

#: The tools the model may call: those that read (nothing that stores, sends or needs a photo).
MODEL_TOOLS: tuple[Tool[Any, Any], ...] = (diagnose.TOOL, cost.TOOL, catalog.TOOL, routing.TOOL, retrieval.TOOL)
MAX_CALLS = 3
MAX_RESULT_CHARS = 6000

PLAN_SYSTEM = (
    "You help homeowners with garage doors. You never state a fact from memory: you choose tool calls whose "
    "answers hold the facts needed. Choose at most three calls, with arguments valid for each tool's schema."
)
WRITE_SYSTEM = (
    "You write a short answer (at most six sentences, plain words, no jargon) to a homeowner's garage-door "
    "question using ONLY the numbered tool results given. End every factual sentence with the number of the "
    "result it comes from, as [1]. If the results do not answer the question, say so plainly. Never give "
    "safety advice of your own; it is added for you."
)


class ToolCall(BaseModel):
    tool: str = Field(description="The tool's name.")
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolPlan(BaseModel):
    calls: list[ToolCall] = Field(max_length=MAX_CALLS)


class Written(BaseModel):
    answer: str = Field(min_length=1, max_length=2000)


def tool_list() -> str:
    """The tools as the model sees them: the same names, summaries and input schemas as every other surface."""
    return "\n".join(
        f"- {tool.name}: {tool.summary} Input schema: "
        + orjson.dumps(tool.input_model.model_json_schema(by_alias=True)).decode()
        for tool in MODEL_TOOLS
    )


async def answer_with_model(
    model: LanguageModel, args: AskInput, reading: Reading, composed: AskOutput, ctx: ToolContext
) -> AskOutput:
    """The model's answer, or `composed` (the template answer) when the model cannot give one."""
    try:
        plan = await model.complete_json(system=PLAN_SYSTEM, prompt=_plan_prompt(args), schema=ToolPlan)
        results = [await _run(call, ctx) for call in plan.calls[:MAX_CALLS]]
        useful = [(call, result) for call, result in results if result is not None]
        if not useful:
            return composed
        written = await model.complete_json(system=WRITE_SYSTEM, prompt=_write_prompt(args, useful), schema=Written)
    except (ProviderUnavailable, ProviderBadReply) as error:
        log.warning("ask: the model could not answer (%s); the templates answer instead", error.code)
        return composed.model_copy(update={"model_error": error.code})
    sources = [
        Source(id=n, title=f"{call.tool} answer", url=_first_url(result), tool=call.tool)
        for n, (call, result) in enumerate(useful, start=1)
    ]
    text = written.answer.strip()
    if composed.safety_note and composed.safety_note not in text:
        text = f"{text} Safety: {composed.safety_note}"
    return composed.model_copy(update={"answer": text, "sources": sources, "composed_by": f"model:{model.name}"})


async def _run(call: ToolCall, ctx: ToolContext) -> tuple[ToolCall, dict[str, Any] | None]:
    """One call the model asked for, through the tool's own validation; a refused call yields nothing."""
    tool = next((t for t in MODEL_TOOLS if t.name == call.tool), None)
    if tool is None:
        return call, None
    arguments = dict(call.arguments)
    if tool is retrieval.TOOL:
        arguments["topK"] = min(int(arguments.get("topK") or 5), LAB_DEPTH[ctx.caller.tier])
    try:
        result = await tool.handler(parse_arguments(tool, arguments), ctx)
    except ServiceError as error:
        log.info("ask: the model's call to %s was refused (%s)", tool.name, error.code)
        return call, None
    return call, dump(result)


def _plan_prompt(args: AskInput) -> str:
    known = f"\nEarlier in the conversation: {args.context}" if args.context else ""
    place = f"\nZIP code: {args.zip}" if args.zip else ""
    return f"Question: {args.question}{known}{place}\n\nTools:\n{tool_list()}"


def _write_prompt(args: AskInput, results: list[tuple[ToolCall, dict[str, Any]]]) -> str:
    blocks = [
        f"[{n}] {call.tool}: " + orjson.dumps(result).decode()[:MAX_RESULT_CHARS]
        for n, (call, result) in enumerate(results, start=1)
    ]
    return f"Question: {args.question}\n\nTool results:\n" + "\n".join(blocks)


def _first_url(result: dict[str, Any]) -> str | None:
    """A page to read more from a tool's answer: a lab section, else a source of figures."""
    for chunk in result.get("chunks") or []:
        return str(chunk.get("url"))
    for source in result.get("sources") or []:
        return str(source.get("url"))
    return None
