"""The labs' search keeps its quality: the evaluation set scored exactly as bench/retrieval.py scores it.

A ranking change that loses answers fails here, in CI, and not only when someone runs the benchmark.
"""

from __future__ import annotations

from pathlib import Path

from garage_tools.access.caller import Caller, Tier
from garage_tools.knowledge.loader import Knowledge
from garage_tools.registry import ToolContext
from garage_tools.tools import build_registry
from garage_tools.tools.retrieval import LabChunk, RetrieveOutput
from garage_tools.tools.retrieval_quality import (
    TARGET_RECALL_AT_5,
    Asked,
    LabQuestion,
    Quality,
    evaluate,
    load_questions,
    rank_of,
)
from tests.tool_data import unopened_data

QUESTIONS = Path(__file__).parents[2] / "bench" / "data" / "lab_questions.json"


async def test_recall_at_5_on_the_evaluation_set_meets_the_target(knowledge: Knowledge) -> None:
    questions = load_questions(QUESTIONS)
    context = ToolContext(
        knowledge=knowledge,
        caller=Caller(tier=Tier.PRO, surface="rest", key_id="test-key"),
        base_url="http://t",
        data=unopened_data(),
    )
    quality = await evaluate(build_registry(), context, questions)
    assert len(quality.asked) == len(questions) >= 40
    misses = [(a.question.question, a.rank, a.found[:3]) for a in quality.asked if a.rank is None or a.rank > 5]
    assert quality.recall(5) >= TARGET_RECALL_AT_5, misses


def test_recall_and_mrr_count_ranks_as_the_benchmark_reports_them() -> None:
    question = LabQuestion("q", "animated", "noises")
    quality = Quality(tuple(Asked(question, rank, ()) for rank in (1, 3, None, 6)))
    assert [quality.recall(k) for k in (1, 3, 5, 10)] == [0.25, 0.5, 0.5, 0.75]
    assert quality.mrr == (1 + 1 / 3 + 1 / 6) / 4


def test_the_rank_is_where_the_expected_section_comes() -> None:
    def chunk(rank: int, slug: str, anchor: str) -> LabChunk:
        return LabChunk(
            rank=rank, score=1.0, text="t", lab_slug=slug, lab_title="T", section_title="S", anchor=anchor, url="u"
        )

    result = RetrieveOutput(chunks=[chunk(1, "animated", "noises"), chunk(2, "animated", "one-cycle")], count=2)
    assert rank_of(result, "animated", "one-cycle") == 2
    assert rank_of(result, "garage-door-roi", "noises") is None  # the anchor alone is not enough
