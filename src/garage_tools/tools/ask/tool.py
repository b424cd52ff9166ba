"""`ask`: any garage-door question in plain words to a short answer that cites the tools it came from."""

from __future__ import annotations

from garage_tools.knowledge.ask_words import packaged_ask_words
from garage_tools.registry import Tool, ToolContext
from garage_tools.tools.ask.compose import Composer
from garage_tools.tools.ask.model_path import answer_with_model
from garage_tools.tools.ask.models import AskInput, AskOutput
from garage_tools.tools.ask.reading import read_question


async def ask(args: AskInput, ctx: ToolContext) -> AskOutput:
    """With a language model configured, the model picks the tools and writes; else (or when it fails) the
    templates do. Either way the facts, the citations and the safety note come from the tools."""
    words = packaged_ask_words()
    reading = read_question(ctx.knowledge, words, args)
    composer = Composer(words)
    answer = await composer.answer(reading, ctx)
    model = ctx.data.models.language
    if model is None:
        return answer
    return await answer_with_model(model, args, reading, answer, ctx)


TOOL = Tool(
    name="ask",
    icon="ask",
    title="Answer a garage door question",
    summary=(
        "Any garage-door question in plain words to a short, cited answer (symptoms, prices, DIY safety, how parts "
        "work)."
    ),
    description=(
        "Give the person's question as they asked it (`question`), and optionally what they said before "
        "(`context`), a ZIP code and a door size. Returns a short answer in plain words whose factual sentences "
        "cite their sources as [n] (`sources`: the tool each fact came from, with a page to read more), the "
        "safety note whenever a dangerous part is involved (show it as is), and for a symptom its urgency, a "
        "local price and a local pro when the ZIP code is known. Use it when you want an answer to show a "
        "person; call diagnose, costEstimate, routeByZip or getDoorStyles directly when you want the data. "
        "Also served as an OpenAI-compatible chat endpoint: POST /v1/chat/completions."
    ),
    input_model=AskInput,
    output_model=AskOutput,
    handler=ask,
)
