"""The directory several worker processes share their metrics through, as `serve` sets it up.

`prometheus_client` keeps each process's counters in memory unless `PROMETHEUS_MULTIPROC_DIR` is
set when it is imported; then every process writes its values to files there, and `/metrics` adds
them up. `serve --workers N` (N > 1) therefore sets it before the workers start. An operator's own
directory is used as given and left in place (empty it before each start, as prometheus_client
requires); otherwise `serve` makes a fresh temporary one and removes it when the server stops.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from garage_tools.observability.metrics import MULTIPROCESS_ENV


@contextmanager
def shared_metrics_directory(workers: int) -> Iterator[Path | None]:
    """For the duration of `serve`: the directory the workers report through, or None with one worker."""
    given = os.environ.get(MULTIPROCESS_ENV)
    if given:
        path = Path(given)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    if workers <= 1:
        yield None
        return
    path = Path(tempfile.mkdtemp(prefix="garage-tools-metrics-"))
    os.environ[MULTIPROCESS_ENV] = str(path)  # inherited by the worker processes uvicorn starts
    try:
        yield path
    finally:
        del os.environ[MULTIPROCESS_ENV]
        shutil.rmtree(path, ignore_errors=True)
