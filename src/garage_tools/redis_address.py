"""Where Redis is and how to log in, read from `GARAGE_TOOLS_REDIS_URL`.

It sits at the bottom of the layers because the settings check the URL with it when they are read (a
malformed URL is a one-line settings error, not a traceback when the limiter starts) and the Redis client
connects with what it reads. Its errors say what is wrong without repeating the URL, which may carry a
password.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

EXAMPLE = "redis://:password@10.0.0.5:6379/0"


@dataclass(frozen=True, slots=True)
class RedisAddress:
    """Where Redis is and how to log in: read from a `redis://`, `rediss://` or `unix://` URL."""

    host: str = "127.0.0.1"
    port: int = 6379
    path: str | None = None  # a Unix socket
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: bool = False

    @classmethod
    def from_url(cls, url: str) -> RedisAddress:
        """The address in `url`; a `ValueError` saying what is wrong (never quoting the URL) if it is malformed."""
        try:
            parts = urlsplit(url)
        except ValueError:  # only an unbalanced IPv6 bracket gets here
            raise ValueError(f"the URL cannot be read (an IPv6 host goes in brackets), e.g. {EXAMPLE}") from None
        if parts.scheme not in ("redis", "rediss", "unix"):
            given = f", not {parts.scheme}://" if parts.scheme else f", e.g. {EXAMPLE}"
            raise ValueError(f"a Redis URL starts with redis://, rediss:// or unix://{given}")
        if parts.scheme == "unix" and not parts.path:
            raise ValueError("a unix:// URL names the socket's path, e.g. unix:///run/redis/redis.sock?db=0")
        try:
            port = parts.port  # None when the URL gives none
        except ValueError:  # not a number, or past 65535
            port = 0
        if port == 0:
            raise ValueError(f"the port must be a number from 1 to 65535, e.g. {EXAMPLE}")
        query = dict(item.split("=", 1) for item in parts.query.split("&") if "=" in item)
        db_text = query.get("db", "") if parts.scheme == "unix" else (query.get("db") or parts.path.strip("/"))
        if db_text and not (db_text.isascii() and db_text.isdigit()):
            raise ValueError(f"the database number (after the port, or ?db=) must be a whole number, e.g. {EXAMPLE}")
        return cls(
            host=parts.hostname or "127.0.0.1",
            port=port or 6379,
            path=parts.path if parts.scheme == "unix" else None,
            db=int(db_text or 0),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            tls=parts.scheme == "rediss",
        )
