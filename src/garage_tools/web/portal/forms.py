"""What the portal's forms may hold beyond the shared rules of `web/forms.py`: a key's name."""

from __future__ import annotations

import unicodedata

MAX_KEY_NAME = 100


def clean_key_name(text: str) -> str | None:
    """A key name as shown in the dashboard: whitespace runs collapsed, 1 to 100 printable characters."""
    name = " ".join(text.split())
    if not 1 <= len(name) <= MAX_KEY_NAME or any(unicodedata.category(c).startswith("C") for c in name):
        return None
    return name
