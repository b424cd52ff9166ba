"""One way for a test to wait: poll a condition until it holds, and fail saying what never came.

A fixed sleep is either too short on a loaded machine (a flaky test) or too long everywhere else (a slow one);
polling an observable condition is neither. When the wait times out, the failure names what was awaited and the
last value or exception the check gave, which is usually the whole diagnosis. Sleep only where the passing of
time is itself the behaviour under test, and say so beside the sleep.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

SECONDS = 10.0
EVERY = 0.05


def eventually(
    check: Callable[[], T | None],
    *,
    seconds: float = SECONDS,
    every: float = EVERY,
    what: str = "",
    times: int = 1,
) -> T:
    """The first truthy value of `check()`, polled every `every` s for up to `seconds` s.

    An exception from `check` counts as "not yet" (a server still starting, a row not yet written) and is
    reported if the wait times out; to give up at once (the process waited on has died), call `pytest.fail`.
    With `times` > 1 the check must hold on that many calls in a row, for state that each call may read from
    a different worker process or cache.
    """
    deadline = time.monotonic() + seconds
    while True:
        last: T | Exception | None = None
        try:
            for _ in range(times):
                if not (value := check()):
                    break
            if value:
                return value
            last = value
        except Exception as error:  # reported below if it never clears
            last = error
        if time.monotonic() > deadline:
            raise AssertionError(_timed_out(check, what, seconds, last)) from _cause(last)
        time.sleep(every)


async def eventually_async(
    check: Callable[[], Awaitable[T | None]],
    *,
    seconds: float = SECONDS,
    every: float = EVERY,
    what: str = "",
) -> T:
    """`eventually` for async tests: awaits `check()` and sleeps without blocking the event loop."""
    deadline = time.monotonic() + seconds
    while True:
        last: T | Exception | None = None
        try:
            if value := await check():
                return value
            last = value
        except Exception as error:  # reported below if it never clears
            last = error
        if time.monotonic() > deadline:
            raise AssertionError(_timed_out(check, what, seconds, last)) from _cause(last)
        await asyncio.sleep(every)


def _timed_out(check: Callable[..., object], what: str, seconds: float, last: object) -> str:
    awaited = what or _described(check)
    seen = f"raised {last!r}" if isinstance(last, Exception) else f"last gave {last!r}"
    return f"waited {seconds:g} s for {awaited}; it {seen}"


def _described(check: Callable[..., object]) -> str:
    """The check's name, or for a lambda the source line it is written on (usually the whole condition)."""
    name = getattr(check, "__qualname__", repr(check))
    if not name.endswith("<lambda>"):
        return name
    try:
        return " ".join(inspect.getsource(check).split())
    except (OSError, TypeError):
        return name


def _cause(last: object) -> BaseException | None:
    return last if isinstance(last, Exception) else None
