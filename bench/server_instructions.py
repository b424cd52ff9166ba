"""Instructions per request through the whole server, uvicorn included: issue 25's ratios without a noisy host.

`bench/run.py` states the goal (wrk against the real servers), but on a shared 2-vCPU guest its ratios move
by ±0.1 between runs. `bench/instructions.py` counts instructions, which do not move, but drives the ASGI apps
directly and so leaves out what both servers run around them: uvicorn's protocol, httptools, uvloop. This one
starts each server as `bench/run.py` does (ours with `garage-tools serve`, the baseline on plain uvicorn), under
`valgrind --tool=callgrind`, sends N requests over one keep-alive connection, and stops it. It does so with N
requests, then with none but as long a wait: the difference over N is one request's instructions in user space
(the kernel's part, the socket calls both servers make alike, is not counted, so these ratios come out a little
harsher than wrk's).

    uv run python bench/server_instructions.py                           # rest, mcp-2026, mcp-2025: ~15 min
    uv run python bench/server_instructions.py --only rest --requests 1000
"""

from __future__ import annotations

import argparse
import http.client
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.instructions import QUIET_TIMERS
from bench.run import CONFIGS, HOST, REPO, free_port, load_wrk_request, server_env, server_python

#: valgrind runs the server some 50 times slower: a start-up of a few seconds takes minutes.
READY_TIMEOUT_S = 900.0
DEFAULT = ["rest", "mcp-2026", "mcp-2025"]
#: Seconds (under valgrind: a fiftieth of that in real time) for the start-up's background work to end.
SETTLE_S = 10.0


def server_argv(server: str, port: int) -> list[str]:
    if server == "ours":
        return [server_python(), "-m", "garage_tools", "serve", "--host", HOST, "--port", str(port)]
    app = [server_python(), "-m", "uvicorn", "bench.baseline_app:app", "--host", HOST, "--port", str(port)]
    return [*app, "--no-access-log", "--log-level", "warning"]


def send(connection: http.client.HTTPConnection, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    return response.status


def instructions(config: str, requests: int, idle_seconds: float = 0.0) -> tuple[int, float]:
    """All the instructions a server run under callgrind took (start-up, 20 warm-up requests, `requests` more,
    then `idle_seconds` of waiting), and the seconds the `requests` took."""
    chosen = CONFIGS[config]
    request = load_wrk_request(chosen.script, {})
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        out = Path(workdir) / "callgrind.out"
        argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *server_argv(chosen.server, port)]
        log_path = Path(workdir) / "server.log"
        with open(log_path, "wb") as log:
            # Our server keeps its SQLite file in its working directory; the baseline imports bench.baseline_app.
            cwd = workdir if chosen.server == "ours" else str(REPO)
            # The same dict and set layouts in both runs, and the service's timers far apart (`QUIET_TIMERS`).
            env = server_env() | QUIET_TIMERS | {"PYTHONHASHSEED": "0"}
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            connection = ready(port, proc, request.method, request.path, request.headers, request.body)
            for _ in range(19):
                send(connection, request.method, request.path, request.headers, request.body)
            time.sleep(SETTLE_S)  # the server's start-up work in the background ends here in both runs
            connection.close()  # kept idle that long, the server has closed it: both runs open a fresh one
            connection = http.client.HTTPConnection(HOST, port, timeout=120)
            connection.connect()
            started = time.monotonic()
            for _ in range(requests):
                status = send(connection, request.method, request.path, request.headers, request.body)
                if status != chosen.status:
                    raise SystemExit(f"{config}: a request answered {status}")
            took = time.monotonic() - started
            time.sleep(idle_seconds)
            connection.close()
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=READY_TIMEOUT_S)
        found = re.search(r"Collected : (\d+)", log_path.read_text(errors="replace"))
        if not found:
            raise SystemExit(f"{config}: valgrind run failed:\n{log_path.read_text(errors='replace')[-3000:]}")
        return int(found.group(1)), took


def ready(
    port: int, proc: subprocess.Popen[bytes], method: str, path: str, headers: dict[str, str], body: bytes
) -> http.client.HTTPConnection:
    """A connection to the server once it answers the request (the first warm-up request)."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}) before answering")
        connection = http.client.HTTPConnection(HOST, port, timeout=120)
        try:
            send(connection, method, path, headers, body)
            return connection
        except (ConnectionError, OSError):
            connection.close()
            if time.monotonic() > deadline:
                raise SystemExit("the server did not answer in time") from None
            time.sleep(1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated configs of bench/run.py (the baseline is always measured)")
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    names = ["baseline", *(args.only.split(",") if args.only else DEFAULT)]
    per_request: dict[str, float] = {}
    for name in names:
        config = CONFIGS.get(name)
        if config is None or config.credential is not None or config.redis or config.workers != 1:
            raise SystemExit(f"{name}: not a config this benchmark runs (an anonymous one of bench/run.py)")
        # The idle run waits as long as the requests took: what a server does on its own meanwhile (both
        # servers' uvicorn ticks ten times a second; our timers are set far apart), stretched fifty-fold under
        # valgrind, is then left out as the start-up is.
        busy, seconds = instructions(name, args.requests)
        idle, _ = instructions(name, 0, idle_seconds=seconds)
        per_request[name] = (busy - idle) / args.requests
        print(f"{name:10s} {per_request[name] / 1e3:7.0f} k instructions a request through the server", flush=True)
    for name in names[1:]:
        print(f"{name:10s} {per_request['baseline'] / per_request[name]:.3f}x the baseline's throughput (instructions)")


if __name__ == "__main__":
    main()
