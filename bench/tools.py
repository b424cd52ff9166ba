"""Tool-level latency in process: diagnose, routeByZip, retrieveLabContext and submitInspection.

Each call is the one every surface makes, `invoke(registry, name, arguments, context)` with the context
`Services.tool_context` builds (input validation, the handler, output validation), on the embedded
defaults: the packaged knowledge and partner directory, and a fresh SQLite file for the reports.
HTTP and JSON encoding are left out; bench/run.py measures the whole server. The arguments cycle through
varied inputs, so caches (the matcher's recent descriptions, shared answers) are hit as often as real
traffic with repeated chip phrases would hit them, not on every call.

Usage (from the repository root):

    uv run python bench/tools.py                 # 2,000 measured calls per tool after 200 warm-up calls
    uv run python bench/tools.py --calls 500 --only submitInspection
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from garage_tools.access.caller import Caller, Tier
from garage_tools.registry import invoke
from garage_tools.services import build_services
from garage_tools.settings import Settings
from garage_tools.tools import build_registry

DESCRIPTIONS = [
    "loud bang",
    "my door makes a loud bang",
    "the door won't close all the way",
    "grinding noise when it opens",
    "door opens partially then stops",
    "remote not working since yesterday",
    "weather seal is torn at the bottom",
    "door is crooked and moves unevenly",
    "it squeaks a lot",
    "garage door wont open in the cold",
]
PLACES = ["84770", "84790-1234", "Salt Lake City, UT", "Phoenix, AZ", "10001", "59101", "Saint George, UT"]
QUESTIONS = [
    "how do torsion springs work",
    "why did my spring break in the cold",
    "is an insulated door worth it",
    "how do photo eyes stop the door",
    "what does IPPT mean",
    "how long do springs last",
]
STATUSES = ["ok", "watch", "fix"]
ITEMS = ["springs", "cables", "rollers", "hinges", "track", "bottom-seal", "drums", "door-panels-interior"]


def arguments(tool: str) -> Iterator[dict[str, Any]]:
    """Varied, valid arguments for `tool`, forever."""
    if tool == "diagnose":
        yield from ({"description": text} for text in itertools.cycle(DESCRIPTIONS))
    elif tool == UNSEEN:  # every description new to the matcher: the full matching pass each time
        texts = itertools.cycle(DESCRIPTIONS)
        yield from ({"description": f"{next(texts)} since day {n}"} for n in itertools.count())
    elif tool == "routeByZip":
        heats = itertools.cycle(["hot", "warm", "cold"])
        yield from ({"zipOrLocation": place, "leadHeat": next(heats)} for place in itertools.cycle(PLACES))
    elif tool == "retrieveLabContext":
        yield from ({"query": question} for question in itertools.cycle(QUESTIONS))
    elif tool == "submitInspection":
        for n in itertools.count():
            items = {item: {"status": STATUSES[(n + i) % 3]} for i, item in enumerate(ITEMS)}
            yield {
                "recipient": {"email": f"bench-{n}@example.com", "zip": "84770"},
                "consent": {"marketing": False, "contactShare": False},
                "items": items,
            }
    else:
        raise SystemExit(f"no arguments for {tool}")


UNSEEN = "diagnose (unseen text)"
TOOLS = ["diagnose", UNSEEN, "routeByZip", "retrieveLabContext", "submitInspection"]


async def measure(tool: str, calls: int, warmup: int, workdir: Path) -> dict[str, float]:
    name = "diagnose" if tool == UNSEEN else tool
    services = build_services(Settings(_env_file=None, data_dir=workdir / f"run-{TOOLS.index(tool)}"))  # type: ignore[call-arg]
    registry = build_registry()
    await services.start()
    try:
        caller = Caller(tier=Tier.PRO, surface="bench", key_id="bench", partition="pro:bench")
        context = services.tool_context(caller, "http://127.0.0.1:8000")
        feed = arguments(tool)
        for _ in range(warmup):
            await invoke(registry, name, next(feed), context)
        samples = []
        for _ in range(calls):
            args = next(feed)
            started = time.perf_counter()
            await invoke(registry, name, args, context)
            samples.append((time.perf_counter() - started) * 1000)
    finally:
        await services.close()
    samples.sort()
    return {
        "p50": statistics.median(samples),
        "p99": samples[int(len(samples) * 0.99) - 1],
        "max": samples[-1],
        "mean": statistics.fmean(samples),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--only", choices=TOOLS, action="append")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="garage-bench-tools-") as workdir:
        print("| tool | calls | p50 ms | p99 ms | max ms | mean ms |\n|---|---|---|---|---|---|")
        for tool in args.only or TOOLS:
            result = asyncio.run(measure(tool, args.calls, args.warmup, Path(workdir)))
            print(
                f"| {tool} | {args.calls} | {result['p50']:.3f} | {result['p99']:.3f} | "
                f"{result['max']:.3f} | {result['mean']:.3f} |"
            )


if __name__ == "__main__":
    main()
