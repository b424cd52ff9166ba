"""The one-time slot that carries a new API key from the form that created it to the page that shows it.

Creating a key is POST → 303 → GET, so reloading the dashboard never sends the form again (and never makes a
second key). The key waits in between in a slot of the developer's session: sealed under the session id,
which only the browser holds (the store keeps its hash), taken out and emptied by the first page view, and
gone after `LIFETIME` unread. The slots live in Redis when one is configured, so any worker can show the
key; otherwise in the process's memory (one process, as without Redis the rate limits assume too).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass

from garage_tools.access.redis_client import RedisClient, RedisReplyError, RedisUnavailable
from garage_tools.access.tokens import secret_hash
from garage_tools.sealing import seal, unseal

log = logging.getLogger(__name__)

#: How long a new key waits for the page that shows it.
LIFETIME = 300


@dataclass(frozen=True)
class NewKey:
    """What the dashboard shows once of a key just created."""

    key_id: str
    name: str
    plaintext: str


class NewKeySlots:
    """One slot per session: `put` after creating a key, `take` on the next dashboard view."""

    #: Slots kept in memory at most (unread ones expire; this bounds what a flood of sign-ins could hold).
    MEMORY = 1024

    def __init__(self, redis: RedisClient | None = None, prefix: str = "garage-tools:") -> None:
        self.redis = redis
        self.prefix = f"{prefix}new-key:"
        self._memory: dict[str, tuple[float, bytes]] = {}

    async def put(self, session_id: str, key: NewKey) -> None:
        sealed = seal(session_id, json.dumps([key.key_id, key.name, key.plaintext]))
        slot = secret_hash(session_id)
        if self.redis is not None:
            try:
                await self.redis.execute("SET", self.prefix + slot, sealed, "EX", LIFETIME)
                return
            except (RedisUnavailable, RedisReplyError) as exc:
                log.warning("portal: could not keep a new key's slot in Redis (%s); kept in this process", exc)
        now = time.monotonic()
        for stale in [s for s, (until, _) in self._memory.items() if until <= now]:
            del self._memory[stale]
        if len(self._memory) < self.MEMORY:
            self._memory[slot] = (now + LIFETIME, sealed)

    async def take(self, session_id: str) -> NewKey | None:
        """The key waiting for this session, once; None when there is none (or it was shown already)."""
        slot = secret_hash(session_id)
        sealed: bytes | None = None
        held = self._memory.pop(slot, None)
        if held is not None and held[0] > time.monotonic():
            sealed = held[1]
        elif self.redis is not None:
            try:
                sealed = await self.redis.execute("GETDEL", self.prefix + slot)
            except (RedisUnavailable, RedisReplyError) as exc:
                log.warning("portal: could not read a new key's slot in Redis (%s)", exc)
        text = unseal(session_id, sealed) if sealed else None
        if text is None:
            return None
        key_id, name, plaintext = json.loads(text)
        return NewKey(key_id, name, plaintext)
