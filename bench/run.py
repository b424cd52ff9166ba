"""Throughput benchmark: the service's REST and MCP `diagnose` against a bare Starlette baseline.

Usage (from the repository root):

    uv run python bench/run.py                      # 3 rounds x 10 s, 2 s warm-up, c=32
    uv run python bench/run.py --rounds 1 --duration 3 --only rest
    uv run python bench/run.py --only rest-keyed,mcp-2026-keyed   # their anonymous twins run too
    uv run python bench/run.py --json-out /tmp/bench.json

Method (see docs/benchmarks.md): wrk on loopback with one thread; the server (one uvicorn worker) pinned to
one CPU with `taskset`, wrk pinned to another. Every run starts a fresh server in its own process group,
checks one real response, warms up, measures, and stops the server with SIGTERM to the group. The configs
run interleaved (baseline, rest, mcp-2026, mcp-2025, then the reverse order in the next round, ...), and
each of ours is compared with the baseline run of the same round. Server CPU comes from /proc/<pid>/stat
of the server's process tree.

The access gate and its rate limiter stay in the request path: the service runs with every limit raised
to a billion per window (RAISED_LIMITS, same windows as the defaults), so calls are counted but never
refused. The keyed configs send `Authorization: Bearer <key>` with a key made for each fresh server by
`garage-tools keys create` in the server's working directory (its SQLite file) before it starts; wrk gets
it through GARAGE_BENCH_KEY. Each keyed config is also compared with its anonymous twin of the same round
(rest-keyed with rest, mcp-2026-keyed with mcp-2026): a key may cost at most 1.5x, a ratio >= 1/1.5.
rest-forged sends a different forged, checksum-valid key on every request (each one a store lookup and
a 401), to show what a forged-key flood costs; it is reported only.

Exit status: 0 when every run completed without errors (whether or not a target was met: benchmarks report,
they do not gate), 1 when a run errored (non-2xx responses, socket errors, a server that died), 2 when the
set-up failed (wrk missing, a server that does not start, a pre-flight response that is wrong).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
HOST = "127.0.0.1"  # loopback only, by design
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
STARTUP_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 15.0
WRK_SLACK_S = 60.0  # wrk gets duration + this before it is killed
WRK_TIMEOUT = "5s"  # per-request timeout inside wrk; a timeout counts as an error
EXPECTED_SYMPTOM = "banging_noise"
BUSY_CLEAN = 0.95  # a pinned, saturated server should keep its core at least this busy
SDK_HINT = (
    "Compare the request in bench/{script} with the SDK in {site}: mcp/server/_streamable_http_modern.py, "
    "mcp/shared/inbound.py and mcp_types (PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, "
    "CLIENT_CAPABILITIES_META_KEY)."
)
# The limiter stays in the path with the default windows, but no benchmark comes near a billion calls.
RAISED_LIMITS = {
    "GARAGE_TOOLS_RATE_LIMIT_PUBLIC": "1000000000/minute;1000000000/day",
    "GARAGE_TOOLS_RATE_LIMIT_PRO": "1000000000/minute;1000000000/day",
    "GARAGE_TOOLS_RATE_LIMIT_MCP_PROTOCOL": "1000000000/minute",
    # Invalid keys per address before its keyed calls get 429: raised so that rest-forged shows what each
    # forged key costs when it reaches the store (a flood spread over many addresses), not a refusal.
    "GARAGE_TOOLS_RATE_LIMIT_BAD_KEYS": "1000000000/minute",
}
BENCH_EMAIL = "bench@example.com"
KEY_ENV = "GARAGE_BENCH_KEY"  # the API key the keyed wrk scripts send
FORGED_ENV = "GARAGE_BENCH_FORGED_KEYS"  # a file of forged keys, one a line, for rest_forged.lua
# Enough forged keys that no id repeats within a run (warm-up and measurement get separate files), so
# every request misses the key cache and reaches the store, as a flood of random keys would.
FORGED_KEYS = {"warmup": 30_000, "measure": 100_000}
#: Issue 25: a keyed call as fast as its anonymous twin (0.95: what two runs of one config differ by when quiet).
KEY_COST_TARGET = 0.95
WORKERS_TARGET = 1.5  # two workers should serve at least 1.5x what one does


class SetupError(Exception):
    """The benchmark cannot run at all (exit status 2)."""


# --- requests, as defined by the wrk scripts ------------------------------------------------------


@dataclass(frozen=True)
class WrkRequest:
    script: str
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def load_wrk_request(script: str, env: dict[str, str]) -> WrkRequest:
    """Read the request a bench/*.lua script sends, so the pre-flight check sends exactly the same.

    A header may end in `.. os.getenv("NAME")`; its value is then completed from `env`, as wrk does.
    """
    text = (BENCH_DIR / script).read_text(encoding="utf-8")

    def one(pattern: str) -> str:
        found = re.findall(pattern, text, flags=re.MULTILINE)
        if len(found) != 1:
            raise SetupError(f"bench/{script}: expected exactly one line matching {pattern!r}")
        return str(found[0])

    headers = dict(re.findall(r'^wrk\.headers\["([^"]+)"\]\s*=\s*"([^"]*)"\s*$', text, flags=re.MULTILINE))
    from_env = r'^wrk\.headers\["([^"]+)"\]\s*=\s*"([^"]*)"\s*\.\.\s*assert\(os\.getenv\("([A-Z_]+)"\)'
    for name, prefix, variable in re.findall(from_env, text, flags=re.MULTILINE):
        if not env.get(variable):
            raise SetupError(f"bench/{script} reads {variable} from the environment, but it is not set")
        headers[name] = prefix + env[variable]
    return WrkRequest(
        script=script,
        method=one(r'^wrk\.method\s*=\s*"([A-Z]+)"'),
        path=one(r'^wrk\.path\s*=\s*"([^"]+)"'),
        headers=headers,
        body=one(r"^wrk\.body\s*=\s*'(.*)'\s*$").encode(),
    )


def rest_symptom(payload: Any) -> Any:
    return payload["symptom"]["key"]


def mcp_symptom(payload: Any) -> Any:
    if "error" in payload:
        raise ValueError(f"JSON-RPC error: {payload['error']}")
    result = payload["result"]
    if result.get("isError"):
        raise ValueError(f"tool error: {result.get('content')}")
    return result["structuredContent"]["symptom"]["key"]


def error_code(payload: Any) -> Any:
    return payload["error"]["code"]


@dataclass(frozen=True)
class Config:
    key: str
    title: str
    server: str  # "baseline" or "ours"
    script: str
    extract: Callable[[Any], Any]
    target: float | None = None  # minimum same-round req/s ratio vs the baseline
    credential: str | None = None  # "key": a real key per server; "forged": forged keys from a file
    twin: str | None = None  # the anonymous config this one is also compared with, round by round
    twin_target: float | None = None  # minimum same-round req/s ratio vs the twin
    status: int = 200  # the status every response must have
    expect: str = EXPECTED_SYMPTOM  # what `extract` must find in the pre-flight response
    redis: bool = False  # count rate limits in Redis (--redis-url) instead of process memory
    workers: int = 1  # `serve --workers N`; several workers are not pinned (they share every CPU with wrk)


CONFIGS: dict[str, Config] = {
    c.key: c
    for c in (
        Config(
            "baseline", "baseline: bare Starlette + orjson, POST /api/v1/diagnose", "baseline", "rest.lua", rest_symptom
        ),
        Config("rest", "REST POST /api/v1/diagnose", "ours", "rest.lua", rest_symptom, target=0.8),
        Config(
            "rest-keyed",
            "REST POST /api/v1/diagnose with an API key",
            "ours",
            "rest_keyed.lua",
            rest_symptom,
            credential="key",
            twin="rest",
            twin_target=KEY_COST_TARGET,
        ),
        Config(
            "rest-forged",
            "REST POST /api/v1/diagnose with forged keys (401)",
            "ours",
            "rest_forged.lua",
            error_code,
            credential="forged",
            twin="rest",
            status=401,
            expect="invalid_key",
        ),
        Config("mcp-2026", "MCP tools/call diagnose, 2026-07-28", "ours", "mcp_2026.lua", mcp_symptom, target=0.6),
        Config(
            "mcp-2026-keyed",
            "MCP tools/call diagnose, 2026-07-28, /mcp-pro with an API key",
            "ours",
            "mcp_2026_keyed.lua",
            mcp_symptom,
            credential="key",
            twin="mcp-2026",
            twin_target=KEY_COST_TARGET,
        ),
        Config("mcp-2025", "MCP tools/call diagnose, 2025-11-25", "ours", "mcp_2025.lua", mcp_symptom, target=0.6),
        Config(
            "rest-redis",
            "REST POST /api/v1/diagnose, rate limits counted in Redis",
            "ours",
            "rest.lua",
            rest_symptom,
            redis=True,
            twin="rest",
        ),
        Config(
            "mcp-2026-redis",
            "MCP tools/call diagnose, 2026-07-28, rate limits counted in Redis",
            "ours",
            "mcp_2026.lua",
            mcp_symptom,
            redis=True,
            twin="mcp-2026",
        ),
        Config(
            "mcp-2025-redis",
            "MCP tools/call diagnose, 2025-11-25, rate limits counted in Redis",
            "ours",
            "mcp_2025.lua",
            mcp_symptom,
            redis=True,
            twin="mcp-2025",
        ),
        Config(
            "rest-2-workers",
            "REST POST /api/v1/diagnose, serve --workers 2 with Redis (unpinned: wrk shares the CPUs)",
            "ours",
            "rest.lua",
            rest_symptom,
            redis=True,
            workers=2,
            twin="rest-redis",
            twin_target=WORKERS_TARGET,
        ),
    )
}
OURS = [k for k, c in CONFIGS.items() if c.server == "ours"]


# --- processes -------------------------------------------------------------------------------------


def server_python() -> str:
    venv_python = REPO / ".venv" / "bin" / "python"
    return str(venv_python) if venv_python.exists() else sys.executable


def server_env(settings: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    """The driver's environment without GARAGE_TOOLS_* settings, so every run starts from the defaults,
    except the log level and the rate limits (raised, not removed: the limiter still counts every call),
    and a config's own `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
    env["GARAGE_TOOLS_LOG_LEVEL"] = "warning"
    env |= RAISED_LIMITS
    env |= dict(settings)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def service_dir(workdir: Path) -> Path:
    """Where the service runs, so its ./var (the SQLite file) stays out of the repository."""
    return workdir / "service"


def create_key(workdir: Path) -> str:
    """A new API key in the service's database, made with the CLI in the server's working directory."""
    cwd = service_dir(workdir)
    cwd.mkdir(parents=True, exist_ok=True)
    argv = [server_python(), "-m", "garage_tools", "keys", "create", "--email", BENCH_EMAIL]
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=server_env(), capture_output=True, text=True, timeout=STARTUP_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise SetupError(f"`garage-tools keys create` did not finish within {STARTUP_TIMEOUT_S:.0f} s") from None
    found = re.search(r"^key:\s+(\S+)$", done.stdout, flags=re.MULTILINE)
    if done.returncode != 0 or not found:
        raise SetupError(f"`garage-tools keys create` failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return found.group(1)


def write_forged_keys(workdir: Path) -> dict[str, Path]:
    """Files of forged keys (right prefix, length, alphabet and checksum; ids nobody issued) per wrk phase."""
    from garage_tools.access.keys import new_key  # the service's own generator: the keys are well-formed

    files = {}
    for phase, count in FORGED_KEYS.items():
        path = workdir / f"forged-{phase}.txt"
        path.write_text("".join(new_key()[1] + "\n" for _ in range(count)), encoding="ascii")
        files[phase] = path
    return files


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    kind: str
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


def pinned(argv: list[str], cpu: int | None) -> list[str]:
    return ["taskset", "-c", str(cpu), *argv] if cpu is not None else argv


@contextlib.contextmanager
def running_server(
    kind: str, workdir: Path, cpu: int | None, label: str, settings: tuple[tuple[str, str], ...] = (), workers: int = 1
) -> Iterator[Server]:
    """A fresh server in its own process group; always stopped (SIGTERM to the group) on the way out."""
    port = free_port()
    python = server_python()
    if kind == "ours":
        argv = [python, "-m", "garage_tools", "serve", "--host", HOST, "--port", str(port), "--workers", str(workers)]
        cwd = service_dir(workdir)
    else:
        argv = [python, "-m", "uvicorn", "bench.baseline_app:app", "--host", HOST, "--port", str(port)]
        argv += ["--no-access-log", "--log-level", "warning"]
        cwd = REPO
    cwd.mkdir(parents=True, exist_ok=True)
    log_path = workdir / f"{label}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            pinned(argv, cpu if workers == 1 else None),
            cwd=cwd,
            env=server_env(settings),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so one killpg reaches everything it starts
        )
    server = Server(kind, port, proc, log_path)
    try:
        yield server
    finally:
        stop_group(proc)


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, wait, then SIGKILL whatever is left of it."""
    pgid = proc.pid  # start_new_session: the leader's pid is the group id
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            proc.wait(timeout=STOP_TIMEOUT_S)
    with contextlib.suppress(ProcessLookupError):  # stragglers whose leader is already gone
        os.killpg(pgid, signal.SIGKILL)


# --- /proc accounting ------------------------------------------------------------------------------


def process_tree(pid: int) -> list[int]:
    pids, todo, seen = [], [pid], set[int]()
    while todo and len(seen) < 10_000:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        pids.append(current)
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{current}/task"):
                with contextlib.suppress(OSError), open(f"/proc/{current}/task/{task}/children") as f:
                    todo.extend(int(child) for child in f.read().split())
    return pids


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of the given processes (all their threads), in seconds."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError), open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5): utime, stime
    return ticks / TICKS_PER_SECOND


def busy_seconds_per_cpu() -> dict[str, float]:
    """Non-idle time of each CPU (and 'cpu', the total) since boot, from /proc/stat."""
    out: dict[str, float] = {}
    with open("/proc/stat") as f:
        for line in f:
            if not line.startswith("cpu"):
                break
            name, *values = line.split()
            v = [int(x) for x in values]
            out[name] = (sum(v[:8]) - v[3] - v[4]) / TICKS_PER_SECOND  # minus idle and iowait, without guest
    return out


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- one run ---------------------------------------------------------------------------------------


def wrk_env(key: str | None = None, forged: Path | None = None) -> dict[str, str]:
    """The environment the wrk scripts read their credentials from."""
    env = dict(os.environ)
    if key is not None:
        env[KEY_ENV] = key
    if forged is not None:
        env[FORGED_ENV] = str(forged)
    return env


def limit_problem(config: Config, response: httpx.Response) -> str | None:
    """Why the answer shows the wrong tier or limits, if it does: a keyed call must be counted as pro,
    an anonymous one as public, and both against the raised limits (so the limiter is in the path)."""
    tier = "pro" if config.credential == "key" else "public"
    variable = "GARAGE_TOOLS_RATE_LIMIT_PRO" if tier == "pro" else "GARAGE_TOOLS_RATE_LIMIT_PUBLIC"
    wanted = f'"{tier}-minute";q={RAISED_LIMITS[variable].split("/")[0]}'
    policy = response.headers.get("ratelimit-policy")
    if policy is None or wanted not in policy:
        return f"RateLimit-Policy is {policy!r}, expected it to contain {wanted}"
    return None


def preflight(server: Server, config: Config, deadline_s: float, env: dict[str, str]) -> int:
    """Wait for the server, send the config's request once; return the response size or raise SetupError."""
    request = load_wrk_request(config.script, env)
    if config.credential == "forged":
        from garage_tools.access.keys import new_key

        if f'os.getenv("{FORGED_ENV}")' not in (BENCH_DIR / config.script).read_text(encoding="utf-8"):
            raise SetupError(f"bench/{config.script} should read its keys from {FORGED_ENV}")
        request.headers["Authorization"] = f"Bearer {new_key()[1]}"  # a forged key like those in the file
    url = f"http://{HOST}:{server.port}{request.path}"
    deadline = time.monotonic() + deadline_s
    with httpx.Client(timeout=10.0) as client:
        while True:
            if server.proc.poll() is not None:
                raise SetupError(
                    f"the {server.kind} server exited with status {server.proc.returncode} before answering.\n"
                    f"--- {server.log_path} ---\n{server.log_tail()}"
                )
            try:
                response = client.request(request.method, url, headers=request.headers, content=request.body)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise SetupError(
                        f"the {server.kind} server did not accept connections on {HOST}:{server.port} within "
                        f"{deadline_s:.0f} s.\n--- {server.log_path} ---\n{server.log_tail()}"
                    ) from None
                time.sleep(0.1)
    problem = None
    if response.status_code != config.status:
        problem = f"HTTP {response.status_code}, expected {config.status}"
    else:
        try:
            found = config.extract(response.json())
            if found != config.expect:
                problem = f"found {found!r} in the answer, expected {config.expect!r}"
        except (ValueError, KeyError, TypeError) as exc:
            problem = f"unexpected payload ({type(exc).__name__}: {exc})"
    if problem is None and config.server == "ours" and config.status == 200:
        problem = limit_problem(config, response)
    if problem:
        hint = ""
        if config.key.startswith("mcp"):
            spec = importlib.util.find_spec("mcp")
            site = Path(spec.origin).parent.parent if spec and spec.origin else "the venv's site-packages"
            hint = "\n" + SDK_HINT.format(script=config.script, site=site)
        raise SetupError(
            f"pre-flight check of {config.key} failed: {request.method} {request.path} -> {problem}.\n"
            f"Response body (first 600 bytes): {response.text[:600]!r}{hint}"
        )
    return len(response.content)


@dataclass
class WrkOutput:
    result: dict[str, Any]
    cpu_s: float
    raw: str


def run_wrk(port: int, script: str, seconds: float, conns: int, cpu: int | None, env: dict[str, str]) -> WrkOutput:
    argv = ["wrk", "-t1", f"-c{conns}", f"-d{seconds:g}s", f"--timeout={WRK_TIMEOUT}", "--latency"]
    argv += ["-s", str(BENCH_DIR / script), f"http://{HOST}:{port}"]
    before = children_cpu_seconds()
    proc = subprocess.Popen(
        pinned(argv, cpu), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        out, _ = proc.communicate(timeout=seconds + WRK_SLACK_S)
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    raw = out.decode(errors="replace")
    lines = [line for line in raw.splitlines() if line.startswith("BENCH_RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"wrk failed (exit {proc.returncode}):\n{raw}")
    return WrkOutput(json.loads(lines[-1].split(" ", 1)[1]), children_cpu_seconds() - before, raw)


def error_count(result: dict[str, Any]) -> int:
    """Socket errors, timeouts and responses with a status the run did not expect (see report.lua)."""
    return sum(int(result[k]) for k in ("err_connect", "err_read", "err_write", "err_timeout", "unexpected_status"))


def measure(
    config: Config, rnd: int, args: argparse.Namespace, workdir: Path, forged: dict[str, Path]
) -> dict[str, Any]:
    """Start a fresh server (with a new key for a keyed config), check it, warm up, measure once, stop it.
    Returns one run record."""
    label = f"r{rnd}-{config.key}"
    record: dict[str, Any] = {"config": config.key, "round": rnd, "ok": False, "problems": []}
    key = create_key(workdir) if config.credential == "key" else None
    measure_env = wrk_env(key, forged.get("measure"))
    settings: tuple[tuple[str, str], ...] = ()
    if config.redis:  # each run counts under its own prefix, so no run starts with another's windows
        prefix = f"garage-tools-bench-{os.getpid()}-{label}:"
        settings = (("GARAGE_TOOLS_REDIS_URL", args.redis_url), ("GARAGE_TOOLS_REDIS_KEY_PREFIX", prefix))
    with running_server(config.server, workdir, args.server_cpu, label, settings, config.workers) as server:
        record["response_bytes"] = preflight(server, config, STARTUP_TIMEOUT_S, measure_env)
        time.sleep(0.3)
        if args.warmup > 0:
            warm_env = wrk_env(key, forged.get("warmup"))
            warm = run_wrk(server.port, config.script, args.warmup, args.conns, args.wrk_cpu, warm_env)
            if error_count(warm.result):
                record["problems"].append(f"warm-up errors: {warm.result}")
        pids = process_tree(server.proc.pid)
        cpu0, busy0, t0 = cpu_seconds(pids), busy_seconds_per_cpu(), time.monotonic()
        wrk = run_wrk(server.port, config.script, args.duration, args.conns, args.wrk_cpu, measure_env)
        cpu1, busy1, wall = cpu_seconds(pids), busy_seconds_per_cpu(), time.monotonic() - t0
        alive = server.proc.poll() is None
        log_tail = server.log_tail(10)
    res = wrk.result
    requests = max(int(res["requests"]), 1)
    server_cpu = cpu1 - cpu0
    busy = {k: busy1[k] - busy0.get(k, 0.0) for k in busy1}
    record.update(
        rps=float(res["rps"]),
        requests=int(res["requests"]),
        p50_ms=res["p50_us"] / 1000,
        p90_ms=res["p90_us"] / 1000,
        p99_ms=res["p99_us"] / 1000,
        max_ms=res["lat_max_us"] / 1000,
        errors=error_count(res),
        non2xx=int(res["err_status"]),
        wrong_status=int(res["unexpected_status"]),
        socket_errors=error_count(res) - int(res["unexpected_status"]),
        wrk=res,
        server_pids=len(pids),
        server_cpu_s=server_cpu,
        server_cpu_us_per_req=server_cpu / requests * 1e6,
        server_core_busy=server_cpu / (res["duration_us"] / 1e6),
        wrk_cpu_s=wrk.cpu_s,
        # Approximate: /proc/stat is tick-sampled and misses some of wrk's short bursts (can go below 0).
        other_cpu_s=busy.get("cpu", 0.0) - server_cpu - wrk.cpu_s,
        cpu_busy_s={k: round(v, 2) for k, v in busy.items()},
        wall_s=wall,
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    if record["errors"]:
        record["problems"].append(
            f"{record['wrong_status']} responses with a status other than {config.status} and "
            f"{record['socket_errors']} socket errors "
            f"(connect {res['err_connect']}, read {res['err_read']}, write {res['err_write']}, "
            f"timeout {res['err_timeout']})"
        )
    if not alive:
        record["problems"].append(f"server died during the run:\n{log_tail}")
    record["ok"] = not record["problems"]
    return record


# --- summary ---------------------------------------------------------------------------------------


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def is_clean(run: dict[str, Any]) -> bool:
    """The pinned server kept its core busy: nothing else took the CPU away from it during the run."""
    return bool(run["ok"] and run["server_core_busy"] >= BUSY_CLEAN)


def summarize(runs: list[dict[str, Any]], keys: list[str]) -> dict[str, Any]:
    per_config: dict[str, Any] = {}
    for key in keys:
        ok = [r for r in runs if r["config"] == key and r["ok"]]
        rps = [r["rps"] for r in ok]
        per_config[key] = {
            "runs": len([r for r in runs if r["config"] == key]),
            "ok_runs": len(ok),
            "clean_runs": len([r for r in ok if is_clean(r)]),
            "errors": sum(r.get("errors", 0) for r in runs if r["config"] == key),
            "rps_median": median(rps),
            "rps_min": min(rps) if rps else None,
            "rps_max": max(rps) if rps else None,
            "p50_ms": median([r["p50_ms"] for r in ok]),
            "p99_ms": median([r["p99_ms"] for r in ok]),
            "cpu_us_per_req": median([r["server_cpu_us_per_req"] for r in ok]),
            "core_busy": median([r["server_core_busy"] for r in ok]),
            "response_bytes": ok[0]["response_bytes"] if ok else None,
        }
    ratios = {key: compare(runs, key, "baseline", CONFIGS[key].target) for key in keys if key != "baseline"}
    twins = {
        key: compare(runs, key, twin, CONFIGS[key].twin_target)
        for key in keys
        if (twin := CONFIGS[key].twin) is not None and twin in keys
    }
    return {"configs": per_config, "ratios": ratios, "twins": twins}


def compare(runs: list[dict[str, Any]], key: str, reference: str, target: float | None) -> dict[str, Any]:
    """req/s of `key` over `reference`, round by round (same-round runs only), with the cross-checks."""
    ref = {r["round"]: r for r in runs if r["config"] == reference and r["ok"]}
    pairs = [(ref[r["round"]], r) for r in runs if r["config"] == key and r["ok"] and r["round"] in ref]
    per_round = [ours["rps"] / b["rps"] for b, ours in pairs]
    # What the req/s ratio would be if both servers had had their core to themselves.
    cpu_normalised = [b["server_cpu_us_per_req"] / ours["server_cpu_us_per_req"] for b, ours in pairs]
    clean = [ours["rps"] / b["rps"] for b, ours in pairs if is_clean(b) and is_clean(ours)]
    ratio = median(per_round)
    verdict = "n/a" if ratio is None else "report" if target is None else "PASS" if ratio >= target else "MISS"
    return {
        "reference": reference,
        "ratio": ratio,
        "per_round": per_round,
        "target": target,
        "verdict": verdict,
        "clean_rounds": len(clean),
        "ratio_clean_rounds": median(clean),
        "cpu_normalised_ratio": median(cpu_normalised),
    }


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_ratios(title: str, ratios: dict[str, Any]) -> None:
    print()
    print(title)
    for key, r in ratios.items():
        name = f"{key}/{r['reference']}" if r["reference"] != "baseline" else key
        target = "" if r["target"] is None else f" (target >= {r['target']:.3g})"
        rounds = ", ".join(f"{x:.3f}" for x in r["per_round"]) or "no valid rounds"
        print(f"  {name:23s} {fmt(r['ratio'], '.3f'):>6s}{target:19s} {r['verdict']:6s} per round: {rounds}")
    print("Cross-checks (less sensitive to other load on the machine):")
    for key, r in ratios.items():
        name = f"{key}/{r['reference']}" if r["reference"] != "baseline" else key
        print(
            f"  {name:23s} CPU-normalised {fmt(r['cpu_normalised_ratio'], '.3f')} ({r['reference']} CPU/req / ours);"
            f" clean rounds {r['clean_rounds']}: {fmt(r['ratio_clean_rounds'], '.3f')}"
        )


def print_summary(summary: dict[str, Any], markdown: bool) -> None:
    head = ["config", "runs ok/clean", "req/s median", "req/s min-max", "p50 ms", "p99 ms", "errors", "CPU us/req"]
    head.append("core busy")
    rows = []
    for key, s in summary["configs"].items():
        rows.append(
            [
                key,
                f"{s['ok_runs']}/{s['clean_runs']} of {s['runs']}",
                fmt(s["rps_median"], ",.0f"),
                f"{fmt(s['rps_min'], ',.0f')}-{fmt(s['rps_max'], ',.0f')}",
                fmt(s["p50_ms"], ".2f"),
                fmt(s["p99_ms"], ".2f"),
                str(s["errors"]),
                fmt(s["cpu_us_per_req"], ".0f"),
                fmt(None if s["core_busy"] is None else s["core_busy"] * 100, ".0f") + "%",
            ]
        )
    print()
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(head, *rows, strict=True)]
        for row in [head, *rows]:
            cells = [
                str(x).rjust(w) if i else str(x).ljust(w) for i, (x, w) in enumerate(zip(row, widths, strict=True))
            ]
            print("  ".join(cells))
    print_ratios(
        "Same-round req/s ratio ours/baseline, median over rounds (PASS/MISS is judged on this):", summary["ratios"]
    )
    if summary["twins"]:
        print_ratios(
            f"Cost of a key: same-round req/s ratio against the anonymous twin (target >= {KEY_COST_TARGET:.3f}"
            " means a keyed call costs at most 1.5x):",
            summary["twins"],
        )
    if any(r["clean_rounds"] < len(r["per_round"]) for r in [*summary["ratios"].values(), *summary["twins"].values()]):
        print(
            f"  A clean round is one where both servers kept their core >= {BUSY_CLEAN:.0%} busy; in the others,"
            " something else on the machine took CPU time, so their req/s are low and their ratios noisy."
        )


# --- environment -----------------------------------------------------------------------------------


def command_output(argv: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (done.stdout or done.stderr).strip()


def environment() -> dict[str, Any]:
    cpu_model = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        cpu_model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    mem_kib = 0
    with contextlib.suppress(OSError, StopIteration, ValueError), open("/proc/meminfo") as f:
        mem_kib = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
    versions = {}
    for dist in ("garage-tools", "mcp", "starlette", "uvicorn", "uvloop", "httptools", "pydantic", "orjson"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[dist] = metadata.version(dist)
    commit = command_output(["git", "rev-parse", "--short", "HEAD"], cwd=REPO)
    # Only changes to what is measured count: edits under bench/ do not make the figures stale.
    status = ["git", "status", "--porcelain", "--untracked-files=no", "--", "src", "pyproject.toml", "uv.lock"]
    dirty = bool(command_output(status, cwd=REPO))
    with contextlib.suppress(OSError), open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpu_model": cpu_model,
        "cpus": os.cpu_count(),
        "mem_gib": round(mem_kib / 2**20, 1),
        "kernel": platform.release(),
        "python": command_output([server_python(), "-c", "import sys; print(sys.version.split()[0])"]),
        "packages": versions,
        "wrk": command_output(["wrk", "-v"]).splitlines()[0] if shutil.which("wrk") else "",
        "git": f"{commit}{'-dirty' if dirty else ''}",
        "loadavg_at_start": load,
    }


# --- main ------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each measured wrk run (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of discarded warm-up per run (default 2)")
    parser.add_argument("--conns", type=int, default=32, help="wrk connections (default 32; wrk uses one thread)")
    parser.add_argument(
        "--only",
        default=",".join(OURS),
        help=f"comma-separated configs of ours to run: {', '.join(OURS)} (default all); the baseline always\n"
        "runs, and so does the anonymous twin of a keyed config",
    )
    parser.add_argument("--json-out", type=Path, help="write every run and the summary as JSON to this path")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--server-cpu", type=int, default=0, help="CPU the server is pinned to (default 0)")
    parser.add_argument("--wrk-cpu", type=int, default=1, help="CPU wrk is pinned to (default 1)")
    parser.add_argument("--no-pin", action="store_true", help="do not pin anything with taskset")
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("GARAGE_TOOLS_BENCH_REDIS", "redis://127.0.0.1:6379/0"),
        help="Redis for the *-redis and workers configs (default: the local one)",
    )
    parser.add_argument("--keep-logs", action="store_true", help="keep the temporary directory with server logs")
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= 100:
        parser.error("--rounds must be between 1 and 100")
    if not 1 <= args.duration <= 3600:
        parser.error("--duration must be between 1 and 3600 seconds")
    if not 0 <= args.warmup <= 600:
        parser.error("--warmup must be between 0 and 600 seconds")
    if not 1 <= args.conns <= 10_000:
        parser.error("--conns must be between 1 and 10000")
    selected = [k.strip() for k in args.only.split(",") if k.strip() and k.strip() != "baseline"]
    unknown = [k for k in selected if k not in OURS]
    if unknown or not selected:
        parser.error(f"--only takes a comma-separated subset of {', '.join(OURS)}; got {args.only!r}")
    with_twins = [k for key in selected for k in (CONFIGS[key].twin, key) if k is not None]
    args.keys = ["baseline", *dict.fromkeys(with_twins)]
    return args


def check_tools(args: argparse.Namespace) -> None:
    if shutil.which("wrk") is None:
        sudo = "" if os.geteuid() == 0 else "sudo "
        raise SetupError(
            f"wrk is not installed. Install it with:\n    {sudo}apt-get update && {sudo}apt-get install -y wrk"
        )
    if args.no_pin:
        args.server_cpu = args.wrk_cpu = None
        return
    if shutil.which("taskset") is None:
        raise SetupError("taskset is not installed (package util-linux); install it or pass --no-pin.")
    allowed = os.sched_getaffinity(0)
    if args.server_cpu == args.wrk_cpu or not {args.server_cpu, args.wrk_cpu} <= allowed:
        raise SetupError(
            f"cannot pin the server to CPU {args.server_cpu} and wrk to CPU {args.wrk_cpu}: this process may use "
            f"CPUs {sorted(allowed)}. Pick two different ones with --server-cpu/--wrk-cpu, or pass --no-pin."
        )


def print_run(r: dict[str, Any]) -> None:
    if "rps" not in r:
        return
    flag = "ok" if r["ok"] else "FAILED"
    busy = r["server_core_busy"] * 100
    note = "" if r["server_core_busy"] >= BUSY_CLEAN else "  (server core not saturated: noisy machine?)"
    print(
        f"  r{r['round']} {r['config']:14s} {r['rps']:9,.0f} req/s"
        f"  p50 {r['p50_ms']:6.2f} ms  p99 {r['p99_ms']:7.2f} ms"
        f"  CPU {r['server_cpu_us_per_req']:6.0f} us/req  core {busy:3.0f}%  wrk {r['wrk_cpu_s']:.1f}s"
        f"  other ~{max(r['other_cpu_s'], 0.0):.1f}s  errors {r['errors']}  {flag}{note}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    runs: list[dict[str, Any]] = []
    failed = False
    # Turn SIGTERM into an exception so the `finally` blocks stop the servers.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    workdir = Path(tempfile.mkdtemp(prefix="garage-bench-"))
    try:
        check_tools(args)
        env = environment()
        per_run = args.warmup + args.duration + 5
        print(
            f"garage-tools bench: {', '.join(args.keys)}; {args.rounds} rounds x {args.duration:g} s "
            f"(+{args.warmup:g} s warm-up), wrk -t1 -c{args.conns}; server on CPU {args.server_cpu}, "
            f"wrk on CPU {args.wrk_cpu}; about {len(args.keys) * args.rounds * per_run / 60:.0f} min"
        )
        machine = f"{env['cpu_model']}, {env['cpus']} CPUs, kernel {env['kernel']}"
        print(f"  {machine}, Python {env['python']}, git {env['git']}")
        print(f"  load average at start: {' '.join(env.get('loadavg_at_start', []))}; work dir {workdir}")
        print(f"  rate limits raised, limiter in the path: {' '.join(f'{k}={v}' for k, v in RAISED_LIMITS.items())}")
        credentials = {CONFIGS[k].credential for k in args.keys}
        forged = write_forged_keys(workdir) if "forged" in credentials else {}
        # Pre-flight: one real request per config before any load, so a wrong request fails fast.
        for kind in ("baseline", "ours"):
            keys = [k for k in args.keys if CONFIGS[k].server == kind]
            key = create_key(workdir) if kind == "ours" and "key" in credentials else None
            with running_server(kind, workdir, None, f"preflight-{kind}") as server:
                for name in keys:
                    config = CONFIGS[name]
                    size = preflight(server, config, STARTUP_TIMEOUT_S, wrk_env(key, forged.get("measure")))
                    print(f"  pre-flight {name}: {config.status}, found {config.expect!r}, {size} bytes")
        for rnd in range(1, args.rounds + 1):
            order = args.keys if rnd % 2 else list(reversed(args.keys))
            for key in order:
                try:
                    record = measure(CONFIGS[key], rnd, args, workdir, forged)
                except RuntimeError as exc:  # wrk itself failed
                    record = {"config": key, "round": rnd, "ok": False, "problems": [str(exc)]}
                runs.append(record)
                print_run(record)
                if not record["ok"]:
                    failed = True
                    for problem in record["problems"]:
                        print(f"    FAILED: {problem}", file=sys.stderr)
                time.sleep(0.5)
        summary = summarize(runs, args.keys)
        print_summary(summary, args.markdown)
        if args.json_out:
            options = {k: v for k, v in vars(args).items() if k != "json_out"} | {"server_env": RAISED_LIMITS}
            payload: dict[str, Any] = {"environment": env, "options": options}
            payload |= {"runs": runs, "summary": summary}
            args.json_out.parent.mkdir(parents=True, exist_ok=True)
            args.json_out.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
            print(f"\nraw results: {args.json_out}")
        if failed:
            print("\nAt least one run errored; its figures are left out of the table and the ratios.", file=sys.stderr)
            return 1
        return 0
    except SetupError as exc:
        print(f"\nbench: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.keep_logs:
            print(f"server logs kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
