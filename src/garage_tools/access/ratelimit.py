"""Rate limits: fixed windows per caller partition, counted in process memory or in Redis.

A policy is a list of windows in the `limits` package's notation (`60/minute;2000/day`). Each
window counts from the first hit of the partition in it, for the window's length, as Redis
`INCR` + `EXPIRE` does. A hit is all or nothing: when any window would overflow, nothing is
counted, so refused calls never eat the budget. Counting is done in one step per call: one
dictionary pass in memory, one Lua script (atomic, one round trip) in Redis, which is why the
`limits` package serves only as the notation here (its strategies cost two round trips per
window).

Some windows count a use rather than a call (a tool's usage cap, such as visualDiagnose's photos a
day): `check` can reserve their share of a hit, and the `Reservation` gives it back if the call turns
out to have used nothing. The reservation is taken in the same atomic step as the rest, so a cap stays
exact under concurrency and across processes; giving back is a decrement of the same window, never
below zero and never in a window that has started afresh since.

When Redis is unreachable the limiter falls back to this process's memory and logs one line;
limits then hold per process instead of across the fleet until Redis answers again (tried
every `REDIS_RETRY_SECONDS`). The service stays up: failing closed would turn a cache outage
into a full outage of a free public API.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import ceil
from typing import Protocol

from limits import parse_many

from garage_tools.errors import RateLimited
from garage_tools.observability.metrics import count_rate_limited
from garage_tools.values import value

log = logging.getLogger(__name__)

REDIS_RETRY_SECONDS = 5.0


#: How a caller gets more than the public tier's limits (said in a 429 where it is true).
KEY_ADVICE = "an API key raises the limits (see /developers)."


@dataclass(frozen=True, slots=True)
class Window:
    name: str
    limit: int
    seconds: int

    def describe(self) -> str:
        """The window for people: `60 per minute`, `2,000 per day`, `3 per 15 minutes`."""
        return f"{self.limit:,} per {describe_span(self.seconds)}"


@dataclass(frozen=True, slots=True, eq=False)
class Policy:
    """Named windows that all apply to one partition. Built once at start-up, compared by identity."""

    name: str
    windows: tuple[Window, ...]

    @classmethod
    def parse(cls, name: str, notation: str) -> Policy:
        """`Policy.parse("public", "60/minute;2000/day")`; ValueError on bad notation."""
        windows = []
        for item in parse_many(notation):
            if item.amount < 1:
                raise ValueError(f"a rate limit must allow at least one call: {notation!r}")
            seconds = int(item.get_expiry())
            windows.append(Window(f"{name}-{_span_name(seconds)}", int(item.amount), seconds))
        if not windows:
            raise ValueError(f"no rate limit in {notation!r}")
        return cls(name, tuple(windows))

    def describe(self) -> str:
        """The policy for people, as the portal, the agent guide and a 429 say it: `60 per minute, 2,000 per day`."""
        return ", ".join(window.describe() for window in self.windows)


def describe_span(seconds: int) -> str:
    """A window's length in words: `minute`, `2 hours`, `15 minutes`, `90 seconds`."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            count = seconds // size
            return unit if count == 1 else f"{count} {unit}s"
    return "second" if seconds == 1 else f"{seconds} seconds"


def _span_name(seconds: int) -> str:
    """The span's part of a window's name, an identifier clients see in `RateLimit-Policy` (not prose)."""
    names = {1: "second", 60: "minute", 3600: "hour", 86400: "day", 2_592_000: "month", 31_536_000: "year"}
    return names.get(seconds, f"{seconds}s")


@dataclass(frozen=True, slots=True)
class WindowState:
    window: Window
    remaining: int
    reset_after: int  # seconds until this window starts afresh


@dataclass(frozen=True, slots=True, eq=False)
class Layout:
    """The windows of a set of policies, with what every answer under them repeats, worked out once: the constant
    `RateLimit-Policy` value, and the `RateLimit` value as a bytes template that two numbers a window fill
    (a tenth of the cost of formatting it afresh, on every tool call)."""

    windows: tuple[Window, ...]
    policy_header: str
    policy_field: bytes
    limits: tuple[int, ...]
    state_template: bytes  # `"name";r=%d;t=%d` a window, joined by ", "


@functools.lru_cache(maxsize=256)
def _layout(policies: tuple[Policy, ...]) -> Layout:
    """The layout of `policies` (policies hash by identity)."""
    windows = tuple(w for policy in policies for w in policy.windows)
    policy_header = ", ".join(f'"{w.name}";q={w.limit};w={w.seconds}' for w in windows)
    template = ", ".join(f'"{w.name.replace("%", "%%")}";r=%d;t=%d' for w in windows)
    return Layout(windows, policy_header, policy_header.encode(), tuple(w.limit for w in windows), template.encode())


@value
class Decision:
    """The outcome of one check: allowed or not, the (count, seconds left) of each window, and what it reserved."""

    allowed: bool
    layout: Layout
    counts: list[tuple[int, int]]
    reservation: Reservation | None = None  # set when the check was allowed and asked to reserve a policy

    @property
    def windows(self) -> tuple[Window, ...]:
        return self.layout.windows

    @property
    def policy_header(self) -> str:
        return self.layout.policy_header

    def _counts_now(self) -> list[tuple[int, int]]:
        """The counts as they stand now: less the reserved units, once they have been given back."""
        held = self.reservation
        if held is None or not held.given_back:
            return self.counts
        return [
            (count - held.cost if w in held.windows else count, reset)
            for w, (count, reset) in zip(self.windows, self.counts, strict=True)
        ]

    @property
    def states(self) -> tuple[WindowState, ...]:
        return tuple(
            WindowState(w, w.limit - count, reset) for w, (count, reset) in zip(self.windows, self.counts, strict=True)
        )

    @property
    def retry_after(self) -> int:
        """Seconds until every exhausted window has reset (0 when allowed)."""
        return max((s.reset_after for s in self.states if s.remaining <= 0), default=0) if not self.allowed else 0

    def header_fields(self) -> dict[str, str]:
        """`RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11); `Retry-After` if refused.

        Read when the answer goes out, so a usage-cap unit given back by then is not counted in it.
        """
        state = ", ".join(
            f'"{w.name}";r={max(w.limit - count, 0)};t={reset}'
            for w, (count, reset) in zip(self.windows, self._counts_now(), strict=True)
        )
        fields = {"RateLimit-Policy": self.policy_header, "RateLimit": state}
        if not self.allowed:
            fields["Retry-After"] = str(self.retry_after)
        return fields

    def headers(self) -> list[tuple[bytes, bytes]]:
        """`header_fields` as raw ASGI headers (built from the layout's template: this runs on every tool call)."""
        if not self.allowed:
            return [(name.lower().encode(), value.encode()) for name, value in self.header_fields().items()]
        layout = self.layout
        held = self.reservation
        counts = self.counts if held is None else self._counts_now()  # most calls hold no reservation
        numbers: list[int] = []
        for limit, (count, reset) in zip(layout.limits, counts, strict=True):
            numbers.append(limit - count)  # an allowed call fits every window: never below 0
            numbers.append(reset)
        return [(b"ratelimit-policy", layout.policy_field), (b"ratelimit", layout.state_template % tuple(numbers))]

    def error(self, per: str = "this tier", advice: str | None = KEY_ADVICE) -> RateLimited:
        """The 429 for this decision; `per` names what is counted, `advice` how to get more (None: no way)."""
        exhausted = [s for s in self.states if s.remaining <= 0]
        names = ", ".join(s.window.describe() for s in exhausted)
        wait = f"Rate limit reached ({names} for {per}). Retry after {self.retry_after} seconds"
        return RateLimited(f"{wait}; {advice}" if advice else f"{wait}.", headers=self.header_fields())


class LimitReached(RateLimited):
    """A call refused by a full limit: its 429, with the decision, so a page can say which limit it was."""

    def __init__(self, decision: Decision) -> None:
        refused = decision.error()
        super().__init__(refused.message, headers=refused.headers)
        self.decision = decision
        self.full = tuple(state.window.name for state in decision.states if state.remaining <= 0)
        self.retry_after = decision.retry_after

    def of_cap(self, cap: str) -> bool:
        """Whether a tool's usage cap (e.g. `photos`) is among the full windows."""
        return any(name.startswith(f"{cap}-") for name in self.full)


#: One window to count in: (counter key, limit, window seconds).
Slot = tuple[str, int, int]
#: What `take` answers: allowed, the (count, seconds left) of each slot, and when each slot's window ends, on the
#: counters' own clock (it tells one run of a window from the next, for `give_back`).
Taken = tuple[bool, list[tuple[int, int]], list[float]]


class Counters(Protocol):
    async def take(self, slots: Sequence[Slot], cost: int) -> Taken:
        """Count `cost` in every slot unless one would overflow."""
        ...

    async def give_back(self, slots: Sequence[Slot], cost: int, ends: Sequence[float]) -> None:
        """Uncount `cost` from each slot whose window still ends at `ends` (as `take` said), never below zero."""
        ...

    async def close(self) -> None: ...


class SharedCountersUnavailable(Exception):
    """The shared counters cannot be reached now (connection refused or lost, or too slow)."""


class SharedCounters(Counters, Protocol):
    """Counters every process shares (Redis, in `redis_counters.py`); both counting methods raise
    `SharedCountersUnavailable` when they cannot reach them."""

    async def ping(self, seconds: float) -> bool: ...


class MemoryCounters:
    """Counters in this process's memory (the embedded default, and the fallback when Redis is down)."""

    SWEEP_EVERY = 4096

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._counts: dict[str, list[float]] = {}  # key -> [count, expires at]
        self._until_sweep = self.SWEEP_EVERY

    async def take(self, slots: Sequence[Slot], cost: int) -> Taken:
        return self.take_now(slots, cost)

    def take_now(self, slots: Sequence[Slot], cost: int) -> Taken:
        """`take` without a coroutine: nothing here waits, and the limiter calls it on every tool call."""
        now = self.clock()
        self._until_sweep -= 1
        if self._until_sweep <= 0:
            self._sweep(now)
        entries = []
        allowed = True
        for key, limit, seconds in slots:
            entry = self._counts.get(key)
            if entry is None or entry[1] <= now:
                entry = [0, now + seconds]
                self._counts[key] = entry
            entries.append(entry)
            if entry[0] + cost > limit:
                allowed = False
        # One loop, not comprehensions: on Python 3.11 each comprehension is a function call of its own.
        counts: list[tuple[int, int]] = []
        ends: list[float] = []
        for entry in entries:
            if allowed:
                entry[0] += cost
            # Whole seconds left, rounded up, less half a millisecond first: `now + 60 - now` can be 60.000000000004,
            # which would read as 61. A live window has more than none left, so this is never below 0.
            counts.append((int(entry[0]), ceil(entry[1] - now - 0.0005)))
            ends.append(entry[1])
        return allowed, counts, ends

    async def give_back(self, slots: Sequence[Slot], cost: int, ends: Sequence[float]) -> None:
        for (key, _, _), end in zip(slots, ends, strict=True):
            entry = self._counts.get(key)
            # A window that has started afresh keeps its count: the units were taken in the run before.
            # (One that has merely ended starts from zero at its next hit anyway.)
            if entry is not None and entry[1] == end:
                entry[0] = max(entry[0] - cost, 0)

    def _sweep(self, now: float) -> None:
        """Forget finished windows, so memory follows the active callers, not every caller ever."""
        self._until_sweep = self.SWEEP_EVERY
        for key in [key for key, entry in self._counts.items() if entry[1] <= now]:
            del self._counts[key]

    async def close(self) -> None:
        self._counts.clear()


def _count_refusal(windows: Sequence[Window], counts: Sequence[tuple[int, int]], cost: int) -> None:
    """Count a refusal for metrics, under each window that had no room for `cost`."""
    count_rate_limited(w.name for w, (count, _) in zip(windows, counts, strict=True) if count + cost > w.limit)


class Reservation:
    """One allowed hit's share of some windows (a tool's usage cap), held until the call is settled.

    `keep` when the call used what those windows count, `give_back` when it did not; whichever comes
    first settles it, so the other is then a no-op and units are never given back twice. The share is
    given back to the counters that took it: after a switch between Redis and memory, to the same store.
    """

    __slots__ = ("cost", "counters", "ends", "given_back", "settled", "slots", "windows")

    def __init__(
        self,
        counters: Counters,
        slots: tuple[Slot, ...],
        cost: int,
        ends: tuple[float, ...],
        windows: tuple[Window, ...] = (),
    ) -> None:
        self.counters = counters
        self.slots = slots
        self.cost = cost
        self.ends = ends
        self.windows = windows  # the windows of `slots`, for the RateLimit header of the call that holds them
        self.settled = False
        self.given_back = False  # the units were uncounted (not merely settled)

    def keep(self) -> None:
        """The call used what the windows count: the units stay counted."""
        self.settled = True

    async def give_back(self) -> None:
        """The call used nothing: uncount the units, unless the reservation is settled already."""
        if self.settled:
            return
        self.settled = True
        try:
            await self.counters.give_back(self.slots, self.cost, self.ends)
            self.given_back = True
        except SharedCountersUnavailable as exc:
            # The units stay counted: a cap errs towards holding, and the caller's own error must not be masked.
            log.warning("rate limits: could not give back a reservation (%s); it stays counted", exc)


class RateLimiter:
    """Checks a caller partition against policies; Redis when configured, memory otherwise."""

    def __init__(self, shared: SharedCounters | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.shared = shared
        self.local = MemoryCounters(clock)
        self.clock = clock
        self._redis_down_since: float | None = None
        self._retry_redis_at = 0.0
        self._slot_memory: dict[tuple[str, str], tuple[Slot, ...]] = {}

    #: Callers whose counter keys are kept ready; the table starts afresh when full (a new key costs 1 µs).
    SLOT_MEMORY = 4096

    def _slots(self, layout: Layout, partition: str) -> tuple[Slot, ...]:
        """The counters a partition's hit counts in under these windows (named by their `RateLimit-Policy`)."""
        key = (layout.policy_header, partition)
        slots = self._slot_memory.get(key)
        if slots is None:
            slots = tuple((f"{w.name}:{partition}", w.limit, w.seconds) for w in layout.windows)
            if len(self._slot_memory) >= self.SLOT_MEMORY:
                self._slot_memory.clear()
            self._slot_memory[key] = slots
        return slots

    @property
    def backend(self) -> str:
        return "redis" if self.shared is not None else "memory"

    async def check(
        self, partition: str, policies: Sequence[Policy], cost: int = 1, *, reserve: Policy | None = None
    ) -> Decision:
        """Count a hit of `cost` in every window of `policies`, or in none when one would overflow.

        With `reserve` (one of `policies`), an allowed decision carries a `Reservation` of that policy's
        share, which can be given back when the call turns out to have used nothing.
        """
        layout = _layout(tuple(policies))
        windows = layout.windows
        slots = self._slots(layout, partition)
        if self.shared is None:  # the embedded default: counted here and now, no coroutine in between
            counters: Counters = self.local
            allowed, counts, ends = self.local.take_now(slots, cost)
        else:
            counters, (allowed, counts, ends) = await self._take(slots, cost)
        if not allowed:
            _count_refusal(windows, counts, cost)
            return Decision(allowed, layout, counts)
        reservation = None
        if reserve is not None:
            held = [(w, slot, end) for w, slot, end in zip(windows, slots, ends, strict=True) if w in reserve.windows]
            reservation = Reservation(
                counters, tuple(s for _, s, _ in held), cost, tuple(e for _, _, e in held), tuple(w for w, _, _ in held)
            )
        return Decision(allowed, layout, counts, reservation)

    async def peek(self, partition: str, policies: Sequence[Policy]) -> Decision:
        """Whether `partition` still has room in every window, without counting a hit.

        No room is recorded as a refusal in the metrics, like a refused `check`: the caller refuses the call.
        """
        layout = _layout(tuple(policies))
        windows = layout.windows
        _, (_, counts, _) = await self._take(self._slots(layout, partition), 0)
        room = all(count < w.limit for w, (count, _) in zip(windows, counts, strict=True))
        if not room:
            _count_refusal(windows, counts, 1)
        return Decision(room, layout, counts)

    async def ping(self, seconds: float = 1.0) -> bool | None:
        """Whether Redis answers within `seconds` (for /readyz and /metrics); None when limits are counted in memory."""
        return await self.shared.ping(seconds) if self.shared is not None else None

    async def _take(self, slots: Sequence[Slot], cost: int) -> tuple[Counters, Taken]:
        """What the counters answered, and which counters they were (Redis, or this process's memory)."""
        if self.shared is not None and self.clock() >= self._retry_redis_at:
            try:
                result = await self.shared.take(slots, cost)
            except SharedCountersUnavailable as exc:
                self._retry_redis_at = self.clock() + REDIS_RETRY_SECONDS
                if self._redis_down_since is None:
                    self._redis_down_since = self.clock()
                    log.warning("rate limits: Redis unreachable (%s); counting in this process until it answers", exc)
            else:
                if self._redis_down_since is not None:
                    log.info(
                        "rate limits: Redis answers again after %.0f s; counting is shared again",
                        self.clock() - self._redis_down_since,
                    )
                    self._redis_down_since = None
                return self.shared, result
        return self.local, await self.local.take(slots, cost)

    async def close(self) -> None:
        await self.local.close()
        if self.shared is not None:
            await self.shared.close()
