"""Rate-limit counters in Redis, shared by every process and host of a deployment.

Imported only when `GARAGE_TOOLS_REDIS_URL` is set, so the embedded default never loads the Redis client.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

from garage_tools.access.ratelimit import SharedCountersUnavailable, Slot, Taken
from garage_tools.access.redis_client import Argument, RedisClient, RedisReplyError, RedisUnavailable, Script

# KEYS: counter keys; ARGV: cost, then (limit, seconds) per key. All or nothing, atomically.
# Answers {allowed, now in ms, then (count, ms left) per key}: now + ms left is when the window ends.
_TAKE = """
local clock = redis.call('TIME')
local cost = tonumber(ARGV[1])
local counts, ttls, allowed = {}, {}, 1
for i, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key) or '0')
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then count = 0; ttl = tonumber(ARGV[2 * i + 1]) * 1000 end
  counts[i], ttls[i] = count, ttl
  if count + cost > tonumber(ARGV[2 * i]) then allowed = 0 end
end
local out = {allowed, tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)}
for i, key in ipairs(KEYS) do
  if allowed == 1 then
    counts[i] = redis.call('INCRBY', key, cost)
    if counts[i] == cost then redis.call('PEXPIRE', key, ttls[i]) end
  end
  out[#out + 1] = counts[i]
  out[#out + 1] = ttls[i]
end
return out
"""

# KEYS: counter keys; ARGV: cost, then (window ms, end ms) per key, the end as _TAKE reported it. A window that
# has expired since is gone (nothing to give back); one that started afresh ends at least a whole window later
# than the end we hold, so "within half a window" tells the same run apart from the next, whatever the rounding.
_GIVE_BACK = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local cost = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local ttl = redis.call('PTTL', key)
  if ttl > 0 and math.abs(now + ttl - tonumber(ARGV[2 * i + 1])) * 2 < tonumber(ARGV[2 * i]) then
    local count = tonumber(redis.call('GET', key) or '0')
    if count > 0 then redis.call('DECRBY', key, math.min(cost, count)) end
  end
end
return 1
"""


class RedisCounters:
    """Counters shared by every process and host through one Redis server."""

    def __init__(self, url: str, *, prefix: str = "garage-tools:", timeout: float = 0.5) -> None:
        self.client = RedisClient(url, timeout=timeout)
        self.script = Script(self.client, _TAKE)
        self.give_back_script = Script(self.client, _GIVE_BACK)
        self.prefix = f"{prefix}rl:"

    async def take(self, slots: Sequence[Slot], cost: int) -> Taken:
        args: list[Argument] = [cost]
        for _, limit, seconds in slots:
            args += [limit, seconds]
        values = [int(v) for v in await self._run(self.script, slots, args)]
        now = values[1]
        pairs = [(values[i], math.ceil(values[i + 1] / 1000)) for i in range(2, len(values), 2)]
        ends = [float(now + values[i + 1]) for i in range(2, len(values), 2)]
        return values[0] == 1, pairs, ends

    async def give_back(self, slots: Sequence[Slot], cost: int, ends: Sequence[float]) -> None:
        args: list[Argument] = [cost]
        for (_, _, seconds), end in zip(slots, ends, strict=True):
            args += [seconds * 1000, int(end)]
        await self._run(self.give_back_script, slots, args)

    async def _run(self, script: Script, slots: Sequence[Slot], args: list[Argument]) -> Any:
        try:
            return await script(keys=[f"{self.prefix}{key}" for key, _, _ in slots], args=args)
        except (RedisUnavailable, RedisReplyError) as exc:
            # A reply error here is a Redis that refuses us (a wrong password, out of memory, read-only
            # replica): for the limiter the same as one that is away, so it counts in memory meanwhile.
            raise SharedCountersUnavailable(str(exc)) from exc

    async def ping(self, seconds: float) -> bool:
        """Whether Redis answers a PING within `seconds`."""
        try:
            async with asyncio.timeout(seconds):
                return bool(await self.client.execute("PING") == b"PONG")
        except (RedisUnavailable, RedisReplyError, TimeoutError):
            return False

    async def close(self) -> None:
        await self.client.close()
