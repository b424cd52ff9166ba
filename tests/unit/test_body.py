"""Body reads: bounded in size before reading, bounded in time by one process-wide sweep."""

from __future__ import annotations

import asyncio

import pytest
from starlette.types import Message

from garage_tools.access.body import BodyDeadlines, read_body
from garage_tools.errors import PayloadTooLarge, RequestTimeout
from tests.polling import eventually_async


async def stalled() -> Message:
    await asyncio.sleep(3600)  # a sleep on purpose: the client that never sends its body
    raise AssertionError("unreachable")


async def one_chunk() -> Message:
    return {"type": "http.request", "body": b"{}", "more_body": False}


async def test_a_body_that_does_not_arrive_in_time_is_a_408() -> None:
    deadlines = BodyDeadlines(resolution=0.05)
    with pytest.raises(RequestTimeout, match=r"0\.1 seconds"):
        await read_body(stalled, content_type=None, declared_length=None, limit=100, seconds=0.1, deadlines=deadlines)
    assert (
        await read_body(one_chunk, content_type=None, declared_length="2", limit=100, seconds=0.1, deadlines=deadlines)
        == b"{}"
    )


async def test_a_cancellation_from_elsewhere_is_not_mistaken_for_a_timeout() -> None:
    deadlines = BodyDeadlines(resolution=0.05)
    task = asyncio.create_task(
        read_body(stalled, content_type=None, declared_length=None, limit=100, seconds=60, deadlines=deadlines)
    )

    async def reading() -> bool:
        return task in deadlines._reads

    await eventually_async(reading, seconds=5, what="the read to register its deadline")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_the_sweep_stops_when_nothing_is_being_read() -> None:
    deadlines = BodyDeadlines(resolution=0.05)
    await read_body(one_chunk, content_type=None, declared_length=None, limit=100, seconds=1, deadlines=deadlines)

    async def stopped() -> bool:  # the sweep scheduled by the read runs once more, finds nothing and stays off
        return deadlines._sweep_handle is None

    await eventually_async(stopped, seconds=1, every=0.01, what="the sweep to stop")


async def test_a_declared_length_over_the_limit_is_refused_before_reading() -> None:
    async def must_not_read() -> Message:
        raise AssertionError("the body was read")

    with pytest.raises(PayloadTooLarge):
        await read_body(
            must_not_read, content_type=None, declared_length="101", limit=100, seconds=1, deadlines=BodyDeadlines()
        )


async def test_a_read_finds_its_task_by_its_loop_not_by_asking_for_the_running_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Asked without a loop, Python 3.11 finds the running one by comparing process ids: a system call a request.
    asked: list[object] = []
    current_task = asyncio.current_task

    def counted(loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Task[object] | None:
        asked.append(loop)
        return current_task(loop)

    monkeypatch.setattr(asyncio, "current_task", counted)
    deadlines = BodyDeadlines()
    for _ in range(3):
        assert (
            await read_body(
                one_chunk, content_type=None, declared_length=None, limit=100, seconds=1, deadlines=deadlines
            )
            == b"{}"
        )
    loop = asyncio.get_running_loop()
    assert asked == [None, loop, loop]  # the first read learns the loop; the next ones ask under it


def test_a_read_on_a_new_loop_finds_its_own_task() -> None:
    deadlines = BodyDeadlines(resolution=0.05)

    async def read_and_time_out() -> None:
        assert (
            await read_body(
                one_chunk, content_type=None, declared_length=None, limit=100, seconds=1, deadlines=deadlines
            )
            == b"{}"
        )
        with pytest.raises(RequestTimeout):  # the deadline cancels this loop's task, not one of a loop gone
            await read_body(
                stalled, content_type=None, declared_length=None, limit=100, seconds=0.1, deadlines=deadlines
            )

    asyncio.run(read_and_time_out())
    asyncio.run(read_and_time_out())  # a second loop on the same thread
