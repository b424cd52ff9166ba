"""The deployment's secrets key: what webhook signing secrets are sealed under in the database.

`GARAGE_TOOLS_SECRETS_KEY` when set (several hosts sharing one database must set the same one); otherwise a
key generated on first use and kept in `data_dir/secrets.key` (mode 0600), the embedded default. Losing the
key loses the signing secrets (endpoints must then be added again), never anything else.
"""

from __future__ import annotations

import os
import secrets
import tempfile

from garage_tools.settings import Settings

KEY_FILE = "secrets.key"


def secrets_key(settings: Settings) -> str:
    """The key from the settings, or the one in `data_dir` (made now if there is none yet)."""
    if settings.secrets_key is not None:
        return settings.secrets_key.get_secret_value()
    path = settings.data_dir / KEY_FILE
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    # Written whole under a temporary name, then linked into place: link fails if another process got there
    # first, and nobody ever reads a half-written key.
    handle, temporary = tempfile.mkstemp(dir=settings.data_dir, prefix=".secrets-", suffix=".tmp")
    key = secrets.token_urlsafe(32)
    try:
        with os.fdopen(handle, "w", encoding="ascii") as stream:  # mkstemp makes it 0600
            stream.write(key + "\n")
        os.link(temporary, path)
    except FileExistsError:
        return path.read_text(encoding="ascii").strip()
    finally:
        os.unlink(temporary)
    return key
