"""Benchmark baseline: bare Starlette + orjson, no validation, no middleware.

This is the "framework ceiling" that `bench/run.py` compares the real service against: one
`Route("/api/v1/{tool}")`, the body parsed with `orjson.loads`, and a ~1 KB JSON answer found by a
dict lookup on the first known word of `description`. The answer has the same shape as the real
`diagnose` result (`symptom.key == "banging_noise"` for "my door makes a loud bang"), so the
driver can check both servers the same way.

Run it on its own from the repository root:

    .venv/bin/python -m uvicorn bench.baseline_app:app --port 8001 --no-access-log --log-level warning
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

_BANG: dict[str, Any] = {
    "symptom": {"key": "banging_noise", "label": "Loud bang", "urgency": "emergency", "matchedPhrase": "bang"},
    "likelyIssues": [
        {
            "key": "broken_spring",
            "name": "Broken or failing spring",
            "description": "A torsion or extension spring has snapped or worn out: a loud bang, a gap in the coil, "
            "a door that suddenly feels very heavy or stops after a few inches.",
            "costRange": {"min": 150, "max": 350, "currency": "USD"},
            "diyRisk": "unsafe",
            "urgency": "emergency",
            "safetyNote": "Springs carry the door's whole weight under extreme tension. Do not run the opener; "
            "call a trained technician.",
        },
        {
            "key": "broken_cable",
            "name": "Frayed or broken lift cable",
            "description": "A lift cable has frayed, snapped or jumped off its drum, so the door tips and jams.",
            "costRange": {"min": 150, "max": 350, "currency": "USD"},
            "diyRisk": "unsafe",
            "urgency": "emergency",
            "safetyNote": "Cables are under spring tension. Stop using the door and call a professional.",
        },
    ],
    "safetyFlag": True,
    "diySafe": False,
}
_NO_MATCH: dict[str, Any] = {
    "likelyIssues": [],
    "safetyFlag": False,
    "diySafe": False,
    "hint": "Describe what the door does or sounds like.",
}
KNOWLEDGE: dict[str, dict[str, Any]] = {"bang": _BANG, "banging": _BANG, "snapped": _BANG}


def diagnose(arguments: dict[str, Any]) -> dict[str, Any]:
    for word in str(arguments.get("description", "")).lower().split():
        found = KNOWLEDGE.get(word)
        if found is not None:
            return found
    return _NO_MATCH


TOOLS = {"diagnose": diagnose}


async def call_tool(request: Request) -> Response:
    tool = TOOLS.get(request.path_params["tool"])
    if tool is None:
        return Response(b'{"error":"unknown tool"}', status_code=404, media_type="application/json")
    try:
        arguments = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        return Response(b'{"error":"invalid json"}', status_code=400, media_type="application/json")
    if not isinstance(arguments, dict):
        return Response(b'{"error":"not an object"}', status_code=400, media_type="application/json")
    return Response(orjson.dumps(tool(arguments)), media_type="application/json")


app = Starlette(routes=[Route("/api/v1/{tool}", call_tool, methods=["POST"])])
