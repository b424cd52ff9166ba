"""Secrets and personal data are kept out of every log line.

Two filters: `RedactSecretPaths` on uvicorn's access logger cuts paths that carry a secret (a
sign-in token, a report's only key); `RedactSecrets`, on the handlers `serve` configures, masks
what must never be written anywhere: API keys, bearer tokens, challenge and sign-in tokens,
passwords and e-mail addresses, whether they sit in a message, in its arguments or in a traceback.
It also cuts the access line's path and query to `MAX_LOGGED` characters (after masking, so a cut
never leaves half a secret readable).
"""

from __future__ import annotations

import logging
import re
from typing import Literal

from garage_tools.key_format import PREFIX

REDACTED = "[redacted]"
MAX_LOGGED = 512  # of a path and query in the access line
EMAIL_MASK = "[email]"
_secret_path_prefixes: set[str] = set()
_KEY = re.compile(f"({re.escape(PREFIX)})[A-Za-z0-9]+")
# `name: value`, `name=value`, `"name": "value"`, with a Bearer/Basic scheme kept in the masked part.
_NAMED = re.compile(
    r"((?:challenge_?token|token|secret|password|passwd|api_?key|authorization|csrf)[\"']?\s*[:=]\s*[\"']?)"
    r"(?:(?:bearer|basic)\s+)?[^\s\"'&,;)]+",
    re.IGNORECASE,
)
_BEARER = re.compile(r"(\bbearer\s+)[A-Za-z0-9._~+/=-]+", re.IGNORECASE)
# Starts only where a run of address characters starts, so a long run without `@` is scanned once.
_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])(?P<local>[A-Za-z0-9._%+-]+)(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
# The `user:password@` of a URL (`postgresql+asyncpg://garage:pw@db.internal:5432/garage`) is not an address:
# the password goes, the user name and host stay, so an operator still sees where a URL points. Matched
# with the addresses, in one pass, so a URL's `user@host` is never read as one.
_ADDRESS_OR_URL_LOGIN = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^/\s:@?#]*)(?::(?P<password>[^/\s@?#]*))?@|" + _EMAIL.pattern
)
# The service's Message-IDs (`<uuid@domain>`, see mail/message.py) name a message, not a person: they stay,
# so an operator can look the message up with `garage-tools mail status`.
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NAMES = ("token", "secret", "passw", "api_key", "apikey", "authorization", "csrf", "bearer")
_traceback = logging.Formatter()


def redact(text: str) -> str:
    """`text` with every API key, token, password and e-mail address masked.

    Cheap substring checks come first: most log lines contain none of these and cost no regex at all.
    """
    lowered = text.lower()
    if any(name in lowered for name in _NAMES):
        text = _NAMED.sub(rf"\1{REDACTED}", text)
        text = _BEARER.sub(rf"\1{REDACTED}", text)
    if PREFIX in text:
        text = _KEY.sub(rf"\1{REDACTED}", text)
    if "@" in text or "%40" in text:
        text = _ADDRESS_OR_URL_LOGIN.sub(_mask_address, text)
    for prefix in _secret_path_prefixes:
        if prefix in text:
            text = re.sub(re.escape(prefix) + r"[^\s\"'?#]+", prefix + "…", text)
    return text


def cut(text: str, limit: int = MAX_LOGGED) -> str:
    """`text` at most `limit` characters and a note of how many more there were: a client chooses the length of
    its path and query, and would otherwise choose how much log each request writes."""
    return text if len(text) <= limit else f"{text[:limit]}…[{len(text) - limit} more]"


def _mask_address(match: re.Match[str]) -> str:
    if match["scheme"]:  # a URL's login: an address used as its user name is still masked
        user = _EMAIL.sub(EMAIL_MASK, match["user"])
        return f"{match['scheme']}{user}{':***' if match['password'] is not None else ''}@"
    return match.group(0) if _UUID.fullmatch(match["local"]) else EMAIL_MASK


class RedactSecrets(logging.Filter):
    """Masks secrets and e-mail addresses in a record's message, arguments and traceback.

    The message is rendered and kept as plain text, so a secret passed as an argument is masked
    however the format string frames it. uvicorn's access line keeps its five arguments (its
    formatters read them), each masked: a key or an address in a query string goes no further.
    """

    def filter(self, record: logging.LogRecord) -> Literal[True]:
        if record.name == "uvicorn.access" and isinstance(record.args, tuple):
            record.args = tuple(cut(redact(arg)) if isinstance(arg, str) else arg for arg in record.args)
        elif record.args:
            try:
                message = record.getMessage()
            except Exception:  # a broken format string: logging reports it when the line is written
                return True
            record.msg, record.args = redact(message), None
        elif isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(_traceback.formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


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
    _secret_path_prefixes.update(prefixes)  # and in any other line that quotes such a path
