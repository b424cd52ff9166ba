"""Every tool's published input schema and its validation accept exactly the same arguments.

Clients validate against the JSON Schema we publish (OpenAPI, MCP `inputSchema`); the server
validates with pydantic. Where the two disagree, a client can send what the document forbids and
get a 200, or be refused what the document allows. The referee here is `jsonschema` (Draft 2020-12,
with format checks) with one change: its `pattern` keyword uses Python's `re`, where `\\d` also
matches Arabic-Indic digits and `$` matches before a final newline, so it would agree with exactly
the bugs this module guards against. Patterns are therefore judged by an ECMA-262 engine (the one in
`jsonschema_rs`, installed with schemathesis), as the JSON Schema specification requires.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, ValidationError, validators

from garage_tools.errors import InvalidArguments
from garage_tools.knowledge.loader import Knowledge
from garage_tools.registry import parse_arguments
from garage_tools.tools import build_registry
from garage_tools.tools.diagnose import diagnose_text

REGISTRY = build_registry()
TOOLS = {tool.name: tool for tool in REGISTRY}


@cache
def _ecma_regex(pattern: str) -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for({"type": "string", "pattern": pattern})


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _ecma_regex(pattern).is_valid(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r} (ECMA-262)")


EcmaValidator = validators.extend(Draft202012Validator, {"pattern": _ecma_pattern})


@cache
def published_schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = TOOLS[name].input_model.model_json_schema(by_alias=True)
    return schema


@cache
def referee(name: str) -> Any:
    schema = published_schema(name)
    EcmaValidator.check_schema(schema)
    return EcmaValidator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def verdicts(name: str, arguments: Any) -> tuple[bool, bool, str]:
    """(schema says valid, server says valid, both explanations) for one set of arguments."""
    schema_errors = [e.message for e in referee(name).iter_errors(arguments)]
    try:
        parse_arguments(TOOLS[name], arguments)
        server_says = "accepted"
    except InvalidArguments as error:
        server_says = error.message
    return not schema_errors, server_says == "accepted", f"schema: {schema_errors or 'valid'}; server: {server_says}"


def assert_agree(name: str, arguments: Any) -> bool:
    schema_valid, server_valid, why = verdicts(name, arguments)
    assert schema_valid == server_valid, f"{name} {json.dumps(arguments, ensure_ascii=True)}: {why}"
    return schema_valid


# --- the audit's findings, by hand ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("costEstimate", {"issueKey": "broken_spring", "doorSize": " " * 25 + "16x7"}),  # over maxLength 20
        ("costEstimate", {"issueKey": "broken_spring", "zip": "\u0669\u0664\u0661\u0661\u0660"}),  # Arabic-Indic
        ("costEstimate", {"issueKey": "broken_spring", "zip": "\uff19\uff14\uff11\uff11\uff10"}),  # fullwidth
        ("costEstimate", {"issueKey": "broken_spring", "zip": "94110\n"}),
        ("costEstimate", {"issueKey": "broken_spring", "zip": " 94110"}),
        ("costEstimate", {"issueKey": "broken_spring", "doorSize": "\u0661\u0666x7"}),
        ("costEstimate", {"issueKey": "broken_spring", "doorSize": "16x7\n"}),
        ("costEstimate", {"issueKey": "broken_spring", "doorSize": "16\u00a0x 7"}),  # no-break space
        ("costEstimate", {"issueKey": " broken_spring"}),
        ("costEstimate", {"issueKey": "flux_capacitor"}),
        ("costEstimate", {"issue_key": "broken_spring"}),  # Python names are not the wire names
        ("getDoorStyles", {"budget": "premium "}),
        ("getDoorStyles", {"type": "Steel"}),
        ("getDoorStyles", {"max_price_usd": 1000}),
        ("getDoorStyles", {"maxPriceUsd": "1000"}),
        ("diagnose", {"description": "loud bang" + " " * 1995}),  # 2004 characters as sent
        ("diagnose", {"description": "loud bang", "use_llm_fallback": True}),
    ],
)
def test_what_the_schema_forbids_is_refused(name: str, arguments: dict[str, Any]) -> None:
    assert assert_agree(name, arguments) is False
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(TOOLS[name], arguments)
    field = caught.value.details[0].field if caught.value.details else None
    assert field in {*arguments, "issueKey"}, caught.value.message


def test_errors_still_name_the_field_in_words() -> None:
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(TOOLS["costEstimate"], {"issueKey": "broken_spring", "doorSize": " " * 25 + "16x7"})
    assert caught.value.details is not None
    assert [(p.field, p.message) for p in caught.value.details] == [
        ("doorSize", "String should have at most 20 characters")
    ]
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(TOOLS["costEstimate"], {"issueKey": "broken_spring", "doorSize": "16 by 7"})
    assert caught.value.details is not None and "<width>x<height>" in caught.value.details[0].message
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(TOOLS["costEstimate"], {"issueKey": "wont_close"})
    assert caught.value.details is not None and caught.value.details[0].field == "issueKey"
    assert "symptom key" in caught.value.message and "broken_spring" in caught.value.message


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("costEstimate", {"issueKey": "broken_spring", "doorSize": " 16 x 7 "}),
        ("costEstimate", {"issueKey": "broken_spring", "doorSize": "9'\tx 7'", "zip": "94110"}),
        ("costEstimate", {"issueKey": "broken_spring", "doorSize": None, "zip": None}),
        ("diagnose", {"description": "  loud bang \n"}),
        ("diagnose", {"description": "   "}),  # within the schema: answered with the no-match hint
        ("getDoorStyles", {"maxPriceUsd": 1000, "minRValue": 0.5, "type": "steel", "budget": None}),
    ],
)
def test_what_the_schema_allows_is_accepted(name: str, arguments: dict[str, Any]) -> None:
    assert assert_agree(name, arguments) is True


def test_surrounding_whitespace_in_a_description_still_diagnoses(knowledge: Knowledge) -> None:
    parsed = parse_arguments(TOOLS["diagnose"], {"description": "\t my door makes a loud bang   \n"})
    result = diagnose_text(knowledge, parsed.description)
    assert result.symptom is not None and result.symptom.key == "banging_noise"


def _patterns(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        if isinstance(schema.get("pattern"), str):
            yield schema["pattern"]
        for value in schema.values():
            yield from _patterns(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _patterns(item)


SHORTHAND_CLASS = re.compile(r"(?<!\\)(?:\\\\)*\\[dDsSwWbB]")


@pytest.mark.parametrize("name", list(TOOLS))
def test_published_patterns_spell_their_classes_out(name: str) -> None:
    """`\\d`, `\\s`, `\\w` and `\\b` mean different things in Python, Rust and ECMA-262."""
    for pattern in _patterns(published_schema(name)):
        assert not SHORTHAND_CLASS.search(pattern), f"{name}: {pattern}"


# --- generated arguments -------------------------------------------------------------------

UNICODE_DIGITS = (0x0660, 0x06F0, 0x0966, 0x09E6, 0xFF10, 0x1D7CE)  # Arabic-Indic ... mathematical bold
ODD_SPACES = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u00a0", "\u2003", "\u2028", "\u3000", "\ufeff"]
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _branches(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The property schema and each alternative under `anyOf`, with `$ref`s resolved."""
    found = [schema]
    for branch in schema.get("anyOf", []):
        if "$ref" in branch:
            branch = defs[branch["$ref"].rsplit("/", 1)[-1]]
        found.append(branch)
    return found


def _unicode_digits(text: str, base: int) -> str:
    return "".join(chr(base + int(c)) if c.isascii() and c.isdigit() else c for c in text)


def _near_valid_strings(branches: list[Mapping[str, Any]]) -> st.SearchStrategy[str]:
    """Strings that are valid for the property, and the same strings bent in ways validators disagree on."""
    seeds: list[st.SearchStrategy[str]] = [st.text(max_size=40)]
    for branch in branches:
        listed = [str(v) for v in branch.get("enum", []) + branch.get("examples", [])]
        if listed:
            seeds.append(st.sampled_from(listed))
        if "pattern" in branch:
            seeds.append(st.from_regex(branch["pattern"], fullmatch=True))
        if "maxLength" in branch:
            limit = branch["maxLength"]
            seeds.append(st.text(alphabet="ab ", min_size=max(limit - 2, 0), max_size=limit + 2))
    seed = st.one_of(*seeds)
    space = st.sampled_from(ODD_SPACES)
    return st.one_of(
        seed,
        st.tuples(space, seed, space).map("".join),
        st.tuples(seed, space).map("".join),
        st.tuples(st.integers(1, 30), seed).map(lambda pair: " " * pair[0] + pair[1]),
        st.tuples(seed, st.sampled_from(UNICODE_DIGITS)).map(lambda pair: _unicode_digits(*pair)),
        seed.map(str.upper),
        seed.map(lambda text: text.replace(" ", "\u00a0").replace("x", "\u00d7")),
    )


def _kinds(kind: Any) -> list[Any]:
    """A `type` keyword as a list: one name, a list of names (a property's top-level summary), or none."""
    return kind if isinstance(kind, list) else [kind]


def _values(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    branches = _branches(schema, defs)
    choices: list[st.SearchStrategy[Any]] = [JSON_VALUES]
    types = {kind for branch in branches for kind in _kinds(branch.get("type"))}
    if "string" in types or any("enum" in b for b in branches):
        choices.append(_near_valid_strings(branches))
    if "number" in types or "integer" in types:
        for branch in branches:
            if "minimum" in branch or "maximum" in branch:
                low, high = branch.get("minimum", -1e9), branch.get("maximum", 1e9)
                choices += [
                    st.floats(low - 1, high + 1, allow_nan=False),
                    st.integers(int(low) - 1, int(high) + 1),
                    st.sampled_from([low, high, -0.0, low - 1e-9, high + 1e-9, int(high) + 1]),
                ]
    if "boolean" in types:
        choices.append(st.sampled_from([True, False, 0, 1, "true", None]))
    return st.one_of(*choices)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@st.composite
def arguments_for(draw: st.DrawFn, name: str) -> Any:
    """A JSON body for tool `name`: mostly objects built from its schema, sometimes anything at all."""
    schema = published_schema(name)
    if draw(st.integers(0, 19)) == 0:
        return draw(JSON_VALUES)
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    arguments: dict[str, Any] = {}
    for field, field_schema in schema["properties"].items():
        if (field in required and draw(st.integers(0, 9)) > 0) or draw(st.booleans()):
            key = _snake(field) if draw(st.integers(0, 14)) == 0 else field
            arguments[key] = draw(_values(field_schema, defs))
    if draw(st.integers(0, 14)) == 0:
        arguments[draw(st.text(min_size=1, max_size=10))] = draw(JSON_SCALARS)
    return arguments


@pytest.mark.parametrize("name", list(TOOLS))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_schema_and_validation_agree_on_generated_arguments(name: str, data: st.DataObject) -> None:
    arguments = data.draw(arguments_for(name), label="arguments")
    assert_agree(name, arguments)
