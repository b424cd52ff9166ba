r"""Base classes for every tool's input and output model.

JSON field names are camelCase on every surface (the wire format clients already use);
Python attributes stay snake_case. Inputs reject unknown fields so that a typo such as
`descripton` is a clear 400 naming the field instead of a silently ignored argument.

Inputs accept exactly what their published JSON Schema accepts: only the camelCase names,
and strings as sent (no whitespace stripping, so `maxLength` counts the raw string). Patterns
in input schemas spell character classes out (`[0-9]`, `[ \t]`): `\d` and `\s` match different
characters in Python, in Rust and in ECMA-262 (the dialect of JSON Schema validators).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated, Any, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict
from pydantic.alias_generators import to_camel


def _whole_float_as_int(value: Any) -> Any:
    # JSON Schema's `integer` is any number without a fraction, 5.0 included.
    return int(value) if isinstance(value, float) and value.is_integer() else value


#: Input field types that take only what the published schema says: a JSON number (not
#: "5" or true), a JSON integer (5 or 5.0, not 5.5, "5" or true) and a JSON boolean (not
#: "yes" or 1). Strings and enums stay as they are.
Number = Annotated[float, Strict()]
WholeNumber = Annotated[int, Strict(), BeforeValidator(_whole_float_as_int)]
Flag = Annotated[bool, Strict()]

#: Patterns for text a person types. `TEXT_PATTERN` takes any character but the control characters,
#: tab and line breaks aside; `LINE_PATTERN` takes no control character at all. Text a tool stores or
#: mails must follow one: PostgreSQL cannot hold U+0000, and the other controls only garble pages and
#: mail. `PATTERN_MEANINGS` says in words what a value that fails one of them did wrong.
TEXT_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"
LINE_PATTERN = r"^[^\x00-\x1f\x7f]*$"
PATTERN_MEANINGS = {
    TEXT_PATTERN: "must not contain control characters (tab and line breaks are fine)",
    LINE_PATTERN: "must be one line of text with no control characters",
}

# The service's one rule for an e-mail address, wherever one comes in (a tool's argument, the portal's sign-in,
# the CLI, the outbox): an RFC 5321 address without quoting or comments, a dot-atom local part of at most 64
# characters and a domain of two or more labels of letters, digits and single hyphens, at most 63 characters
# each (so no `--`, which IDNA reserves). ASCII only, so no control, bidi or zero-width character gets in.
# Python, ECMA-262 and `format: email` checkers all agree on it. The lookahead is why the server checks it
# with Python's `re` (`is_email_address`): the Rust engine pydantic uses for `pattern` has none.
_ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LABEL = "[A-Za-z0-9](?:-?[A-Za-z0-9]){0,31}"
EMAIL_PATTERN = f"^(?=[^@]{{1,64}}@){_ATEXT}+(?:\\.{_ATEXT}+)*@{_LABEL}(?:\\.{_LABEL})+$"
MAX_EMAIL = 254  # the longest address an SMTP path can carry
_EMAIL = re.compile(EMAIL_PATTERN)


def is_email_address(text: str) -> bool:
    """Whether `text`, exactly as given, is one e-mail address by the service's rule (`EMAIL_PATTERN`)."""
    return len(text) <= MAX_EMAIL and _EMAIL.fullmatch(text) is not None


class InputModel(BaseModel):
    """A tool's arguments."""

    model_config = ConfigDict(alias_generator=to_camel, validate_by_alias=True, validate_by_name=False, extra="forbid")


class OutputModel(BaseModel):
    """A tool's return value. Fields left as None are omitted from the JSON."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class InlineImage(OutputModel):
    """An image carried inside a tool result.

    REST returns it as JSON. The MCP surface lifts every InlineImage it finds in a result into an
    MCP `image` content block, so clients that render images show it, and leaves the bytes out of
    the JSON (text and structured content): an image travels once, not as base64 text a model
    would have to read. An image the tool gave a caption gets a text block with it just before its
    image block, so a client (or a model) reading the content in order sees each picture beside its
    words.
    """

    data: str | None = Field(
        default=None,
        description="Base64-encoded image bytes, without a `data:` prefix. Over MCP it is left out here: "
        "the image is the image content block beside this result.",
    )
    mime_type: str = Field(description="Image media type, e.g. `image/webp`.")
    # Never serialized (nor in any schema): the result's own fields already carry the words in its JSON; the
    # caption only places them beside the image block on MCP.
    caption: str | None = Field(default=None, exclude=True)


def inline_images(value: Any) -> list[InlineImage]:
    """Every InlineImage inside a result, depth first (what MCP turns into image content)."""
    if isinstance(value, InlineImage):
        return [value]
    if isinstance(value, BaseModel):
        if not _may_hold_images(type(value)):
            return []
        return [image for name in type(value).model_fields for image in inline_images(getattr(value, name))]
    if isinstance(value, (list, tuple)):
        return [image for item in value for image in inline_images(item)]
    return []


@cache
def _may_hold_images(model: type[BaseModel]) -> bool:
    """Whether any field of `model`, at any depth, can hold an InlineImage (decided once per class)."""
    return any(_annotation_may_hold_images(field.annotation, {model}) for field in model.model_fields.values())


def _annotation_may_hold_images(annotation: Any, seen: set[type]) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if issubclass(annotation, InlineImage):
            return True
        if annotation in seen:
            return False
        seen.add(annotation)
        return any(_annotation_may_hold_images(f.annotation, seen) for f in annotation.model_fields.values())
    return any(_annotation_may_hold_images(arg, seen) for arg in get_args(annotation))
