"""Data a process keeps for its whole life, taken out of the garbage collector's scans.

The knowledge, indexes and schemas loaded at start-up, and the US places (read at start-up too, or on
first use outside a server), are a few hundred thousand objects that live until the process stops. A
full collection walks every tracked object: with the places loaded and not frozen, as they were before
they became a compact index, one pass took about 175 ms here, a stall for every request in flight.
`gc.freeze()` moves what is tracked now into the permanent generation, which collections skip; the
objects are still freed by reference counting if they ever go.
"""

from __future__ import annotations

import gc


def keep_for_life(*, collect_first: bool = False) -> None:
    """Freeze everything the collector tracks now: call it once long-lived data has just been loaded.

    `collect_first` clears cyclic garbage first, so none of it is frozen with the data; it costs one
    full pass, which start-up can afford and a request path cannot (a lazy load leaves it off: the
    few cycles it may freeze are left over from building the data, and are never freed).
    """
    if collect_first:
        gc.collect()
    gc.freeze()
