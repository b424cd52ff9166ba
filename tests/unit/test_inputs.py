"""The one rule for text from outside (`inputs.py`): what is refused, raw or escaped, and what a person is shown."""

from __future__ import annotations

import re
from datetime import date

import pytest

from garage_tools import inputs
from garage_tools.errors import InvalidText
from garage_tools.inputs import (
    bounded_date,
    check_body,
    check_query,
    check_target,
    check_text,
    holds_unholdable_bytes,
    shown,
)
from garage_tools.models import TEXT_PATTERN

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


@pytest.mark.parametrize(
    ("body", "media"),
    [
        (b'{"a": "x\\u0000y"}', JSON),
        (b'{"a": "x\\u001Bq"}', JSON),
        (b'{"a": "x\\u007f"}', JSON),
        (b'{"a": "\\\\\\u0000"}', JSON),  # an escaped backslash, then an escaped NUL
        (b'{"a": "x\x7fy"}', JSON),
        (b'{"a": "x\\fy"}', JSON),  # JSON's short escapes of two refused characters: form feed,
        (b'{"a": "\\b"}', JSON),  # and backspace
        (b'{"a": "\\\\\\f"}', JSON),  # an escaped backslash, then an escaped form feed
        (b'{"a": "x\\u0000y"}', None),  # no media type: read as JSON would be
        (b"email=a%00b&csrf=x", FORM),
        (b"email=a%1b&csrf=x", FORM),
        (b"email=a\x00b", FORM),
    ],
)
def test_controls_are_refused_raw_or_escaped(body: bytes, media: str | None) -> None:
    with pytest.raises(InvalidText) as refused:
        check_body(body, media)
    assert refused.value.status == 400 and refused.value.code == "invalid_text"


@pytest.mark.parametrize(
    ("body", "media"),
    [
        (b'{"a": "tab\\tline\\nreturn\\r\\u0009\\u000a\\u000D caf\\u00e9 \\ud83d\\ude00"}', JSON),
        (b'{"a": "a literal \\\\u0000 is text"}', JSON),  # `\\u0000`: a backslash, then the letters u0000
        (b'{"a": "C:\\\\files\\\\backup and \\\\f"}', JSON),  # backslashes, then the letters b and f
        (b"note=100%25&csrf=x&t=a%09b%0D%0A", FORM),
        (b"--b\r\n\x00binary photo bytes", "multipart/form-data; boundary=b"),
    ],
)
def test_what_people_type_passes(body: bytes, media: str) -> None:
    check_body(body, media)


def test_paths_and_queries() -> None:
    check_query(b"to=2026-01-01&q=caf%C3%A9%20door")
    with pytest.raises(InvalidText):
        check_query(b"to=9999-12-31%00")
    check_text("/partners/leads.csv", "the path")
    with pytest.raises(InvalidText):
        check_text("/developers/authorize/a\x00b", "the path")


def test_a_request_target_is_checked_as_its_path_and_its_query_are() -> None:
    check_target("/api/v1/diagnose", b"")
    check_target("/labs/a\tb", b"q=caf%C3%A9")  # a tab is kept (not printable, but holdable)
    with pytest.raises(InvalidText, match="in the path"):
        check_target("/labs/a\x00b", b"")
    with pytest.raises(InvalidText, match="in the query string"):
        check_target("/labs", b"to=9999-12-31%1B")


def test_a_name_shown_to_people_loses_controls_and_direction_changes() -> None:
    assert shown("Claude\u202e\u200b tnaH\r\nOfficial\u2066 app\u2069\x1b") == "Claude tnaH Official app"
    assert shown("  Café   Assistant  ") == "Café Assistant"
    assert shown("x" * 300, 200) == "x" * 200


def test_dates_are_bounded() -> None:
    assert bounded_date("2026-11-27") == date(2026, 11, 27)
    assert bounded_date("9999-12-31") is None and bounded_date("0001-01-01") is None
    assert bounded_date("soon") is None


@pytest.mark.parametrize("size", [10, 64 * 1024, 64 * 1024 + 1])  # by the copying scan, and by the expression
def test_every_byte_is_judged_by_the_rule_whatever_the_size_of_the_body(size: int) -> None:
    refused = {*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F}
    for byte in range(256):
        data = b"a" * (size - 1) + bytes([byte])
        assert holds_unholdable_bytes(data) is (byte in refused), byte
        assert holds_unholdable_bytes(data) is (inputs._UNHOLDABLE_BYTES.search(data) is not None)
    assert not holds_unholdable_bytes(b"tab\tline\nreturn\r\xc3\xa9")


def test_a_tool_calls_body_is_checked_without_the_regular_expression(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "_UNHOLDABLE_BYTES", None)  # any use of it would fail
    check_body(b'{"description": "my door makes a loud bang"}', JSON)
    with pytest.raises(InvalidText):
        check_body(b'{"description": "bang\x1b[2J"}', JSON)


def test_every_character_is_judged_by_the_rule_printable_or_not() -> None:
    """`holdable` answers printable text without the expression; it must say what the expression says for every
    character: the controls refused, tab and line breaks kept, and the non-printable rest (other spaces, line and
    paragraph separators, format characters, unassigned code points) kept too."""
    refused = {*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F}
    others = [0x80, 0x85, 0x9F, 0xA0, 0xAD, 0x2028, 0x2029, 0x200B, 0x202E, 0xFEFF, 0xE000, 0x0378, 0x1F6AA]
    for code in [*range(0x80), *others]:
        for text in (chr(code), f"my door {chr(code)} bangs"):
            assert inputs.holdable(text) is (code not in refused), hex(code)
            assert inputs.holdable(text) is (inputs._UNHOLDABLE.search(text) is None)
            assert inputs.holdable(text) is (re.fullmatch(TEXT_PATTERN, text) is not None)  # what the schemas say


def test_printable_text_is_judged_without_the_regular_expression(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool call's path and its text are printable: neither reaches the expression (any use of it would fail)."""
    monkeypatch.setattr(inputs, "_UNHOLDABLE", None)
    check_text("/api/v1/diagnose", "the path")
    assert inputs.holdable("my garage door makes a loud bang, ¿qué hago?")
    with pytest.raises(AttributeError):  # text with a line break is asked of the expression
        inputs.holdable("line one\nline two")
