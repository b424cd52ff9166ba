"""Paths that carry a secret (a sign-in token, a report's only key) are kept out of the access log."""

from __future__ import annotations

import logging
from typing import Literal


class RedactSecretPaths(logging.Filter):
    """Logs `/developers/confirm/<token>` as `/developers/confirm/…`, and the like for every prefix registered."""

    def __init__(self) -> None:
        super().__init__()
        self.prefixes: set[str] = set()

    def filter(self, record: logging.LogRecord) -> Literal[True]:
        args = record.args
        # uvicorn's access line: (client, method, path, http version, status)
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            for prefix in self.prefixes:
                if args[2].startswith(prefix):
                    record.args = (*args[:2], prefix + "…", *args[3:])
                    break
        return True


def redact_paths_in_access_log(*prefixes: str) -> None:
    """Register path prefixes whose remainder is secret (one filter on uvicorn's access logger)."""
    access_log = logging.getLogger("uvicorn.access")
    redactor = next((f for f in access_log.filters if isinstance(f, RedactSecretPaths)), None)
    if redactor is None:
        redactor = RedactSecretPaths()
        access_log.addFilter(redactor)
    redactor.prefixes.update(prefixes)
