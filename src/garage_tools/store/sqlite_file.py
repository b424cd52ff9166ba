"""Which file the embedded SQLite database is, so a file moved away, deleted or replaced is noticed.

An open SQLite connection holds the file it opened, not the path: if the file is moved away the
connection goes on reading and writing it wherever it went, and if another file takes its place the
pool keeps serving the old one until a restart. And a connection opened while the path is empty
creates a fresh, empty database there. So the store compares the path's device and inode with the ones
it first saw before each operation: a missing file is an outage (and no connection is opened that would
create an empty one), a different file means closing every pooled connection and opening the new one.
"""

from __future__ import annotations

import errno
import os
from enum import Enum
from pathlib import Path
from typing import Any

FileIdentity = tuple[int, int]  # (st_dev, st_ino)


class FileState(Enum):
    SAME = "same"
    MISSING = "missing"
    REPLACED = "replaced"


class SqliteFile:
    """The database file at `path` and the identity the store is attached to (None until it first exists)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity: FileIdentity | None = None

    def _current(self) -> FileIdentity | None:
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return None
        return status.st_dev, status.st_ino

    def state(self) -> FileState:
        """SAME (or not created yet), MISSING (it existed and is gone) or REPLACED (another file is there now)."""
        current = self._current()
        if self.identity is None:
            self.identity = current  # the first sighting (None while a fresh install has not created it yet)
            return FileState.SAME
        if current is None:
            return FileState.MISSING
        return FileState.SAME if current == self.identity else FileState.REPLACED

    def accept(self) -> None:
        """Attach to whatever file is at the path now (after the pool was emptied of the old one)."""
        self.identity = self._current()

    def missing_error(self) -> FileNotFoundError:
        return FileNotFoundError(errno.ENOENT, "the SQLite database file is gone", str(self.path))

    def refuse_to_recreate(self, _dialect: Any, _record: Any, _args: Any, _kwargs: Any) -> None:
        """A `do_connect` hook: never let SQLite create an empty database where the real one was."""
        if self.identity is not None and self._current() is None:
            raise self.missing_error()

    def remember(self, _dbapi_connection: Any, _record: Any) -> None:
        """A `connect` hook: the first connection that creates the file fixes its identity at once."""
        if self.identity is None:
            self.identity = self._current()
