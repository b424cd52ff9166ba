"""How long `KeyService.verify` takes for a forged key, a wrong secret and a valid key, in process.

An attacker who can tell "this id does not exist" from "this id exists, the secret is wrong" by the
time a refusal takes learns which key ids are real. This measures both failures side by side:

- `unknown`: a well-formed key (prefix, length, alphabet, checksum all right) whose id is not stored,
  the same one on every call;
- `unknown-fresh`: a different well-formed unknown id on every call, as a forged-key flood sends;
- `wrong-secret`: a stored id with another secret (checksum recomputed, so it is well-formed too),
  the same one on every call;
- `wrong-secret-fresh`: the stored id with a different wrong secret on every call, as someone guessing
  secrets for a known id sends;
- `valid`: the stored key itself.

Each runs against SQLite and, when it answers at 127.0.0.1:5432 (user postgres, trust), PostgreSQL in a
throwaway database; each with the key cache off (ttl=0: every call reads the store) and on (the default
TTL). Each failure is compared with its twin: `unknown` with `wrong-secret` (a token seen before, so
with the cache on both are cache hits) and `unknown-fresh` with `wrong-secret-fresh` (a token never
seen, so both reach the store). The cases are interleaved in a fresh random order on every iteration,
so drift hits them alike. The clock is `perf_counter_ns` around one awaited `verify`, on uvloop like the server.

Usage (from the repository root):

    uv run python bench/key_timing.py                    # 4,000 iterations per case and mode
    uv run python bench/key_timing.py --iterations 10000 --no-postgres
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import math
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from garage_tools.access.keys import PREFIX, KeyCache, KeyService, checksum, new_key
from garage_tools.settings import Settings
from garage_tools.store.api_keys import ApiKeyRepository
from garage_tools.store.database import Database

POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
CASES = ("unknown", "unknown-fresh", "wrong-secret", "wrong-secret-fresh", "valid")
PAIRS = (("unknown", "wrong-secret"), ("unknown-fresh", "wrong-secret-fresh"))
OTHER_KEYS = 200  # so the stored key is not alone in its table
BLOCK = 250  # iterations per block: the sign test counts in how many blocks one case had the lower median


def forged_key() -> str:
    """A key nobody issued that still passes every offline check (prefix, length, alphabet, checksum)."""
    return new_key()[1]


def wrong_secret(key_id: str) -> str:
    """A well-formed key with a stored id and a secret that is not its own."""
    other = new_key()[1]
    body = PREFIX + key_id + other[len(PREFIX) + len(key_id) : -6]
    return body + checksum(body)


@dataclass
class Timings:
    backend: str
    mode: str
    samples: dict[str, list[float]]  # case -> µs per call, in iteration order


async def measure(
    keys: KeyService, key_id: str, plaintext: str, iterations: int, warmup: int
) -> dict[str, list[float]]:
    fixed = {"unknown": forged_key(), "wrong-secret": wrong_secret(key_id), "valid": plaintext}
    fresh = {
        "unknown-fresh": [forged_key() for _ in range(iterations + warmup)],
        "wrong-secret-fresh": [wrong_secret(key_id) for _ in range(iterations + warmup)],
    }
    samples: dict[str, list[float]] = {case: [] for case in CASES}
    order = list(CASES)
    clock = time.perf_counter_ns
    for i in range(iterations + warmup):
        random.shuffle(order)
        for case in order:
            token = fresh[case][i] if case in fresh else fixed[case]
            start = clock()
            record = await keys.verify(token)
            elapsed = clock() - start
            if (record is not None) != (case == "valid"):
                raise SystemExit(f"verify gave {record!r} for the {case} case: the benchmark is measuring nonsense")
            if i >= warmup:
                samples[case].append(elapsed / 1000)
    await keys.drain()
    return samples


async def run_backend(
    backend: str, database: Database, ttl_default: float, iterations: int, warmup: int
) -> list[Timings]:
    await database.migrate()
    repository = ApiKeyRepository(database)
    setup = KeyService(repository)
    for n in range(OTHER_KEYS):
        await setup.issue(f"other{n}@example.com")
    issued = await setup.issue("bench@example.com")
    out = []
    for mode, ttl in (("cache off (ttl=0)", 0.0), (f"cache on (ttl={ttl_default:g} s)", ttl_default)):
        keys = KeyService(repository, KeyCache(ttl=ttl))
        gc.collect()
        samples = await measure(keys, issued.record.id, issued.plaintext, iterations, warmup)
        out.append(Timings(backend, mode, samples))
    return out


@contextlib.asynccontextmanager
async def sqlite_database() -> AsyncIterator[Database]:
    with tempfile.TemporaryDirectory(prefix="garage-key-timing-") as tmp:
        database = Database(f"sqlite+aiosqlite:///{Path(tmp) / 'keys.db'}")
        try:
            yield database
        finally:
            await database.dispose()


@contextlib.asynccontextmanager
async def postgres_database() -> AsyncIterator[Database]:
    import asyncpg  # type: ignore[import-untyped]  # the service's driver; only needed here

    name = f"garage_key_timing_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(POSTGRES_ADMIN, timeout=3)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        database = Database(f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}")
        try:
            yield database
        finally:
            await database.dispose()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)]


def block_differences(a: list[float], b: list[float]) -> list[float]:
    """Median(a) - median(b) in consecutive blocks: how much the difference moves from block to block."""
    return [
        statistics.median(a[i : i + BLOCK]) - statistics.median(b[i : i + BLOCK])
        for i in range(0, len(a) - BLOCK + 1, BLOCK)
    ]


def sign_test(successes: int, trials: int) -> float:
    """Two-sided p-value of `successes` out of `trials` if either outcome were equally likely."""
    if trials == 0:
        return 1.0
    tail = min(successes, trials - successes)
    return min(1.0, 2 * sum(math.comb(trials, k) for k in range(tail + 1)) / float(2**trials))


def report(timings: Timings) -> None:
    print(f"\n{timings.backend}, {timings.mode}: {len(timings.samples['valid'])} interleaved iterations")
    print(f"  {'case':18s} {'median µs':>10s} {'p90 µs':>9s}")
    for case in CASES:
        values = timings.samples[case]
        print(f"  {case:18s} {statistics.median(values):10.1f} {percentile(values, 0.9):9.1f}")
    for unknown, wrong in PAIRS:
        a, b = timings.samples[unknown], timings.samples[wrong]
        diffs = block_differences(a, b)
        faster = sum(d < 0 for d in diffs)
        p_value = sign_test(faster, len(diffs))
        verdict = "within noise" if p_value > 0.05 else "apart"
        print(
            f"  {unknown} - {wrong}: median {statistics.median(a) - statistics.median(b):+.1f} µs,"
            f" p90 {percentile(a, 0.9) - percentile(b, 0.9):+.1f} µs; {unknown} faster in {faster} of"
            f" {len(diffs)} blocks of {BLOCK} (sign test p={p_value:.2g}: {verdict})"
        )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=4000, help="measured iterations per mode (default 4000)")
    parser.add_argument("--warmup", type=int, default=200, help="discarded iterations first (default 200)")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)
    if not BLOCK <= args.iterations <= 1_000_000:
        parser.error(f"--iterations must be between {BLOCK} and 1000000")
    return args


async def main_async(args: argparse.Namespace) -> None:
    ttl_default = float(Settings.model_fields["key_cache_seconds"].default)
    backends: list[tuple[str, Callable[[], contextlib.AbstractAsyncContextManager[Database]]]] = [
        ("SQLite", sqlite_database)
    ]
    if not args.no_postgres:
        backends.append(("PostgreSQL", postgres_database))
    for name, opener in backends:
        try:
            async with opener() as database:
                for timings in await run_backend(name, database, ttl_default, args.iterations, args.warmup):
                    report(timings)
        except (OSError, ImportError) as exc:
            print(f"\n{name}: skipped ({type(exc).__name__}: {exc})")


def run(main: Coroutine[Any, Any, None]) -> None:
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
        return
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main)


if __name__ == "__main__":
    arguments = parse_args(None)
    print(f"KeyService.verify, in process; Python {sys.version.split()[0]}")
    run(main_async(arguments))
