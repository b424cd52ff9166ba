"""System calls per request through the whole server: the kernel's part of a request, which instructions miss.

`bench/server_instructions.py` counts what a request costs in user space. A system call costs more than its
own instructions: the kernel's work (a socket write on loopback runs the receiver's side too), its entry and
exit with the mitigations of the CPU's side channels, and the process's code after it, which finds its caches
and branch history partly displaced. This one starts each server as `bench/run.py` does, sends N requests over
one keep-alive connection with `strace -c` attached to the server, and prints each system call's count per
request. A count does not move with a noisy host, so it shows whether a change took a call out, which wrk
cannot tell from the noise here. `epoll_pwait` is the server waiting for the client's next request: its count
follows the timing of the one client, not the code.

    uv run python bench/syscalls.py                            # rest, mcp-2026, mcp-2025 and the baseline (~1 min)
    uv run python bench/syscalls.py --only rest --requests 2000

Needs `strace` (`apt-get install -y strace`) and the right to trace a child process (root, or ptrace_scope 0).
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.run import CONFIGS, REPO, free_port, load_wrk_request, server_env
from bench.server_instructions import DEFAULT, ready, send, server_argv

STOP_TIMEOUT_S = 60.0
#: A line of `strace -c`'s table: % time, seconds, usecs/call, calls, [errors,] syscall.
ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$")


def per_request(config: str, requests: int) -> dict[str, float]:
    """Each system call's count per request, the server's threads included, over `requests` requests."""
    chosen = CONFIGS[config]
    request = load_wrk_request(chosen.script, {})
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        cwd = workdir if chosen.server == "ours" else str(REPO)
        proc = subprocess.Popen(
            server_argv(chosen.server, port),
            cwd=cwd,
            env=server_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        try:
            connection = ready(port, proc, request.method, request.path, request.headers, request.body)
            for _ in range(100):  # warm: caches, imports, the first polls
                send(connection, request.method, request.path, request.headers, request.body)
            table = Path(workdir) / "strace.txt"
            tracer = subprocess.Popen(
                ["strace", "-c", "-f", "-p", str(proc.pid), "-o", str(table)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(1.0)  # attached to every thread before the first counted request
            for _ in range(requests):
                status = send(connection, request.method, request.path, request.headers, request.body)
                if status != chosen.status:
                    raise SystemExit(f"{config}: a request answered {status}")
            tracer.send_signal(signal.SIGINT)
            tracer.wait(timeout=30)
            connection.close()
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=STOP_TIMEOUT_S)
        counts = {}
        for line in table.read_text().splitlines():
            found = ROW.match(line)
            if found and found.group(2) != "total":
                counts[found.group(2)] = int(found.group(1)) / requests
        return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated configs of bench/run.py (the baseline is always counted)")
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    if shutil.which("strace") is None:
        raise SystemExit("strace is missing: apt-get install -y strace")
    for name in ["baseline", *(args.only.split(",") if args.only else DEFAULT)]:
        config = CONFIGS.get(name)
        if config is None or config.credential is not None or config.redis or config.workers != 1:
            raise SystemExit(f"{name}: not a config this benchmark runs (an anonymous one of bench/run.py)")
        counts = per_request(name, args.requests)
        # Calls at least once in ten requests; the rest are timers and start-up work, not a request's.
        shown = ", ".join(
            f"{call} {count:.2f}" for call, count in sorted(counts.items(), key=lambda i: -i[1]) if count >= 0.1
        )
        print(f"{name:10s} {sum(c for c in counts.values() if c >= 0.1):5.2f} a request: {shown}", flush=True)


if __name__ == "__main__":
    main()
