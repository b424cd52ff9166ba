"""diagnose on free text: the share of homeowners' phrasings diagnosed right, without and with the offline fallback.

The set, bench/data/diagnose_phrasings.json, holds labelled descriptions written the way people type
them (typos, slang, indirect wording), none of them a chip phrase or one of the fallback's example
phrasings, plus a few texts that are no garage door symptom at all. It is held out: written before
the last change to knowledge/data/symptom_exemplars.json and the matcher, and never used to tune
them. Tuning happens on bench/data/diagnose_phrasings_dev.json (`--dev`), which holds the earlier
held-out sets; docs/benchmarks.md has every round's figures.

Each phrasing goes through the real call path, `invoke(registry, "diagnose", ...)`, once as sent and
once with `useLlmFallback: true`, in a process with no language model configured: the second call
is the phrase matcher followed by the offline matcher. "Right" means `symptom.key` equals the label.
For the negatives, the count is how many got a symptom at all (a wrong diagnosis).

Exits 1 when the share with the fallback is under the target (95%), 0 otherwise.

Usage (from the repository root):

    uv run python bench/diagnose_fallback.py            # the figures
    uv run python bench/diagnose_fallback.py --misses   # and every phrasing diagnosed wrong
    uv run python bench/diagnose_fallback.py --dev      # the development set the fallback was tuned on
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from garage_tools.knowledge.loader import load_knowledge
from garage_tools.registry import ToolContext, dump, invoke
from garage_tools.tools import build_registry

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tool_context import bench_context

DATA = Path(__file__).parent / "data" / "diagnose_phrasings.json"
DEV_DATA = Path(__file__).parent / "data" / "diagnose_phrasings_dev.json"
TARGET = 0.95


async def diagnose(context: ToolContext, text: str, fallback: bool) -> dict[str, Any]:
    arguments: dict[str, Any] = {"description": text, "useLlmFallback": fallback}
    return dump(await invoke(REGISTRY, "diagnose", arguments, context))


REGISTRY = build_registry()


async def main(data: dict[str, Any], name: str, show_misses: bool) -> int:
    phrasings: list[dict[str, str]] = data["phrasings"]
    negatives: list[dict[str, str]] = data["negatives"]
    context = bench_context(load_knowledge())

    right = {False: 0, True: 0}
    by_method: Counter[str] = Counter()
    per_symptom: dict[str, list[int]] = {}
    misses: list[str] = []
    started = time.perf_counter()
    for item in phrasings:
        text, expected = item["text"], item["expected"]
        tally = per_symptom.setdefault(expected, [0, 0, 0])
        tally[2] += 1
        for fallback in (False, True):
            symptom = (await diagnose(context, text, fallback)).get("symptom")
            got = symptom["key"] if symptom else None
            if got == expected:
                right[fallback] += 1
                tally[fallback] += 1
            elif fallback:
                misses.append(f"  {text!r}: expected {expected}, got {got}")
            if fallback and symptom:
                by_method[symptom["matchedBy"]] += 1
    elapsed = time.perf_counter() - started

    wrongly = {False: 0, True: 0}
    for item in negatives:
        for fallback in (False, True):
            if (await diagnose(context, item["text"], fallback)).get("symptom"):
                wrongly[fallback] += 1
                if fallback:
                    misses.append(f"  {item['text']!r}: expected no symptom")

    total = len(phrasings)
    share = {flag: right[flag] / total for flag in right}
    print(f"{total} labelled phrasings, {len(negatives)} negatives ({name})\n")
    print("| symptom | phrasings | right without fallback | right with offline fallback |")
    print("|---|---|---|---|")
    for key, (without, with_, count) in sorted(per_symptom.items()):
        print(f"| `{key}` | {count} | {without} | {with_} |")
    print(f"| **all** | {total} | **{right[False]} ({share[False]:.1%})** | **{right[True]} ({share[True]:.1%})** |")
    print(f"\nnegatives given a symptom: {wrongly[False]} without, {wrongly[True]} with the fallback")
    print(f"with the fallback, matched by: {dict(by_method)}")
    print(f"{2 * (total + len(negatives))} calls in {elapsed * 1000:.0f} ms")
    if show_misses and misses:
        print("\nwrong with the fallback:")
        print("\n".join(misses))
    verdict = "met" if share[True] >= TARGET else "NOT met"
    print(f"\ntarget with the offline fallback >= {TARGET:.0%}: {verdict}")
    return 0 if share[True] >= TARGET else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--misses", action="store_true", help="list every phrasing diagnosed wrong")
    parser.add_argument("--dev", action="store_true", help="measure the development set (tuned on) instead")
    options = parser.parse_args()
    path = DEV_DATA if options.dev else DATA
    sys.exit(asyncio.run(main(json.loads(path.read_text(encoding="utf-8")), path.name, options.misses)))
