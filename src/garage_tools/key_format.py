"""What an API key starts with, written once for every layer that names or finds one.

The keys (access/keys.py) issue and check keys with it; the log redaction (observability/redaction.py), a
layer below them, masks any key it finds by it; messages and docs telling a caller what to send show it.
Changing it here changes all of them, so the redaction can never go on masking an old prefix.
"""

from __future__ import annotations

PREFIX = "svc_live_"
#: What a caller is told to send: the prefix and an ellipsis for the rest.
EXAMPLE = f"{PREFIX}…"
