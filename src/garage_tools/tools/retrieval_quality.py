"""How well `retrieveLabContext` answers a set of questions: recall@k and MRR.

The benchmark (bench/retrieval.py) reports these figures and a unit test holds CI to the recall@5
target, so both must score in exactly the same way; this module is that one way. Each question
names the lab section a good answer cites. It is asked through `invoke`, the call every surface
makes, with topK 10 and no labSlug; its rank is where that (labSlug, anchor) comes in the answer.
A question is a hit at k when its rank is at most k; recall@k is the share of hits at k, and MRR
the mean of 1/rank, counting 0 for a section missing from the ten.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from garage_tools.registry import Registry, ToolContext, invoke
from garage_tools.tools.retrieval import MAX_TOP_K, RetrieveOutput

#: The quality the labs' search must keep: the expected section among the first five for 90% of questions.
TARGET_RECALL_AT_5 = 0.9


@dataclass(frozen=True, slots=True)
class LabQuestion:
    """A homeowner's question and the section that answers it (one entry of bench/data/lab_questions*.json)."""

    question: str
    lab_slug: str
    anchor: str


@dataclass(frozen=True, slots=True)
class Asked:
    """One question's outcome: the expected section's rank (None when not in the answer) and what came back."""

    question: LabQuestion
    rank: int | None
    found: tuple[str, ...]  # `slug#anchor` of every chunk, best first


@dataclass(frozen=True, slots=True)
class Quality:
    """The outcomes of a whole question set, with the figures the benchmark reports."""

    asked: tuple[Asked, ...]

    def recall(self, k: int) -> float:
        """The share of questions whose section ranks k or better."""
        return sum(1 for a in self.asked if a.rank is not None and a.rank <= k) / len(self.asked)

    @property
    def mrr(self) -> float:
        """Mean reciprocal rank over the top ten (a missing section counts 0)."""
        return sum(1 / a.rank for a in self.asked if a.rank is not None) / len(self.asked)


def load_questions(path: Path) -> list[LabQuestion]:
    """The questions of a JSON list of `{question, labSlug, anchor}` objects."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [LabQuestion(item["question"], item["labSlug"], item["anchor"]) for item in raw]


def rank_of(result: RetrieveOutput, lab_slug: str, anchor: str) -> int | None:
    """The rank of the expected section in `result`, or None when it is not there."""
    return next((c.rank for c in result.chunks if (c.lab_slug, c.anchor) == (lab_slug, anchor)), None)


async def evaluate(registry: Registry, context: ToolContext, questions: Sequence[LabQuestion]) -> Quality:
    """Ask every question as a pro caller would (`context` must allow the bearer-only tool) and score the answers."""
    asked: list[Asked] = []
    for question in questions:
        result = await invoke(registry, "retrieveLabContext", {"query": question.question, "topK": MAX_TOP_K}, context)
        assert isinstance(result, RetrieveOutput)
        found = tuple(f"{c.lab_slug}#{c.anchor}" for c in result.chunks)
        asked.append(Asked(question, rank_of(result, question.lab_slug, question.anchor), found))
    return Quality(tuple(asked))
