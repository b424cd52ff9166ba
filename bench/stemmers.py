"""retrieveLabContext with each stemmer: the hand-written Porter stemmer against Snowball's (PyStemmer).

Issue 27 asks for a library stemmer in place of the hand-written one where it measures equal or better.
For each candidate this builds the lab index afresh with that stemmer (`lab_index.stem` swapped before
the index is built) and measures recall@5 and MRR on bench/data/lab_questions.json (the development set)
and bench/data/lab_questions_holdout.json (held out), plus the time to stem every word of both sets.

Candidates: `hand-written` (the Porter stemmer knowledge/stemmer.py used to carry, kept in
bench/porter_stemmer.py for this comparison only; run with PYTHONPATH=bench to include it),
`snowball-porter` (PyStemmer's "porter", the same 1980 algorithm) and `snowball-english`
(PyStemmer's "english", Porter2, the algorithm Snowball recommends for English).

    PYTHONPATH=bench uv run python bench/stemmers.py
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

import Stemmer

from garage_tools.access.caller import Caller, Tier
from garage_tools.knowledge import lab_index as index_module
from garage_tools.knowledge.loader import load_knowledge
from garage_tools.tools import build_registry
from garage_tools.tools.retrieval_quality import evaluate, load_questions

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tool_context import bench_context

DATA = Path(__file__).parent / "data"
Stem = Callable[[str], str]


def candidates() -> dict[str, Stem]:
    found: dict[str, Stem] = {
        "snowball-porter": Stemmer.Stemmer("porter").stemWord,
        "snowball-english": Stemmer.Stemmer("english").stemWord,
    }
    try:
        from porter_stemmer import stem as hand_written  # bench/porter_stemmer.py, the old module

        found = {"hand-written": hand_written, **found}
    except ImportError:
        pass
    return found


async def measure(name: str, stem: Stem) -> str:
    index_module.stem = stem  # type: ignore[attr-defined]
    knowledge = load_knowledge()  # a fresh knowledge base: its lab index is built on first use, with `stem`
    caller = Caller(tier=Tier.PRO, surface="bench", key_id="bench")
    context = bench_context(knowledge, caller)
    registry = build_registry()
    dev = await evaluate(registry, context, load_questions(DATA / "lab_questions.json"))
    held = await evaluate(registry, context, load_questions(DATA / "lab_questions_holdout.json"))
    words = [w for q in load_questions(DATA / "lab_questions.json") for w in index_module.words(q.question)]
    bare: Stem = getattr(stem, "__wrapped__", stem)  # without an lru_cache in front
    started = time.perf_counter()
    for _ in range(50):
        for word in words:
            bare(word)
    per_word = (time.perf_counter() - started) / (50 * len(words)) * 1e6
    return (
        f"| `{name}` | {dev.recall(5):.3f} | {dev.mrr:.3f} | {held.recall(5):.3f} | {held.mrr:.3f} | {per_word:.2f} |"
    )


async def main() -> None:
    print("| stemmer | dev recall@5 | dev MRR | held-out recall@5 | held-out MRR | µs a word |")
    print("|---|---|---|---|---|---|")
    for name, stem in candidates().items():
        print(await measure(name, stem))


if __name__ == "__main__":
    asyncio.run(main())
