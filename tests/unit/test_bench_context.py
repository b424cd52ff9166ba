"""The benchmarks that call tools in process build their context with `bench/tool_context.py`: it must stay a
context a tool runs with (five of them broke, unnoticed, when `ToolContext` gained its stores)."""

from __future__ import annotations

import sys
from pathlib import Path

from garage_tools.knowledge.loader import Knowledge
from garage_tools.registry import dump, invoke
from garage_tools.tools import build_registry

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.tool_context import bench_context


async def test_a_benchmark_context_runs_a_tool(knowledge: Knowledge) -> None:
    answer = dump(await invoke(build_registry(), "diagnose", {"description": "loud bang"}, bench_context(knowledge)))
    assert answer["symptom"]["key"] == "banging_noise"
