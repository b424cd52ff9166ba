"""Rate limits: the policy notation, exact and all-or-nothing counting in memory and in the local Redis,
the RateLimit headers callers read, reservations given back, and the fallback to memory when Redis is down."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable

import pytest

from garage_tools.access.ratelimit import (
    REDIS_RETRY_SECONDS,
    Counters,
    Decision,
    MemoryCounters,
    Policy,
    RateLimiter,
    Reservation,
    Window,
)
from garage_tools.access.redis_client import RedisClient
from garage_tools.access.redis_counters import RedisCounters
from tests.redis_keys import delete_matching, keys_matching

REDIS_URL = "redis://127.0.0.1:6379/0"
UNREACHABLE_REDIS_URL = "redis://127.0.0.1:1"


class StepClock:
    """A monotonic clock that moves only when told."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def header_map(decision: Decision) -> dict[str, str]:
    return {name.decode(): value.decode() for name, value in decision.headers()}


async def hits(limiter: RateLimiter, partition: str, policies: list[Policy], count: int) -> list[bool]:
    return [(await limiter.check(partition, policies)).allowed for _ in range(count)]


# Fixtures: a unique run id keeps Redis keys of concurrent or earlier runs apart.


@pytest.fixture
def run_id() -> str:
    return uuid.uuid4().hex[:12]


@pytest.fixture
async def redis_keys(run_id: str) -> AsyncIterator[RedisClient]:
    """A plain client to the local Redis; every rate-limit key of this test's run is deleted afterwards."""
    client = RedisClient(REDIS_URL)
    yield client
    await delete_matching(client, f"garage-tools:rl:*{run_id}*")
    await client.close()


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


MakeLimiter = Callable[[], RateLimiter]


@pytest.fixture(params=["memory", "redis"])
def make_limiter(request: pytest.FixtureRequest, clock: StepClock) -> MakeLimiter:
    """Limiters counting in process memory (on the step clock), or in the local Redis (one store for all)."""
    if request.param == "memory":
        shared = RateLimiter(clock=clock)
        return lambda: shared
    request.getfixturevalue("redis_keys")
    return lambda: RateLimiter(RedisCounters(REDIS_URL))


def policy(run_id: str, name: str, notation: str) -> Policy:
    """A policy whose window names (and so Redis keys) carry the run id."""
    return Policy.parse(f"{name}-{run_id}", notation)


# Policy notation.


def test_policy_parse_names_each_window_after_its_span() -> None:
    parsed = Policy.parse("public", "60/minute;2000/day")
    assert parsed.name == "public"
    assert parsed.windows == (Window("public-minute", 60, 60), Window("public-day", 2000, 86400))


@pytest.mark.parametrize(
    ("notation", "expected"),
    [
        ("3/second", [("t-second", 3, 1)]),
        ("240 per minute", [("t-minute", 240, 60)]),
        ("100/hour", [("t-hour", 100, 3600)]),
        ("5/2 hours", [("t-7200s", 5, 7200)]),
        ("10/minute, 500/day", [("t-minute", 10, 60), ("t-day", 500, 86400)]),
    ],
)
def test_policy_parse_understands_the_limits_notation(notation: str, expected: list[tuple[str, int, int]]) -> None:
    assert [(w.name, w.limit, w.seconds) for w in Policy.parse("t", notation).windows] == expected


@pytest.mark.parametrize("notation", ["", "sixty a minute", "60/fortnight", "-1/minute", "0/minute"])
def test_policy_parse_refuses_bad_notation(notation: str) -> None:
    with pytest.raises(ValueError, match=r"parse|granularity|at least one"):
        Policy.parse("t", notation)


# Counting, in memory and in Redis.


async def test_exactly_the_limit_is_allowed(make_limiter: MakeLimiter, run_id: str) -> None:
    limits = [policy(run_id, "exact", "5/minute")]
    limiter = make_limiter()
    assert await hits(limiter, f"203.0.113.1-{run_id}", limits, 7) == [True] * 5 + [False] * 2
    # Another partition has its own budget.
    assert await hits(limiter, f"203.0.113.2-{run_id}", limits, 1) == [True]


async def test_a_refusal_charges_no_window(make_limiter: MakeLimiter, run_id: str) -> None:
    tier = policy(run_id, "tier", "10/hour")
    cap = policy(run_id, "cap", "2/hour")
    limiter = make_limiter()
    partition = f"198.51.100.9-{run_id}"
    assert await hits(limiter, partition, [tier, cap], 4) == [True, True, False, False]
    # The two refused calls did not eat the tier budget: 10 - 2 used = 8 left.
    assert await hits(limiter, partition, [tier], 9) == [True] * 8 + [False]


async def test_rate_limit_headers_have_the_draft_shape(make_limiter: MakeLimiter, run_id: str) -> None:
    public = policy(run_id, "public", "60/minute;2000/day")
    limiter = make_limiter()
    headers = header_map(await limiter.check(f"192.0.2.1-{run_id}", [public]))
    minute, day = f"public-{run_id}-minute", f"public-{run_id}-day"
    assert headers == {
        "ratelimit-policy": f'"{minute}";q=60;w=60, "{day}";q=2000;w=86400',
        "ratelimit": f'"{minute}";r=59;t=60, "{day}";r=1999;t=86400',
    }


async def test_refusal_says_when_to_retry(make_limiter: MakeLimiter, run_id: str) -> None:
    limiter = make_limiter()
    limits = [policy(run_id, "tight", "1/minute;100/day")]
    await limiter.check(f"192.0.2.2-{run_id}", limits)
    refused = await limiter.check(f"192.0.2.2-{run_id}", limits)
    assert not refused.allowed
    headers = header_map(refused)
    assert headers["retry-after"] == "60"
    assert headers["ratelimit"] == f'"tight-{run_id}-minute";r=0;t=60, "tight-{run_id}-day";r=99;t=86400'
    error = refused.error()
    assert (error.status, error.code, error.headers["Retry-After"]) == (429, "rate_limited", "60")
    assert "1 per minute" in error.message


async def test_a_refusal_names_its_windows_as_the_pages_do(make_limiter: MakeLimiter, run_id: str) -> None:
    # The portal's tier table, the agent guide and the 429 describe a limit with the same words.
    tight = policy(run_id, "long", "2000 per 2 hours")
    limiter = make_limiter()
    assert (await limiter.check(f"192.0.2.3-{run_id}", [tight], cost=2000)).allowed
    refused = await limiter.check(f"192.0.2.3-{run_id}", [tight])
    assert tight.describe() == "2,000 per 2 hours"
    assert f"Rate limit reached ({tight.describe()} for this tier)" in refused.error().message


# Reservations: a share of a hit held until the call is settled, in memory and in Redis.


async def reserve(limiter: RateLimiter, partition: str, tier: Policy, cap: Policy) -> Reservation:
    decision = await limiter.check(partition, [tier, cap], reserve=cap)
    assert decision.allowed and decision.reservation is not None
    return decision.reservation


async def room(limiter: RateLimiter, partition: str, policy: Policy) -> int:
    """What is left in the first window of `policy`, read without counting."""
    return (await limiter.peek(partition, [policy])).states[0].remaining


async def test_giving_back_frees_the_reserved_windows_only(make_limiter: MakeLimiter, run_id: str) -> None:
    tier, cap = policy(run_id, "tier", "10/minute"), policy(run_id, "cap", "2/day")
    limiter = make_limiter()
    partition = f"203.0.113.60-{run_id}"
    for _ in range(5):
        await (await reserve(limiter, partition, tier, cap)).give_back()
    assert await room(limiter, partition, cap) == 2  # five calls, none of them used the cap
    assert await room(limiter, partition, tier) == 5  # but every one of them was a call
    kept = await reserve(limiter, partition, tier, cap)
    kept.keep()
    await kept.give_back()  # settled already: a no-op
    assert await room(limiter, partition, cap) == 1


async def test_a_reservation_is_given_back_once(make_limiter: MakeLimiter, run_id: str) -> None:
    tier, cap = policy(run_id, "tier", "10/minute"), policy(run_id, "cap", "3/day")
    limiter = make_limiter()
    partition = f"203.0.113.61-{run_id}"
    await reserve(limiter, partition, tier, cap)
    twice = await reserve(limiter, partition, tier, cap)
    await twice.give_back()
    await twice.give_back()
    assert await room(limiter, partition, cap) == 2


async def test_without_reserve_a_decision_holds_nothing(make_limiter: MakeLimiter, run_id: str) -> None:
    limiter = make_limiter()
    tier, cap = policy(run_id, "tier", "10/minute"), policy(run_id, "cap", "1/day")
    assert (await limiter.check(f"203.0.113.62-{run_id}", [tier, cap])).reservation is None
    refused = await limiter.check(f"203.0.113.62-{run_id}", [tier, cap], reserve=cap)
    assert not refused.allowed and refused.reservation is None  # a refusal counted nothing to give back


@pytest.fixture(params=["memory", "redis"])
def counters(request: pytest.FixtureRequest, clock: StepClock) -> Counters:
    if request.param == "memory":
        return MemoryCounters(clock)
    request.getfixturevalue("redis_keys")
    return RedisCounters(REDIS_URL)


async def test_giving_back_never_goes_below_zero(counters: Counters, run_id: str) -> None:
    slots = [(f"floor-{run_id}-day:a", 5, 86400)]
    _, _, ends = await counters.take(slots, 1)
    await counters.give_back(slots, 3, ends)
    allowed, [(count, _)], _ = await counters.take(slots, 0)
    assert (allowed, count) == (True, 0)
    assert (await counters.take(slots, 5))[0]  # the whole window is there, and no more
    assert not (await counters.take(slots, 1))[0]


async def test_a_window_that_started_afresh_keeps_its_count(counters: Counters, run_id: str, clock: StepClock) -> None:
    slots = [(f"afresh-{run_id}-second:a", 5, 1)]
    _, _, old_ends = await counters.take(slots, 1)
    if isinstance(counters, MemoryCounters):
        clock.advance(1.5)
    else:
        await asyncio.sleep(1.2)  # a sleep on purpose: Redis expires keys on its own clock, which no test can move
    _, [(count, _)], _ = await counters.take(slots, 1)
    assert count == 1  # a new run of the window
    await counters.give_back(slots, 1, old_ends)  # the reservation was of the run before
    _, [(count, _)], _ = await counters.take(slots, 0)
    assert count == 1


async def test_giving_back_to_another_run_of_the_window_changes_nothing(counters: Counters, run_id: str) -> None:
    slots = [(f"other-run-{run_id}-minute:a", 5, 60)]
    _, _, ends = await counters.take(slots, 1)
    await counters.give_back(slots, 1, [end - 60_000 for end in ends])  # units taken in a run long gone
    _, [(count, _)], _ = await counters.take(slots, 0)
    assert count == 1


async def test_a_reservation_goes_back_to_the_store_that_took_it(clock: StepClock) -> None:
    limiter = RateLimiter(RedisCounters(UNREACHABLE_REDIS_URL), clock=clock)
    tier, cap = Policy.parse("tier", "10/minute"), Policy.parse("cap", "1/day")
    reservation = await reserve(limiter, "a", tier, cap)  # counted in memory: Redis is down
    assert reservation.counters is limiter.local
    await reservation.give_back()
    assert (await limiter.check("a", [tier, cap])).allowed


async def test_a_reservation_taken_in_redis_stays_counted_when_redis_is_gone(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reservation = Reservation(RedisCounters(UNREACHABLE_REDIS_URL), (("cap-day:a", 1, 86400),), 1, (0.0,))
    with caplog.at_level(logging.WARNING, logger="garage_tools.access.ratelimit"):
        await reservation.give_back()  # no exception: the caller's own answer must not be masked
    assert reservation.settled and "stays counted" in caplog.text


# Memory: windows on a step clock, and the sweep.


def public_policy() -> Policy:
    return Policy.parse("public", "60/minute;2000/day")


async def test_memory_headers_exactly_as_documented(clock: StepClock) -> None:
    limiter = RateLimiter(clock=clock)
    first = await limiter.check("203.0.113.7", [public_policy()])
    assert first.headers() == [
        (b"ratelimit-policy", b'"public-minute";q=60;w=60, "public-day";q=2000;w=86400'),
        (b"ratelimit", b'"public-minute";r=59;t=60, "public-day";r=1999;t=86400'),
    ]
    clock.advance(15)
    later = header_map(await limiter.check("203.0.113.7", [public_policy()]))
    assert later["ratelimit"] == '"public-minute";r=58;t=45, "public-day";r=1998;t=86385'


async def test_the_headers_template_says_what_the_fields_say(clock: StepClock) -> None:
    """An allowed call's raw headers come from a template worked out once per set of policies; they say what the
    plainly formatted fields say, for one window or several, after a give-back, and with a `%` in a window's name."""
    odd = Policy("odd", (Window("100%-burst", 5, 10),))
    cap = Policy.parse("photos", "3/day")
    limiter = RateLimiter(clock=clock)
    for n, policies in enumerate(([public_policy()], [odd], [public_policy(), odd, cap])):
        for _ in range(3):
            decision = await limiter.check(f"198.51.100.{n}", policies)
            assert decision.allowed and header_map(decision) == {
                name.lower(): value for name, value in decision.header_fields().items()
            }
            clock.advance(1)
    held = await limiter.check("198.51.100.9", [public_policy(), cap], reserve=cap)
    assert held.reservation is not None
    await held.reservation.give_back()
    assert header_map(held)["ratelimit"] == held.header_fields()["RateLimit"]
    assert '"photos-day";r=3;' in header_map(held)["ratelimit"]  # the unit given back is not counted


async def test_memory_window_starts_afresh_after_its_length(clock: StepClock) -> None:
    limiter = RateLimiter(clock=clock)
    limits = [Policy.parse("p", "3/minute")]
    assert await hits(limiter, "a", limits, 4) == [True, True, True, False]
    clock.advance(59.5)
    assert await hits(limiter, "a", limits, 1) == [False]
    clock.advance(0.5)
    assert await hits(limiter, "a", limits, 4) == [True, True, True, False]


async def test_memory_full_day_does_not_charge_the_minute(clock: StepClock) -> None:
    limiter = RateLimiter(clock=clock)
    limits = [Policy.parse("public", "5/minute;6/day")]
    assert await hits(limiter, "a", limits, 5) == [True] * 5
    clock.advance(60)
    assert await hits(limiter, "a", limits, 3) == [True, False, False]
    refused = header_map(await limiter.check("a", limits))
    # The minute window holds only the one allowed call; the day is full.
    assert refused["ratelimit"].startswith('"public-minute";r=4;t=60, "public-day";r=0;')
    assert refused["retry-after"] == str(86400 - 60)


async def test_memory_full_minute_does_not_charge_the_day(clock: StepClock) -> None:
    limiter = RateLimiter(clock=clock)
    limits = [Policy.parse("public", "2/minute;4/day")]
    assert await hits(limiter, "a", limits, 6) == [True, True, False, False, False, False]
    clock.advance(60)
    # Four refusals spent nothing from the day: two calls remain.
    assert await hits(limiter, "a", limits, 3) == [True, True, False]


async def test_memory_retry_after_waits_for_every_full_window(clock: StepClock) -> None:
    limiter = RateLimiter(clock=clock)
    limits = [Policy.parse("p", "1/minute"), Policy.parse("q", "1/hour")]
    await limiter.check("a", limits)
    clock.advance(10)
    refused = await limiter.check("a", limits)
    assert refused.retry_after == 3600 - 10


async def test_memory_first_hit_never_reports_more_than_the_window() -> None:
    limiter = RateLimiter(clock=lambda: 5000.7)  # an ordinary time.monotonic() reading
    headers = header_map(await limiter.check("a", [Policy.parse("p", "100/hour")]))
    assert headers["ratelimit"] == '"p-hour";r=99;t=3600'


async def test_memory_sweep_forgets_finished_windows(clock: StepClock) -> None:
    counters = MemoryCounters(clock)
    for caller in range(100):
        await counters.take([(f"old-{caller}", 10, 60)], 1)
    clock.advance(61)
    for _ in range(MemoryCounters.SWEEP_EVERY - 101):
        await counters.take([("active", 10**6, 3600)], 1)
    assert len(counters._counts) == 101  # every window is still held until the sweep
    await counters.take([("active", 10**6, 3600)], 1)  # the SWEEP_EVERY-th call sweeps
    assert set(counters._counts) == {"active"}


async def test_memory_sweep_keeps_windows_still_running(clock: StepClock) -> None:
    counters = MemoryCounters(clock)
    await counters.take([("caller", 3, 3600)], 1)
    await counters.take([("caller", 3, 3600)], 1)
    clock.advance(61)
    for _ in range(MemoryCounters.SWEEP_EVERY):
        await counters.take([("other", 10**6, 60)], 1)
    allowed, [(count, _)], _ = await counters.take([("caller", 3, 3600)], 1)
    assert (allowed, count) == (True, 3)
    assert not (await counters.take([("caller", 3, 3600)], 1))[0]


# Redis: real expiry, shared counting, and the fallback to memory.


async def test_redis_window_starts_afresh_after_its_length(redis_keys: RedisClient, run_id: str) -> None:
    limiter = RateLimiter(RedisCounters(REDIS_URL))
    limits = [policy(run_id, "burst", "3/second")]
    assert await hits(limiter, "a", limits, 4) == [True, True, True, False]
    await asyncio.sleep(1.1)  # a sleep on purpose: the window expires on Redis's own clock, which no test can move
    assert await hits(limiter, "a", limits, 4) == [True, True, True, False]


async def test_redis_keys_expire_with_their_window(redis_keys: RedisClient, run_id: str) -> None:
    limiter = RateLimiter(RedisCounters(REDIS_URL))
    await limiter.check("a", [policy(run_id, "ttl", "3/minute;5/day")])
    minute = await redis_keys.execute("PTTL", f"garage-tools:rl:ttl-{run_id}-minute:a")
    day = await redis_keys.execute("PTTL", f"garage-tools:rl:ttl-{run_id}-day:a")
    assert 0 < minute <= 60_000
    assert 60_000 < day <= 86_400_000


async def test_two_processes_sharing_redis_count_together(redis_keys: RedisClient, run_id: str) -> None:
    first, second = RateLimiter(RedisCounters(REDIS_URL)), RateLimiter(RedisCounters(REDIS_URL))
    limits = [policy(run_id, "shared", "50/minute")]
    decisions = await asyncio.gather(
        *(limiter.check(f"203.0.113.50-{run_id}", limits) for _ in range(50) for limiter in (first, second))
    )
    allowed = [d for d in decisions if d.allowed]
    assert len(allowed) == 50
    # Each admitted call saw its own place in the window: no two were counted as one.
    assert sorted(d.states[0].remaining for d in allowed) == list(range(50))
    assert all(d.states[0].remaining == 0 for d in decisions if not d.allowed)


async def test_deployments_with_their_own_key_prefix_count_apart(redis_keys: RedisClient, run_id: str) -> None:
    ours = RateLimiter(RedisCounters(REDIS_URL, prefix=f"garage-tools-{run_id}-a:"))
    theirs = RateLimiter(RedisCounters(REDIS_URL, prefix=f"garage-tools-{run_id}-b:"))
    limits = [policy(run_id, "apart", "3/minute")]
    for _ in range(3):
        assert (await ours.check("203.0.113.51", limits)).allowed
    assert not (await ours.check("203.0.113.51", limits)).allowed
    assert (await theirs.check("203.0.113.51", limits)).allowed  # the same caller, another deployment's window
    written = await keys_matching(redis_keys, f"garage-tools-{run_id}-*")
    assert len(written) == 2
    await redis_keys.execute("DEL", *written)


async def test_unreachable_redis_falls_back_to_exact_counting_in_memory(
    caplog: pytest.LogCaptureFixture, clock: StepClock
) -> None:
    limiter = RateLimiter(RedisCounters(UNREACHABLE_REDIS_URL), clock=clock)
    limits = [Policy.parse("fallback", "5/hour")]
    with caplog.at_level(logging.INFO, logger="garage_tools.access.ratelimit"):
        results = []
        for _ in range(8):
            results.append((await limiter.check("a", limits)).allowed)
            clock.advance(REDIS_RETRY_SECONDS + 1)  # so every call tries Redis again, and fails again
        results += await hits(limiter, "a", limits, 20)  # and these, within the retry pause, skip Redis
    assert results == [True] * 5 + [False] * 23
    ours = [r for r in caplog.records if r.name == "garage_tools.access.ratelimit"]
    assert [r.levelno for r in ours] == [logging.WARNING]
    assert "Redis unreachable" in ours[0].getMessage()


async def test_limiter_backend_names_where_it_counts() -> None:
    assert RateLimiter().backend == "memory"
    assert RateLimiter(RedisCounters(REDIS_URL)).backend == "redis"


async def test_counting_in_memory_takes_the_direct_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded default counts without a coroutine between the check and the counters, and makes each
    caller's counter keys once: the fast path every tool call takes."""

    async def never(*args: object) -> None:
        raise AssertionError("the memory counters were reached through a coroutine")

    limiter = RateLimiter()
    monkeypatch.setattr(limiter.local, "take", never)
    policy = Policy.parse("public", "2/minute;10/day")
    first = await limiter.check("public:198.51.100.7", [policy])
    second = await limiter.check("public:198.51.100.7", [policy])
    third = await limiter.check("public:198.51.100.7", [policy])
    assert (first.allowed, second.allowed, third.allowed) == (True, True, False)
    assert second.headers()[1] == (b"ratelimit", b'"public-minute";r=0;t=60, "public-day";r=8;t=86400')
    assert list(limiter._slot_memory.values()) == [
        (("public-minute:public:198.51.100.7", 2, 60), ("public-day:public:198.51.100.7", 10, 86400))
    ]
