"""Head deadlines are kept by one sweep per event loop, not a timer per request (surfaces/connection_limits.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from garage_tools.surfaces.connection_limits import HeadDeadlines
from tests.polling import eventually_async


class Connection:
    """Stands in for a connection: it only records being told its deadline passed."""

    def __init__(self) -> None:
        self.told = 0

    def head_deadline_passed(self) -> None:
        self.told += 1


async def test_many_connections_share_one_timer_and_each_is_told_once() -> None:
    loop = asyncio.get_running_loop()
    timers: list[Any] = []
    call_later = loop.call_later

    def counted_call_later(delay: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
        timers.append(callback)
        return call_later(delay, callback, *args)

    loop.call_later = counted_call_later  # type: ignore[method-assign]
    try:
        deadlines = HeadDeadlines(loop, resolution=0.02)
        late, finished = [Connection() for _ in range(50)], Connection()
        for connection in [*late, finished]:
            deadlines.arm(connection, 0.05)  # type: ignore[arg-type]
            deadlines.arm(connection, 10.0)  # type: ignore[arg-type]  # armed already: the first deadline stands
        deadlines.disarm(finished)  # type: ignore[arg-type]  # its head was complete in time
        assert len(timers) == 1  # one sweep for all of them, not a timer each

        async def all_told() -> bool:
            return all(connection.told == 1 for connection in late)

        await eventually_async(all_told, seconds=2)
        await asyncio.sleep(0.1)  # a sleep on purpose: nothing more is told, and the sweep stops when none is pending
        assert [connection.told for connection in late] == [1] * 50 and finished.told == 0
        assert not deadlines.armed(late[0]) and deadlines._sweep_handle is None  # type: ignore[arg-type]
    finally:
        loop.call_later = call_later  # type: ignore[method-assign]


async def test_every_connection_of_a_loop_uses_its_one_table() -> None:
    loop = asyncio.get_running_loop()
    assert HeadDeadlines.of(loop, 10.0) is HeadDeadlines.of(loop, 10.0)
    assert HeadDeadlines.of(loop, 10.0).resolution == 1.0  # a quarter of the timeout, at most a second
