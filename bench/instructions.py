"""Instructions per request, in process, for the service and the bare baseline: a figure a busy machine cannot move.

wrk's requests per second swing with whatever else the two cores are doing; valgrind's instruction count of
the same work does not. This drives the ASGI apps directly (no sockets, no uvicorn: the HTTP parsing both
servers share is left out, so these ratios are harsher than wrk's), once with N requests and once with 2N,
each under `valgrind --tool=callgrind`; the difference over N is the instructions one request costs. A keyed
config (`rest-keyed`) and one from a client that accepts compressed answers (`rest-gzip`, as every browser and HTTP
library does) are compared with their plain twin; `rest-new-text` sends a description never sent before on every
call (the others repeat one, which the service remembers having read).

    uv run python bench/instructions.py                      # every config, 400 requests each (several minutes)
    uv run python bench/instructions.py --only rest --requests 200
    uv run python bench/instructions.py --profile rest       # where the time goes, by stage (cProfile)

`--drive CONFIG N` is what valgrind runs: start the app's lifespan, send N requests, stop.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import itertools
import os
import pstats
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BODY_REST = b'{"description":"my door makes a loud bang"}'
MCP_2026 = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diagnose","arguments":{"description":"my door '
    b'makes a loud bang"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    b'"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}'
)
MCP_2025 = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"diagnose","arguments":{"description":"my door '
    b'makes a loud bang"}}}'
)
JSON = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")]
MCP = [*JSON, (b"accept", b"application/json, text/event-stream")]
#: config -> (app, path, headers, body)
CONFIGS: dict[str, tuple[str, str, list[tuple[bytes, bytes]], bytes]] = {
    "baseline": ("baseline", "/api/v1/diagnose", JSON, BODY_REST),
    "rest": ("service", "/api/v1/diagnose", JSON, BODY_REST),
    "mcp-2026": (
        "service",
        "/mcp",
        [*MCP, (b"mcp-protocol-version", b"2026-07-28"), (b"mcp-method", b"tools/call"), (b"mcp-name", b"diagnose")],
        MCP_2026,
    ),
    "mcp-2025": ("service", "/mcp", [*MCP, (b"mcp-protocol-version", b"2025-11-25")], MCP_2025),
    # REST from a client that accepts compressed answers: every browser and HTTP library says so (wrk does not).
    # A diagnose answer is too small to compress, but the compression layer reads the answer on its way out.
    "rest-gzip": ("service", "/api/v1/diagnose", [*JSON, (b"accept-encoding", b"gzip, deflate, br")], BODY_REST),
}
RAISED_LIMITS = {
    "GARAGE_TOOLS_RATE_LIMIT_PUBLIC": "1000000000/minute;1000000000/day",
    "GARAGE_TOOLS_RATE_LIMIT_PRO": "1000000000/minute;1000000000/day",
    "GARAGE_TOOLS_RATE_LIMIT_MCP_PROTOCOL": "1000000000/minute",
    "GARAGE_TOOLS_LOG_LEVEL": "warning",
}
#: The service's timers, set far apart: the partner directory's refresh, the mail worker's poll, the usage counts'
#: flush and the service-request sweep each query the store, and under valgrind (some 50 times slower) a run of
#: N requests and one of 2N would meet different numbers of them, which moved a figure by up to 60k. None is
#: on a request's path. The partner directory's first load still runs (`settle` waits for it).
QUIET_TIMERS = {
    "GARAGE_TOOLS_PARTNER_REFRESH_SECONDS": "3600",
    "GARAGE_TOOLS_MAIL_WORKER_IN_PROCESS": "false",
    "GARAGE_TOOLS_USAGE_FLUSH_SECONDS": "3600",
    "GARAGE_TOOLS_REQUEST_SWEEP_SECONDS": "86400",
}
#: Keyed configs -> their anonymous twin: the same call with `Authorization: Bearer <key>`, for a key issued in the
#: service's own (temporary) store when it starts.
KEYED = {"rest-keyed": "rest"}
#: Configs compared with their twin (the same call but for one thing), not with the baseline.
TWINS = {**KEYED, "rest-gzip": "rest"}
#: Configs that send a description never sent before on every call -> their twin, which repeats one. The service
#: remembers recent descriptions (the language guesser's and the phrase matcher's readings), so a repeated one is
#: not read again; these show what reading a new one costs. Against the baseline, which reads the words every time.
NEW_TEXT = {"rest-new-text": "rest"}
BODY_NEW_TEXT = b'{"description":"my door makes a loud bang (%d)"}'
#: Which stage a function of the request path belongs to, by its qualified name (the first match wins).
STAGES = [
    ("validate", re.compile(r"pydantic|model_validate|parse_arguments|validate_python")),
    ("limits", re.compile(r"ratelimit|limits\.|count_call|rate_limit|usage_cap")),
    ("caller", re.compile(r"identify|credentials|client_ip|addresses|resolve")),
    ("body", re.compile(r"read_body|body\.py|parse_object|orjson.loads")),
    ("handler", re.compile(r"tools/diagnose|matcher|diagnoser")),
    ("encode", re.compile(r"dump_json|to_json|mcp_encoding|send_json|encode")),
    ("log+metrics", re.compile(r"observability|logging|prometheus")),
    ("headers", re.compile(r"headers\.py|RequestHeaders")),
]


def build(app_name: str) -> Any:
    if app_name == "baseline":
        sys.path.insert(0, str(REPO))
        from bench.baseline_app import app

        return app
    os.environ.update(RAISED_LIMITS | QUIET_TIMERS)
    os.environ.setdefault("GARAGE_TOOLS_DATABASE_URL", f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/bench.db")
    from garage_tools.app import create_app

    return create_app()


async def lifespan(app: Any) -> Callable[[], Any]:
    """Start the app's lifespan; the returned coroutine function ends it."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    started, finished = asyncio.Event(), asyncio.Event()

    async def receive() -> dict[str, Any]:
        return await inbox.get()

    async def send(message: dict[str, Any]) -> None:
        if message["type"].startswith("lifespan.startup"):
            started.set()
        elif message["type"].startswith("lifespan.shutdown"):
            finished.set()

    task = asyncio.ensure_future(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send))
    await inbox.put({"type": "lifespan.startup"})
    await started.wait()

    async def stop() -> None:
        await inbox.put({"type": "lifespan.shutdown"})
        await finished.wait()
        await task

    return stop


async def one_request(app: Any, path: str, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [*headers, (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


async def settle(app: Any) -> None:
    """Let the service's start-up work in the background finish (the partner directory's first load, the
    first polls), so that a run with no requests and one with N do the same of it; else the difference
    between them would count some of it as the requests' work."""
    await app.state.services.tool_data.partners.directory.current()
    for _ in range(5):
        await asyncio.sleep(0.05)


async def with_key(app: Any, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """`headers` with an API key the service's store has just issued."""
    issued = await app.state.services.keys.issue("bench@example.com")
    return [*headers, (b"authorization", f"Bearer {issued.plaintext}".encode())]


async def drive(config: str, requests: int, profile: Path | None = None) -> None:
    app_name, path, headers, body = CONFIGS[KEYED.get(config) or NEW_TEXT.get(config) or config]
    app = build(app_name)
    stop = await lifespan(app) if app_name == "service" else None
    if config in KEYED:
        headers = await with_key(app, headers)
    for _ in range(20):  # warm: caches, the partner directory, first-call imports
        assert await one_request(app, path, headers, body) == 200
    if stop is not None:
        await settle(app)
    # The collector's counters start from zero, so the idle run and the busy one collect at the same points
    # (with the hash seed fixed below): else whether a collection of the older generations falls inside the
    # measured requests moved a config's figure by a tenth from one run to the next.
    gc.collect()
    profiler = cProfile.Profile() if profile else None
    if profiler:
        profiler.enable()
    bodies = (BODY_NEW_TEXT % n for n in range(requests)) if config in NEW_TEXT else itertools.repeat(body, requests)
    for sent in bodies:
        await one_request(app, path, headers, sent)
    if profiler:
        profiler.disable()
        profiler.dump_stats(profile)  # type: ignore[arg-type]
    if stop is not None:
        await stop()


def instructions(config: str, requests: int) -> int:
    """Total instructions of a `--drive` run under callgrind."""
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}/cg.out",
                sys.executable,
                __file__,
                "--drive",
                config,
                str(requests),
            ],
            capture_output=True,
            text=True,
            cwd=out,
            check=False,
            env={**os.environ, "PYTHONHASHSEED": "0"},  # the same dict and set layouts in both runs
        )
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or not found:
            raise SystemExit(f"{config}: valgrind run failed:\n{done.stderr[-3000:]}")
        return int(found.group(1))


def measure(configs: list[str], requests: int) -> dict[str, float]:
    """Each config's instructions a request: the slope between a run of N requests and one of 2N.

    Not a run of N against an idle one: what a run does once (the start-up's background work, the shutdown) can
    differ between a process that served requests and one that served none, and that difference would be
    spread over the N requests. Between N and 2N only the requests differ.
    """
    per_request = {}
    for config in configs:
        once, twice = instructions(config, requests), instructions(config, 2 * requests)
        per_request[config] = (twice - once) / requests
        print(f"{config:10s} {per_request[config] / 1e3:9.0f} k instructions per request", flush=True)
    for config in configs:
        against = TWINS.get(config, "baseline")
        if config != "baseline" and against in per_request:
            ratio = per_request[against] / per_request[config]
            print(f"{config:10s} {ratio:.2f}x the {against}'s throughput (instructions)")
    return per_request


def stage_profile(config: str, requests: int) -> None:
    """Where a request's time goes, by stage: each stage's own time (tottime) of its functions."""
    with tempfile.TemporaryDirectory() as out:
        path = Path(out) / "profile"
        asyncio.run(drive(config, requests, path))
        stats = pstats.Stats(str(path))
    totals: dict[str, float] = {}
    whole = 0.0
    for (filename, _, name), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        whole += tottime
        key = f"{filename}:{name}"
        stage = next((stage for stage, pattern in STAGES if pattern.search(key)), "framework+other")
        totals[stage] = totals.get(stage, 0.0) + tottime
    print(f"{config}: {whole / requests * 1e6:.0f} us per request under cProfile")
    for stage, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"  {stage:16s} {seconds / requests * 1e6:7.1f} us  {seconds / whole:6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated configs (baseline is always measured)")
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--drive", nargs=2, metavar=("CONFIG", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--profile", metavar="CONFIG", help="a cProfile breakdown by stage instead")
    args = parser.parse_args()
    if args.drive:
        asyncio.run(drive(args.drive[0], int(args.drive[1])))
        return
    if args.profile:
        stage_profile(args.profile, args.requests)
        return
    wanted = args.only.split(",") if args.only else [*(c for c in CONFIGS if c != "baseline"), *KEYED, *NEW_TEXT]
    measure(["baseline", *wanted], args.requests)


if __name__ == "__main__":
    main()
