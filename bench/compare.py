"""Two versions of the service against the baseline, interleaved: before and after a change, on a noisy host.

`bench/run.py` measures the code in this checkout, one server at a time. On a shared guest whose speed drifts by
a third between rounds, a change of a few per cent is lost between two such runs. This one starts the baseline
and two versions of the service at once (each version from its own source tree, given by `PYTHONPATH`), pinned to
one CPU, and runs wrk on each in turn for short runs, many rounds, in alternating order. It prints, for each, the
median req/s and server CPU a request (user and system, from `/proc`), the same-round ratio to the baseline, and
the after/before ratio of each round's req/s.

    git worktree add /tmp/before <rev>                                    # the version to compare against
    uv run python bench/compare.py --before /tmp/before/src --after src --only rest --rounds 10
    git worktree remove /tmp/before
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.run import (
    CONFIGS,
    TICKS_PER_SECOND,
    error_count,
    preflight,
    process_tree,
    run_wrk,
    running_server,
    wrk_env,
)

STARTUP_TIMEOUT_S = 120.0


def user_and_system_seconds(pids: list[int]) -> tuple[float, float]:
    """utime and stime of the given processes, apart (`bench.run.cpu_seconds` adds them)."""
    user = system = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError), open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
            user, system = user + int(fields[11]), system + int(fields[12])
    return user / TICKS_PER_SECOND, system / TICKS_PER_SECOND


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, type=Path, help="the source tree (its src/) to compare against")
    parser.add_argument("--after", required=True, type=Path, help="the source tree (its src/) of the change")
    parser.add_argument("--only", default="rest", help="one anonymous config of bench/run.py (default: rest)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--duration", type=float, default=4.0, help="seconds of each measured run")
    parser.add_argument("--conns", type=int, default=32)
    args = parser.parse_args()
    config = CONFIGS.get(args.only)
    if config is None or config.server != "ours" or config.credential is not None or config.redis:
        raise SystemExit(f"{args.only}: not a config this benchmark runs (an anonymous one of bench/run.py)")
    baseline = CONFIGS["baseline"]
    sources = {"baseline": None, "before": args.before.resolve(), "after": args.after.resolve()}
    found: dict[str, dict[str, list[float]]] = {name: {"rps": [], "user": [], "system": []} for name in sources}
    with tempfile.TemporaryDirectory() as work, contextlib.ExitStack() as stack:
        servers = {}
        for name, source in sources.items():
            settings = (("PYTHONPATH", str(source)),) if source is not None else ()
            kind = "ours" if source is not None else "baseline"
            workdir = Path(work) / name
            workdir.mkdir()
            servers[name] = stack.enter_context(running_server(kind, workdir, 0, name, settings))
            preflight(servers[name], config if source is not None else baseline, STARTUP_TIMEOUT_S, wrk_env())
        script = {name: config.script if name != "baseline" else baseline.script for name in sources}
        for round_ in range(args.rounds):
            order = list(sources) if round_ % 2 == 0 else list(reversed(sources))
            for name in order:
                server = servers[name]
                run_wrk(server.port, script[name], 1.0, args.conns, 1, wrk_env())  # warm-up
                pids = process_tree(server.proc.pid)
                user0, system0 = user_and_system_seconds(pids)
                wrk = run_wrk(server.port, script[name], args.duration, args.conns, 1, wrk_env())
                user1, system1 = user_and_system_seconds(pids)
                if error_count(wrk.result):
                    raise SystemExit(f"{name}: errors in round {round_ + 1}: {wrk.result}")
                requests = max(int(wrk.result["requests"]), 1)
                found[name]["rps"].append(float(wrk.result["rps"]))
                found[name]["user"].append((user1 - user0) / requests * 1e6)
                found[name]["system"].append((system1 - system0) / requests * 1e6)
    median = statistics.median
    for name, runs in found.items():
        user, system = median(runs["user"]), median(runs["system"])
        line = f"{name:8s} {median(runs['rps']):8,.0f} req/s  CPU {user + system:6.1f} µs a request"
        line += f" (user {user:.1f}, system {system:.1f})"
        if name != "baseline":
            ratios = [ours / base for ours, base in zip(runs["rps"], found["baseline"]["rps"], strict=True)]
            line += f"  same-round ratio {median(ratios):.3f}"
        print(line)
    paired = [after / before for after, before in zip(found["after"]["rps"], found["before"]["rps"], strict=True)]
    print(f"after/before req/s, paired by round: median {median(paired):.3f} ({min(paired):.3f} to {max(paired):.3f})")


if __name__ == "__main__":
    main()
