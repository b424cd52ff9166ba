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

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, GetJsonSchemaHandler, Strict, model_validator
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from garage_tools.inputs import REFUSED_CONTROLS, holdable


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
TEXT_PATTERN = f"^[^{REFUSED_CONTROLS}]*$"
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
    """A tool's arguments.

    `null` for an optional argument means the argument is absent (its default applies): typed clients send
    `"topK": null` for an Optional they left unset. Every optional property of the published schema says
    so (`anyOf` with `{"type": "null"}`), so the schema and the validation keep accepting the same values.
    """

    model_config = ConfigDict(alias_generator=to_camel, validate_by_alias=True, validate_by_name=False, extra="forbid")

    @model_validator(mode="after")
    def _holdable_text(self) -> Any:
        """The edge's rule for text (inputs.py), which the schemas publish on free text: here too, so the schema
        and the validation agree whichever way a call comes in."""
        for name, value in self.__dict__.items():
            if isinstance(value, str) and not holdable(value):
                field = type(self).model_fields[name].alias or name
                raise ValueError(f"{field}: must not contain control characters (tab and line breaks are fine)")
        return self

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent(cls, data: Any) -> Any:
        if isinstance(data, dict) and None in data.values():
            optional = _optional_names(cls)
            return {name: value for name, value in data.items() if value is not None or name not in optional}
        return data

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler.resolve_ref_schema(handler(core_schema))
        required = set(json_schema.get("required", ()))
        properties = json_schema.get("properties", {})
        for name, prop in properties.items():
            _publish_text_rule(prop)
            if name not in required and not _accepts_null(prop):
                prop = properties[name] = _or_null(prop)
            if "type" not in prop and (kinds := _json_types(prop, handler)):
                prop["type"] = kinds
        _drop_generated_titles(properties)
        return json_schema


@cache
def _optional_names(model: type[BaseModel]) -> frozenset[str]:
    """The wire names of `model`'s arguments that may be left out."""
    return frozenset(field.alias or name for name, field in model.model_fields.items() if not field.is_required())


#: Keywords that describe a property rather than constrain it: they stay beside an added `anyOf`.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"})


def _accepts_null(prop: dict[str, Any]) -> bool:
    kind = prop.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "enum" in prop:
        return None in prop["enum"]
    if "const" in prop:
        return prop["const"] is None
    return any(_accepts_null(branch) for branch in prop.get("anyOf", prop.get("oneOf", ())))


def _json_types(prop: dict[str, Any], handler: GetJsonSchemaHandler) -> list[str] | str | None:
    """The JSON types an `anyOf` or `$ref` property takes, for a top-level `type` beside it.

    Some clients (the MCP Inspector CLI among them) read only a property's top-level `type` to decide
    what JSON to send, and send a string when it is missing; `anyOf` stays for the constraints of each
    branch. None when a branch's type cannot be told (the property is then left as it is).
    """
    kinds: list[str] = []
    for branch in prop.get("anyOf", [prop] if "$ref" in prop else ()):
        if "$ref" in branch:
            branch = handler.resolve_ref_schema(branch)
        kind = branch.get("type")
        if isinstance(kind, str):
            kind = [kind]
        if not isinstance(kind, list):
            return None
        kinds.extend(k for k in kind if k not in kinds)
    return kinds[0] if len(kinds) == 1 else kinds or None


def _publish_text_rule(prop: dict[str, Any]) -> None:
    """Free text without a pattern of its own gets the edge's rule (inputs.py: no control characters but tab and
    line breaks), so a schema-valid value is never refused at the edge."""
    for branch in prop.get("anyOf", [prop]):
        if branch.get("type") == "string" and not ({"pattern", "enum", "const", "format"} & branch.keys()):
            branch["pattern"] = TEXT_PATTERN


def _or_null(prop: dict[str, Any]) -> dict[str, Any]:
    """`prop` widened to accept null as well."""
    if set(prop) - _ANNOTATIONS == {"anyOf"}:
        return {**prop, "anyOf": [*prop["anyOf"], {"type": "null"}]}
    kept = {key: value for key, value in prop.items() if key in _ANNOTATIONS}
    constraint = {key: value for key, value in prop.items() if key not in _ANNOTATIONS}
    return {"anyOf": [constraint, {"type": "null"}], **kept}


class OutputModel(BaseModel):
    """A tool's return value. Fields left as None are omitted from the JSON."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler.resolve_ref_schema(handler(core_schema))
        _drop_generated_titles(json_schema.get("properties", {}))
        return json_schema


def _drop_generated_titles(properties: dict[str, Any]) -> None:
    """Leave out the titles pydantic makes up from a property's name ("Usellmfallback"): they say nothing the
    name does not, and they cost about 5 KB of the OpenAPI document, which assistants' actions cap at 100 KB."""
    for name, prop in properties.items():
        if isinstance(prop, dict) and prop.get("title") == name.replace("_", " ").title():
            del prop["title"]


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
