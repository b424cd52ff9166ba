"""routeByZip's first call after start-up, against the calls after it: the cold call a widget meets.

Each round starts a fresh `garage-tools serve` (its own directory, so a new SQLite file, as after a
deploy), waits until `/healthz` answers, and at once sends three routeByZip calls over HTTP: the first
(the cold call), then two more (a city and the first ZIP again). The first call is the one a homeowner
waits on while the widget shows "Finding…"; it should cost what the others cost. With `--busy`, a
process keeps one core busy throughout (the loaded machine where the cold call once took 7.9 s).

Usage (from the repository root):

    uv run python bench/routing_cold.py                 # 5 fresh servers, idle machine
    uv run python bench/routing_cold.py --busy          # the same with one core kept busy
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
STARTUP_TIMEOUT_S = 120.0
CALLS = [
    ("first: 84770", {"zipOrLocation": "84770", "issue": "wont_close", "leadHeat": "hot"}),
    ("second: Salt Lake City, UT", {"zipOrLocation": "Salt Lake City, UT", "issue": "broken_spring"}),
    ("third: 84770 again", {"zipOrLocation": "84770", "issue": "wont_close", "leadHeat": "hot"}),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def server_env() -> dict[str, str]:
    """The defaults (no GARAGE_TOOLS_* from the caller's shell), quiet logs."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GARAGE_TOOLS_")}
    return env | {"GARAGE_TOOLS_LOG_LEVEL": "warning", "PYTHONUNBUFFERED": "1"}


@contextlib.contextmanager
def fresh_server(workdir: Path) -> Iterator[tuple[str, float]]:
    """A new server in its own process group: (its URL, seconds until /healthz answered). Stopped on exit."""
    port = free_port()
    python = REPO / ".venv" / "bin" / "python"
    argv = [str(python if python.exists() else sys.executable), "-m", "garage_tools", "serve", "--port", str(port)]
    started = time.perf_counter()
    with open(workdir / "server.log", "wb") as log:
        proc = subprocess.Popen(
            argv, cwd=workdir, env=server_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://{HOST}:{port}"
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited:\n{(workdir / 'server.log').read_text(errors='replace')}")
            if time.perf_counter() - started > STARTUP_TIMEOUT_S:
                raise RuntimeError("the server did not answer /healthz in time")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            time.sleep(0.02)
        yield url, time.perf_counter() - started
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextlib.contextmanager
def one_core_busy(enabled: bool) -> Iterator[None]:
    """A process spinning on one core for as long as the block runs (when `enabled`)."""
    if not enabled:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def one_round(client: httpx.Client, url: str) -> list[float]:
    """Milliseconds for each of CALLS, in order, on a server that has answered nothing else."""
    timings = []
    for label, body in CALLS:
        began = time.perf_counter()
        response = client.post(f"{url}/api/v1/routeByZip", json=body)
        timings.append((time.perf_counter() - began) * 1000)
        if response.status_code != 200 or "covered" not in response.json():
            raise RuntimeError(f"{label}: HTTP {response.status_code}: {response.text[:300]}")
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="fresh servers to start (default 5)")
    parser.add_argument("--busy", action="store_true", help="keep one core busy while measuring")
    parser.add_argument(
        "--settle", type=float, default=0.0, help="seconds to wait after /healthz answers before the first call"
    )
    args = parser.parse_args(argv)

    rounds: list[list[float]] = []
    starts: list[float] = []
    with one_core_busy(args.busy), httpx.Client(timeout=120) as client:
        for number in range(args.rounds):
            with tempfile.TemporaryDirectory() as workdir, fresh_server(Path(workdir)) as (url, start_s):
                time.sleep(args.settle)
                timings = one_round(client, url)
            rounds.append(timings)
            starts.append(start_s)
            shown = ", ".join(f"{value:.1f}" for value in timings)
            print(f"round {number + 1}: started in {start_s:.2f} s; calls (ms): {shown}", flush=True)

    busy = " (one core kept busy)" if args.busy else ""
    print(f"\nrouteByZip over HTTP on a fresh server, {args.rounds} rounds{busy}")
    print(f"  {'call':<28} {'median ms':>10} {'min':>8} {'max':>8}")
    for index, (label, _) in enumerate(CALLS):
        values = [timings[index] for timings in rounds]
        print(f"  {label:<28} {statistics.median(values):>10.1f} {min(values):>8.1f} {max(values):>8.1f}")
    print(f"  server start to /healthz: median {statistics.median(starts):.2f} s")
    print(f"  load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
