"""POSTing JSON to a model provider: one pooled client, a time budget, retries with backoff.

Shared by both provider clients, so they wait, retry and give up the same way:

- The whole exchange, retries and waits included, fits in `timeout_seconds`
  (GARAGE_TOOLS_LLM_TIMEOUT_SECONDS): the caller of a tool is waiting, and a model that has not
  answered by then is treated as down. Connecting gets at most `CONNECT_TIMEOUT_SECONDS` of it.
- 408, 409, 429, 5xx (and Anthropic's 529), timeouts and connection failures are retried up to
  `max_retries` times, after an exponential backoff with jitter, or after the provider's own
  `Retry-After` (or `retry-after-ms`) when it sends one. A wait longer than `MAX_WAIT_SECONDS`, or
  past the budget, is not waited out: the caller gets `ProviderUnavailable` at once, with that
  wait as its `Retry-After`, and can decide for itself.
- Any other 4xx is not retried: the request itself is refused (a wrong key, an unknown model, a
  parameter the server does not support). `RequestRefused` carries the status and a short,
  redacted detail so the client can adapt (drop `response_format`) or report it.

Nothing here logs a header, a prompt or an image: only the provider's name, statuses, and the
class of a transport error.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import re
import time
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from garage_tools.errors import ProviderUnavailable

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 5.0
BACKOFF_BASE_SECONDS = 0.5
MAX_WAIT_SECONDS = 8.0
DEFAULT_RETRY_AFTER = 10  # what callers are told when the provider gave no figure of its own
RETRYABLE = frozenset({408, 409, 429})
UNAVAILABLE_MESSAGE = "The model provider is not answering right now; retry in {seconds} seconds."
_LONG_TOKEN = re.compile(r"[A-Za-z0-9+/=_-]{40,}")


class RequestRefused(Exception):
    """The provider refused the request itself (a 4xx other than the retryable ones)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class Transport:
    """JSON over HTTP to one provider. The client is created on first use and closed by `aclose`."""

    def __init__(
        self,
        *,
        name: str,
        base_url: str,
        headers: dict[str, str],
        timeout_seconds: float,
        max_retries: int,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.timeout_seconds = timeout_seconds
        self.max_retries = max_retries
        self._headers = {"User-Agent": "garage-tools", **headers}
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        # Created lazily, inside the event loop that uses it (a service builds its parts before the loop runs).
        if self._client is None:
            timeout = httpx.Timeout(self.timeout_seconds, connect=min(CONNECT_TIMEOUT_SECONDS, self.timeout_seconds))
            self._client = httpx.AsyncClient(headers=self._headers, timeout=timeout)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def post_json(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST `body` to `path` and return the JSON object answered, retrying what is worth retrying.

        Raises `ProviderUnavailable` when no usable answer came within the budget and the retries,
        and `RequestRefused` for a 4xx that retrying cannot fix.
        """
        url = f"{self.base_url}{path}"
        deadline = time.monotonic() + self.timeout_seconds
        problem = "no attempt made"
        retry_after: float | None = None
        attempts = 0
        try:
            async with asyncio.timeout(self.timeout_seconds):
                while True:
                    attempts += 1
                    retry_after = None
                    try:
                        response = await self._http().post(url, json=body)
                    except httpx.TimeoutException:
                        problem = "timed out"
                    except httpx.TransportError as exc:
                        problem = type(exc).__name__  # the text may hold the URL; the class says enough
                    else:
                        status = response.status_code
                        if 200 <= status < 300:
                            answer = _json_object(response)
                            if answer is not None:
                                return answer
                            problem = f"HTTP {status} without a JSON object"
                        elif status in RETRYABLE or status >= 500:
                            problem = f"HTTP {status}"
                            retry_after = _retry_after(response.headers)
                        else:
                            raise RequestRefused(status, _detail(response))
                    if attempts > self.max_retries:
                        break
                    wait = retry_after if retry_after is not None else _backoff(attempts)
                    if wait > MAX_WAIT_SECONDS or time.monotonic() + wait >= deadline:
                        break  # not worth holding the caller: tell them when to come back instead
                    await asyncio.sleep(wait)
        except TimeoutError:
            problem = f"no answer within {self.timeout_seconds:g} s"
        seconds = max(1, min(3600, math.ceil(retry_after))) if retry_after is not None else DEFAULT_RETRY_AFTER
        log.warning("%s: no usable answer after %d attempt(s) (%s)", self.name, attempts, problem)
        raise ProviderUnavailable(UNAVAILABLE_MESSAGE.format(seconds=seconds), retry_after=seconds)


def _json_object(response: httpx.Response) -> dict[str, Any] | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _backoff(attempt: int) -> float:
    """Exponential backoff with jitter: about 0.5 s, 1 s, 2 s ... each between half and all of it."""
    ceiling = min(MAX_WAIT_SECONDS, BACKOFF_BASE_SECONDS * 2.0 ** (attempt - 1))
    return ceiling * random.uniform(0.5, 1.0)  # noqa: S311 - jitter, not a secret


def _retry_after(headers: httpx.Headers) -> float | None:
    """The provider's requested wait in seconds: `retry-after-ms` (OpenAI), else `Retry-After` (seconds or a date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _detail(response: httpx.Response) -> str:
    """A short account of a refusal for the operator's log: the provider's own error message, redacted.

    Error bodies sometimes echo what was sent; long token-like runs (keys, base64 image data) are cut out.
    """
    answer = _json_object(response) or {}
    error = answer.get("error")
    message = error.get("message") if isinstance(error, dict) else error if isinstance(error, str) else None
    text = message if isinstance(message, str) else response.text
    return _LONG_TOKEN.sub("[…]", " ".join(text.split()))[:300]
