"""Directory files: read partners and promotions from CSV or JSON with every bad row named by line.

An import is all or nothing: the caller gets either every record or the list of problems, each
with the line of the file it is on (a CSV row's line; for JSON, the line where the object starts),
and writes nothing when there is any. CSV uses the JSON field names as column headers; list
columns (zipPrefixes, zips, services, ...) separate their values with `;` or spaces, and flags take
true/false (yes/no, 1/0). Export writes the same formats, so an export can be edited and re-imported.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from garage_tools.knowledge.directory import PartnerRecord, PromotionRecord
from garage_tools.knowledge.places import Gazetteer

RecordT = TypeVar("RecordT", PartnerRecord, PromotionRecord)


class FileFormat(StrEnum):
    CSV = "csv"
    JSON = "json"


@dataclass(frozen=True, slots=True)
class RowProblem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class Parsed(Generic[RecordT]):
    """Every record of a file, or (when `problems` is not empty) what is wrong with it."""

    records: list[RecordT] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


PARTNER_COLUMNS = [
    "id", "displayName", "phone", "schedulerUrl", "url", "contactEmail", "region", "regionKey", "zipPrefixes", "zips",
    "centerZip", "centerLat", "centerLon", "radiusMiles", "services", "emergency", "promotionsOptIn", "active",
    "licenseNumber", "insured", "inBusinessSince", "hours", "guarantee", "timeZone", "language",
]  # fmt: skip
PROMOTION_COLUMNS = [
    "id", "partnerId", "title", "description", "discountType", "discountValue", "serviceTypes", "issueKeys",
    "regionKeys", "validFrom", "validUntil", "terms",
]  # fmt: skip
_LISTS = {"zipPrefixes", "zips", "services", "serviceTypes", "issueKeys", "regionKeys"}
_FLAGS = {"emergency", "promotionsOptIn", "active", "insured"}
_NUMBERS = {"centerLat", "centerLon", "radiusMiles", "discountValue"}
_TRUE = {"true", "yes", "y", "1"}
_FALSE = {"false", "no", "n", "0"}


def format_of(name: str, given: str | None = None) -> FileFormat:
    """The format named, or the one the file name's extension says."""
    if given:
        return FileFormat(given.lower())
    if name.lower().endswith(".csv"):
        return FileFormat.CSV
    if name.lower().endswith(".json"):
        return FileFormat.JSON
    raise ValueError(f"cannot tell the format of {name!r}: name it .csv or .json, or pass --format")


# --- reading --------------------------------------------------------------------------------


def read_partners(text: str, fmt: FileFormat, places: Gazetteer) -> Parsed[PartnerRecord]:
    """Partners from a file, each checked on its own and against the US ZIP data set."""

    contact_of: dict[str, str] = {}  # address -> the partner that gave it first

    def check(record: PartnerRecord) -> list[str]:
        problems = []
        if record.contact_email is not None:
            # An address names one partner: it is how a signed-in contact's console knows whose it is.
            owner = contact_of.setdefault(record.contact_email, record.id)
            if owner != record.id:
                problems.append(f"contactEmail: {record.contact_email} is already partner {owner!r}'s")
        if record.center_zip is not None and places.zip_place(record.center_zip) is None:
            problems.append(f"centerZip: {record.center_zip} is not a US ZIP code")
        unknown_zips = [z for z in record.zips if places.zip_place(z) is None]
        if unknown_zips:
            problems.append(f"zips: not US ZIP codes: {', '.join(unknown_zips)}")
        unknown_prefixes = [p for p in record.zip_prefixes if places.prefix_centre(p) is None]
        if unknown_prefixes:
            problems.append(f"zipPrefixes: no US ZIP code starts with {', '.join(unknown_prefixes)}")
        return problems

    parsed = _read(text, fmt, "partners", PARTNER_COLUMNS, PartnerRecord, check)
    if parsed.ok and not parsed.records:
        parsed.problems.append(RowProblem(1, "no partners in the file; an import replaces the whole directory"))
    return parsed


def read_promotions(
    text: str, fmt: FileFormat, partner_ids: set[str], issue_keys: Iterable[str]
) -> Parsed[PromotionRecord]:
    """Promotions from a file; each must name a partner of the directory and known issue keys."""
    known_issues = set(issue_keys)

    def check(record: PromotionRecord) -> list[str]:
        problems = []
        if record.partner_id not in partner_ids:
            problems.append(f"partnerId: no partner {record.partner_id!r} in the directory (import partners first)")
        unknown = [key for key in record.issue_keys if key not in known_issues]
        if unknown:
            problems.append(f"issueKeys: unknown {', '.join(unknown)} (known: {', '.join(sorted(known_issues))})")
        return problems

    return _read(text, fmt, "promotions", PROMOTION_COLUMNS, PromotionRecord, check)


def _read(
    text: str,
    fmt: FileFormat,
    key: str,
    columns: list[str],
    model: type[RecordT],
    check: Callable[[RecordT], list[str]],
) -> Parsed[RecordT]:
    parsed: Parsed[RecordT] = Parsed()
    try:
        items = _csv_items(text, columns) if fmt is FileFormat.CSV else _json_items(text, key)
    except _FileError as exc:
        parsed.problems.append(RowProblem(exc.line, exc.message))
        return parsed
    first_line: dict[str, int] = {}
    for line, item in items:
        if isinstance(item, _RowError):
            parsed.problems.append(RowProblem(line, item.message))
            continue
        try:
            record = model.model_validate(item)
        except ValidationError as exc:
            parsed.problems.append(RowProblem(line, _explain(exc)))
            continue
        problems = check(record)
        if record.id in first_line:
            problems.append(f"id: {record.id!r} is already on line {first_line[record.id]}")
        else:
            first_line[record.id] = line
        if problems:
            parsed.problems.append(RowProblem(line, "; ".join(problems)))
        else:
            parsed.records.append(record)
    return parsed


def _explain(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in error["loc"])
        message = "is required" if error["type"] == "missing" else str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "is not a known field"
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


class _FileError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class _RowError:
    message: str


def _csv_items(text: str, columns: list[str]) -> list[tuple[int, dict[str, Any] | _RowError]]:
    reader = csv.DictReader(io.StringIO(text.removeprefix("\ufeff"), newline=""))
    header = [name.strip() for name in reader.fieldnames or []]
    if not header:
        raise _FileError(1, "the file is empty: the first line must name the columns")
    unknown = [name for name in header if name not in columns]
    if unknown:
        raise _FileError(1, f"unknown columns {unknown}; the columns are: {', '.join(columns)}")
    items: list[tuple[int, dict[str, Any] | _RowError]] = []
    line = 1
    try:
        for row in reader:
            line = reader.line_num
            if None in row:
                items.append((line, _RowError(f"{len(row[None])} more values than there are columns")))
                continue
            values = {name.strip(): value for name, value in row.items() if name is not None}
            if not any((value or "").strip() for value in values.values()):
                continue  # a blank line
            items.append((line, _csv_values(values)))
    except csv.Error as exc:
        raise _FileError(reader.line_num or line, f"not valid CSV: {exc}") from exc
    return items


def _csv_values(row: Mapping[str, str | None]) -> dict[str, Any] | _RowError:
    values: dict[str, Any] = {}
    for name, raw in row.items():
        text = (raw or "").strip()
        if not text:
            if name in _LISTS:
                values[name] = []
            continue
        if name in _LISTS:
            values[name] = [part for part in text.replace(";", " ").replace(",", " ").split() if part]
        elif name in _FLAGS:
            if text.lower() not in _TRUE | _FALSE:
                return _RowError(f"{name}: {text!r} is not true or false")
            values[name] = text.lower() in _TRUE
        elif name in _NUMBERS:
            try:
                values[name] = float(text)
            except ValueError:
                return _RowError(f"{name}: {text!r} is not a number")
        else:
            values[name] = text
    return values


def _json_items(text: str, key: str) -> list[tuple[int, Any]]:
    """The items of the file's list (a bare list, or the list under `key`), each with the line it starts on."""
    source = text.removeprefix("\ufeff")
    try:
        document = json.loads(source)
    except json.JSONDecodeError as exc:
        raise _FileError(exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from exc
    decoder = json.JSONDecoder()
    position = _skip(source, 0)
    if isinstance(document, dict) and isinstance(document.get(key), list):
        position = _member(source, position, key, decoder)
    elif not isinstance(document, list):
        raise _FileError(1, f'expected a list of {key}, or an object with a "{key}" list')
    items: list[tuple[int, Any]] = []
    position = _skip(source, position + 1)  # past "["
    while source[position] != "]":
        item, end = decoder.raw_decode(source, position)
        items.append((source.count("\n", 0, position) + 1, item))
        position = _skip(source, end)
        if source[position] == ",":
            position = _skip(source, position + 1)
    return items


def _member(source: str, position: int, key: str, decoder: json.JSONDecoder) -> int:
    """Where the value of the top-level member `key` starts (the document is known to be valid)."""
    position = _skip(source, position + 1)  # past "{"
    found = -1
    while source[position] != "}":
        name, end = decoder.raw_decode(source, position)
        position = _skip(source, _skip(source, end) + 1)  # past ":"
        if name == key:
            found = position  # the last one wins, as in json.loads
        _, end = decoder.raw_decode(source, position)
        position = _skip(source, end)
        if source[position] == ",":
            position = _skip(source, position + 1)
    return found


def _skip(source: str, position: int) -> int:
    while position < len(source) and source[position] in " \t\r\n":
        position += 1
    return position


# --- writing --------------------------------------------------------------------------------


def _plain(record: BaseModel) -> dict[str, Any]:
    return record.model_dump(mode="json", by_alias=True, exclude_none=True)


def write_partners(records: Iterable[PartnerRecord], fmt: FileFormat) -> str:
    return _write(records, fmt, "partners", PARTNER_COLUMNS)


def write_promotions(records: Iterable[PromotionRecord], fmt: FileFormat) -> str:
    return _write(records, fmt, "promotions", PROMOTION_COLUMNS)


def _write(records: Iterable[BaseModel], fmt: FileFormat, key: str, columns: list[str]) -> str:
    rows = [_plain(record) for record in records]
    if fmt is FileFormat.JSON:
        return json.dumps({key: rows}, indent=2, ensure_ascii=False) + "\n"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({name: _cell(row.get(name)) for name in columns})
    return out.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ";".join(str(item) for item in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
