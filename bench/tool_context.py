"""The `ToolContext` a benchmark calls tools with: the tests' real stores that no tool it measures opens.

The tools these benchmarks call (diagnose, the labs' retrieval) read no store, but a handler's context always
carries one (`ToolContext.data`). The stores are the ones the handlers' unit tests use (`tests/tool_data.py`):
one definition for both.
"""

from __future__ import annotations

from garage_tools.access.caller import Caller
from garage_tools.knowledge.loader import Knowledge
from garage_tools.registry import ToolContext
from tests.tool_data import unopened_data


def bench_context(knowledge: Knowledge, caller: Caller | None = None) -> ToolContext:
    return ToolContext(
        knowledge=knowledge, caller=caller or Caller.anonymous("bench"), base_url="http://bench", data=unopened_data()
    )
