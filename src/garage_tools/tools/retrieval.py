"""`retrieveLabContext`: ranked lab sections for a question, each with a URL an agent can cite.

The search is BM25 over the labs' `##` sections (knowledge/lab_index.py), built once per process
from the same Markdown the lab pages render, so every chunk's anchor exists on its page. It is a
pro-tier tool: the bearer rule in `invoke` refuses anonymous callers on every surface.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from garage_tools.knowledge.lab_index import LabIndex
from garage_tools.knowledge.labs import LAB_SLUGS, section_url
from garage_tools.knowledge.loader import Knowledge
from garage_tools.models import InputModel, OutputModel, WholeNumber
from garage_tools.registry import AuthPolicy, Tool, ToolContext
from garage_tools.tools.labs import check_lab_slug, publish_optional_slug_enum

MAX_QUERY_CHARS = 500
DEFAULT_TOP_K = 5
MAX_TOP_K = 10
#: A chunk's text is the section's plain text, cut at a sentence (or word) near this many characters.
MAX_CHUNK_CHARS = 1500
NO_HITS_HINT = (
    "No lab section uses these words. Ask in plain words about garage doors, e.g. 'how does a torsion spring "
    "work', 'why do springs break in cold weather' or 'what does the photo eye do'."
)


class RetrieveInput(InputModel):
    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="The question or topic, in plain words.",
        examples=["why did my garage door spring break in the cold?"],
    )
    lab_slug: str | None = Field(
        default=None,
        max_length=64,
        description="Only sections of this lab.",
        examples=["science-of-garage-door-springs"],
        json_schema_extra=publish_optional_slug_enum,
    )
    top_k: WholeNumber = Field(
        default=DEFAULT_TOP_K, ge=1, le=MAX_TOP_K, description=f"How many chunks, at most (1 to {MAX_TOP_K})."
    )

    @field_validator("lab_slug")
    @classmethod
    def _known_slug(cls, value: str | None) -> str | None:
        return check_lab_slug(value, "labSlug")


class LabChunk(OutputModel):
    rank: int = Field(description="1 for the best match.")
    score: float = Field(
        description="BM25 relevance, scaled by how much of the query the section matches (higher is better); "
        "comparable within one answer only."
    )
    text: str = Field(description="The section's text, cut near 1,500 characters (ending in '…' when cut).")
    lab_slug: str
    lab_title: str
    section_title: str
    anchor: str = Field(description="The section's anchor on the lab page.")
    url: str = Field(description="The section on the live lab page: cite this.")


class RetrieveOutput(OutputModel):
    chunks: list[LabChunk] = Field(description="Best first; empty when no section matches.")
    count: int
    hint: str | None = Field(default=None, description="What to try when nothing matched.")


def lab_index(knowledge: Knowledge) -> LabIndex:
    """The process's index over `knowledge.labs` (built on first use, then shared)."""
    return knowledge.derived("lab_index", lambda: LabIndex.build(knowledge.labs, knowledge.lab_synonyms))


def trim(text: str, limit: int = MAX_CHUNK_CHARS) -> str:
    """`text` up to `limit` characters, cut after a sentence when one ends in the second half, else at a word."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    sentence = max(head.rfind(". "), head.rfind(".\n"), head.rfind("? "), head.rfind("! "))
    if sentence >= limit // 2:
        return head[: sentence + 1] + " …"
    return head[: head.rfind(" ")].rstrip() + "…" if " " in head else head + "…"


def retrieve(knowledge: Knowledge, args: RetrieveInput, base_url: str) -> RetrieveOutput:
    """Pure ranking over the knowledge base: no I/O."""
    hits = lab_index(knowledge).search(args.query, top_k=args.top_k, lab_slug=args.lab_slug)
    chunks = [
        LabChunk(
            rank=rank,
            score=round(hit.score, 3),
            text=trim(hit.section.text),
            lab_slug=hit.lab.slug,
            lab_title=hit.lab.title,
            section_title=hit.section.title,
            anchor=hit.section.anchor,
            url=section_url(base_url, hit.lab.slug, hit.section.anchor),
        )
        for rank, hit in enumerate(hits, start=1)
    ]
    hint = None
    if not chunks:
        hint = NO_HITS_HINT
        if args.lab_slug is not None:
            hint += f" Or leave out labSlug to search all {len(LAB_SLUGS)} labs."
    return RetrieveOutput(chunks=chunks, count=len(chunks), hint=hint)


async def retrieve_lab_context(args: RetrieveInput, ctx: ToolContext) -> RetrieveOutput:
    return retrieve(ctx.knowledge, args, ctx.base_url)


TOOL = Tool(
    name="retrieveLabContext",
    icon="cite",
    title="Cite the interactive labs",
    summary="Ranked, citable sections of the garage-door labs for a question (BM25; top 5 by default, up to 10).",
    description=(
        "Searches the text of the eleven interactive garage-door labs (springs, balance, insulation and energy, "
        "replacement ROI, rolling steel doors, cold-weather spring fatigue, safety systems, anatomy and more) "
        "and returns the best-matching sections, best first. Each chunk has its text, the lab and section "
        "titles and a URL to that section of the live lab: quote the text and cite the URL. `labSlug` "
        "restricts the search to one lab; `topK` sets how many chunks (default 5, at most 10). No match is an "
        "empty list with a hint, not an error. To show a lab itself, use getLab or getLabEmbed."
    ),
    input_model=RetrieveInput,
    output_model=RetrieveOutput,
    handler=retrieve_lab_context,
    auth=AuthPolicy.BEARER,
)
