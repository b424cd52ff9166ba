"""Looking at and clearing the local Redis from tests, through the service's own client."""

from __future__ import annotations

from garage_tools.access.redis_client import RedisClient


async def keys_matching(client: RedisClient, pattern: str) -> list[bytes]:
    """Every key matching `pattern` (SCAN, so a busy shared Redis is never blocked)."""
    found: list[bytes] = []
    cursor = b"0"
    while True:
        cursor, batch = await client.execute("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
        found += batch
        if cursor == b"0":
            return found


async def delete_matching(client: RedisClient, pattern: str) -> None:
    keys = await keys_matching(client, pattern)
    if keys:
        await client.execute("DEL", *keys)
