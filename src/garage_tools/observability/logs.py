"""Log lines as text (for a terminal) or JSON (for a log pipeline), each with its request id.

`GARAGE_TOOLS_LOG_FORMAT=json` writes one JSON object per line: `time` (UTC, ISO 8601), `level`,
`logger`, `message`, `pid`, the `request_id` of the request the line is about, an `exception` when
there is one, and for uvicorn's access line `client`, `method`, `path`, `http_version` and `status`
as fields of their own. Text lines are uvicorn's, with ` request_id=…` at the end. Either way the
handlers run `RedactSecrets` first, so keys, tokens and e-mail addresses never reach the output.
"""

from __future__ import annotations

import copy
import logging
import re
from datetime import UTC, datetime
from typing import Any, Literal

import orjson
from uvicorn.logging import AccessFormatter, DefaultFormatter

from garage_tools.observability.request_id import current_request_id

LogFormat = Literal["text", "json"]
_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")
_DIED = re.compile(r"Child process \[\d+\] died")


class RequestIdFilter(logging.Filter):
    """Stamps each record with the id of the request it was logged under (None outside requests)."""

    def filter(self, record: logging.LogRecord) -> Literal[True]:
        record.request_id = current_request_id()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")[:-6] + "Z",
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == len(_ACCESS_FIELDS):
            # method, path without its query (which the `path` field holds: written once), status
            entry["message"] = f"{args[1]} {str(args[2]).split('?', 1)[0]} {args[4]}"
            entry.update(zip(_ACCESS_FIELDS, args, strict=True))
        else:
            entry["message"] = record.getMessage()
        entry["pid"] = record.process
        request_id = getattr(record, "request_id", None)
        if request_id is not None:
            entry["request_id"] = request_id
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return orjson.dumps(entry, default=str).decode()


class WorkerDeaths(logging.Filter):
    """On uvicorn's own logger: a worker that died is a WARNING (uvicorn says it at INFO, under most operators'
    level), and everything else is kept to `level`, which uvicorn would otherwise set on the logger itself."""

    def __init__(self, level: int = logging.INFO) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING and _DIED.match(record.getMessage()):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return record.levelno >= self.level


class _RequestIdSuffix(logging.Formatter):
    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        request_id = getattr(record, "request_id", None)
        return f"{line} request_id={request_id}" if request_id else line


class TextFormatter(_RequestIdSuffix, DefaultFormatter):
    """uvicorn's line, with the request id at the end."""


class TextAccessFormatter(_RequestIdSuffix, AccessFormatter):
    """uvicorn's access line, with the request id at the end."""


def log_config(level: str, log_format: LogFormat) -> dict[str, Any]:
    """The `logging.config.dictConfig` for `serve` and `mail worker`: uvicorn's loggers and ours, one stream.

    Everything else that logs (libraries) goes to the same handler from WARNING up, so a JSON stream
    holds nothing but JSON.
    """
    from uvicorn.config import LOG_LEVELS, LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    number = LOG_LEVELS[level.lower()]
    config["filters"] = {
        "request_id": {"()": "garage_tools.observability.logs.RequestIdFilter"},
        "redact": {"()": "garage_tools.observability.redaction.RedactSecrets"},
        "worker_deaths": {"()": "garage_tools.observability.logs.WorkerDeaths", "level": number},
    }
    # The levels of uvicorn's loggers are set here, not by uvicorn (`serve` passes it no log level), so that
    # its INFO line about a dead worker reaches `WorkerDeaths` to be raised to WARNING.
    loggers = config["loggers"]
    loggers["uvicorn"]["level"] = number
    loggers["uvicorn.error"] = {"level": min(number, logging.INFO), "filters": ["worker_deaths"]}
    loggers["uvicorn.access"]["level"] = number
    loggers["uvicorn.asgi"] = {"level": number}
    for handler in config["handlers"].values():
        handler["filters"] = ["request_id", "redact"]
    formatters = config["formatters"]
    if log_format == "json":
        formatters["default"] = {"()": "garage_tools.observability.logs.JsonFormatter"}
        formatters["access"] = {"()": "garage_tools.observability.logs.JsonFormatter"}
    else:
        formatters["default"]["()"] = "garage_tools.observability.logs.TextFormatter"
        formatters["access"]["()"] = "garage_tools.observability.logs.TextAccessFormatter"
    config["loggers"]["garage_tools"] = {"handlers": ["default"], "level": level.upper(), "propagate": False}
    config["root"] = {"handlers": ["default"], "level": "WARNING"}
    return config
