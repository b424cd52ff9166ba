"""diagnose on homeowners' own words, in English and US Spanish: symptoms found, and look-alikes left alone.

The sets are bench/data/homeowners_{en,es}_{dev,test}.json (issue 27): each item is a text and the symptom
keys acceptable for it (`accept`); an empty list marks a look-alike (another door, a gate, a ladder, an
appliance, the garage's floor or lights, a car, a question) that must get no symptom. The test sets were
written and committed before the matcher was changed, and are never tuned on; the dev sets are.

Every text goes through the real call path, `invoke(registry, "diagnose", ...)`, with `useLlmFallback`
on (the phrase matcher, then the offline fallback; no language model configured). A symptom phrasing is
right when `symptom.key` is one of its `accept` keys; a look-alike is wrong when it gets any symptom. The
p99 is the fallback's own time (the offline matcher, in process, CPU time of the thread) over every English
text.

Targets (issue 27): English >= 97%, Spanish >= 95%, at most 1 in 20 look-alikes with a symptom, and the
English fallback under 5 ms p99. Exits 1 when a target is missed on the sets measured.

    uv run python bench/diagnose_understanding.py                 # test sets (held out)
    uv run python bench/diagnose_understanding.py --set dev       # development sets
    uv run python bench/diagnose_understanding.py --misses        # and every text diagnosed wrong
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from garage_tools.knowledge.loader import load_knowledge
from garage_tools.registry import ToolContext, dump, invoke
from garage_tools.tools import build_registry

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tool_context import bench_context

DATA = Path(__file__).parent / "data"
TARGETS = {"en": 0.97, "es": 0.95}
LOOKALIKE_LIMIT = 0.05
P99_LIMIT_MS = 5.0
REGISTRY = build_registry()


async def diagnose(context: ToolContext, text: str) -> dict[str, Any]:
    return dump(await invoke(REGISTRY, "diagnose", {"description": text, "useLlmFallback": True}, context))


def read_items(path: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["items"]
    return items


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


async def measure(context: ToolContext, path: Path, misses: list[str]) -> dict[str, Any]:
    items = read_items(path)
    symptoms = [item for item in items if item["accept"]]
    lookalikes = [item for item in items if not item["accept"]]
    right = wrong_lookalikes = 0
    for item in symptoms:
        answer = await diagnose(context, item["text"])
        got = answer["symptom"]["key"] if answer.get("symptom") else None
        if got in item["accept"]:
            right += 1
        else:
            misses.append(f"  [{path.stem}] {item['text']!r}: expected {'/'.join(item['accept'])}, got {got}")
    for item in lookalikes:
        answer = await diagnose(context, item["text"])
        if answer.get("symptom"):
            wrong_lookalikes += 1
            misses.append(f"  [{path.stem}] {item['text']!r}: look-alike, got {answer['symptom']['key']}")
    return {
        "set": path.stem,
        "symptoms": len(symptoms),
        "right": right,
        "share": right / len(symptoms),
        "lookalikes": len(lookalikes),
        "lookalikes_with_symptom": wrong_lookalikes,
        "lookalike_share": wrong_lookalikes / len(lookalikes),
    }


def fallback_p99(context: ToolContext, texts: list[str]) -> float:
    """The offline fallback's p99 in milliseconds over `texts` (each run 20 times), in CPU time of this
    thread: on a shared machine the wall clock also counts the time other processes held the core."""
    fallback = context.knowledge.semantic_matcher
    timings = []
    for _ in range(20):
        for text in texts:
            started = time.thread_time()
            fallback.match(text)
            timings.append((time.thread_time() - started) * 1000)
    return statistics.quantiles(timings, n=100)[98]


async def main(which: str, show_misses: bool, json_out: Path | None) -> int:
    context = bench_context(load_knowledge())
    misses: list[str] = []
    rows = [await measure(context, DATA / f"homeowners_{lang}_{which}.json", misses) for lang in ("en", "es")]
    english = read_items(DATA / f"homeowners_en_{which}.json")
    p99 = fallback_p99(context, [item["text"] for item in english])
    ok = p99 < P99_LIMIT_MS
    print("| set | symptom phrasings right | look-alikes given a symptom |")
    print("|---|---|---|")
    for row, lang in zip(rows, ("en", "es"), strict=True):
        ok = ok and row["share"] >= TARGETS[lang] and row["lookalike_share"] <= LOOKALIKE_LIMIT
        print(
            f"| `{row['set']}` | {row['right']}/{row['symptoms']} ({row['share']:.1%}) | "
            f"{row['lookalikes_with_symptom']}/{row['lookalikes']} ({row['lookalike_share']:.1%}) |"
        )
    print(f"\nEnglish offline fallback p99: {p99:.2f} ms")
    if show_misses and misses:
        print("\nwrong:\n" + "\n".join(misses))
    print(f"\ntargets (en >= 97%, es >= 95%, look-alikes <= 5%, p99 < 5 ms): {'met' if ok else 'NOT met'}")
    if json_out is not None:
        write_json(json_out, {"rows": rows, "fallback_p99_ms": p99})
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=("test", "dev"), default="test", help="which sets (default: test)")
    parser.add_argument("--misses", action="store_true", help="list every text diagnosed wrong")
    parser.add_argument("--json-out", type=Path, help="also write the figures as JSON")
    options = parser.parse_args()
    sys.exit(asyncio.run(main(options.set, options.misses, options.json_out)))
