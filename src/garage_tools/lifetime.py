"""Data a process keeps for its whole life, taken out of the garbage collector's scans.

The knowledge, indexes and schemas loaded at start-up, and the US places (read at start-up too, or on
first use outside a server), are a few hundred thousand objects that live until the process stops. A
full collection walks every tracked object: with the places loaded and not frozen, as they were before
they became a compact index, one pass took about 175 ms here, a stall for every request in flight.
`gc.freeze()` moves what is tracked now into the permanent generation, which collections skip; the
objects are still freed by reference counting if they ever go.

Work a request starts and leaves running (`Background`) lives here too: it belongs to the process, not
to the request.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


def keep_for_life(*, collect_first: bool = False) -> None:
    """Freeze everything the collector tracks now: call it once long-lived data has just been loaded.

    `collect_first` clears cyclic garbage first, so none of it is frozen with the data; it costs one
    full pass, which start-up can afford and a request path cannot (a lazy load leaves it off: the
    few cycles it may freeze are left over from building the data, and are never freed).
    """
    if collect_first:
        gc.collect()
    gc.freeze()


class Background:
    """Work a request starts and does not wait for, such as the sign-in work of an address that must not
    show in the answer's timing. Each task is kept until done (the loop holds tasks only weakly), a
    failure is logged, and `drain` lets shutdown finish what was started before the store closes."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[object]] = set()

    def start(self, work: Coroutine[Any, Any, object], what: str) -> None:
        """Run `work` after the current request; `what` names it in the log if it fails."""
        task = asyncio.get_running_loop().create_task(work, name=what)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[object]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("%s failed in the background", task.get_name(), exc_info=error)

    async def drain(self) -> None:
        """Wait for the work started so far."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
