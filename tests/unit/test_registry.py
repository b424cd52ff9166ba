"""invoke(): the one call path; its rules hold for every tool on every surface."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from pydantic import Field

from garage_tools.access.caller import Caller, Tier
from garage_tools.errors import AuthRequired, InternalError, InvalidArguments, InvalidKey, ToolFailed, UnknownTool
from garage_tools.models import InlineImage, InputModel, OutputModel, inline_images
from garage_tools.registry import AuthPolicy, Registry, Tool, ToolContext, dump, invoke
from garage_tools.surfaces.mcp_encoding import tool_result
from garage_tools.tools import build_registry
from tests.tool_data import unopened_data

DATA = unopened_data()  # real stores no handler here opens


class EchoIn(InputModel):
    text: str = Field(max_length=10)
    times: int = Field(default=1, ge=1, le=3)


class EchoOut(OutputModel):
    echoed: str
    picture: InlineImage | None = None


async def echo(args: EchoIn, ctx: ToolContext) -> EchoOut:
    if args.text == "boom":
        raise RuntimeError("secret internals")
    if args.text == "refuse":
        raise ToolFailed("cannot echo that")
    if args.text == "wrong":
        return {"unexpected": True}  # type: ignore[return-value]
    return EchoOut(echoed=args.text * args.times, picture=InlineImage(data="AAAA", mime_type="image/png"))


def tool(name: str, auth: AuthPolicy = AuthPolicy.OPTIONAL) -> Tool[Any, Any]:
    return Tool(
        name=name,
        title=name,
        summary="s",
        description="d",
        input_model=EchoIn,
        output_model=EchoOut,
        handler=echo,
        auth=auth,
    )


REGISTRY = Registry([tool("echo"), tool("secretEcho", AuthPolicy.BEARER)])
PUBLIC = Caller(tier=Tier.PUBLIC, surface="test")
PRO = Caller(tier=Tier.PRO, surface="test", key_id="k1")


def ctx(caller: Caller) -> ToolContext:
    return ToolContext(knowledge=None, caller=caller, base_url="http://test", data=DATA)  # type: ignore[arg-type]


async def test_valid_call_returns_the_output_model() -> None:
    result = await invoke(REGISTRY, "echo", {"text": "hi", "times": 2}, ctx(PUBLIC))
    assert dump(result)["echoed"] == "hihi"


async def test_unknown_tool_lists_the_real_ones() -> None:
    with pytest.raises(UnknownTool) as caught:
        await invoke(REGISTRY, "nope", {}, ctx(PUBLIC))
    assert caught.value.status == 404 and "echo" in caught.value.message


async def test_bearer_only_tool_needs_pro() -> None:
    with pytest.raises(AuthRequired) as caught:
        await invoke(REGISTRY, "secretEcho", {"text": "x"}, ctx(PUBLIC))
    assert caught.value.status == 401
    assert (await invoke(REGISTRY, "secretEcho", {"text": "x"}, ctx(PRO))) is not None


async def test_bad_credential_fails_even_on_an_open_tool() -> None:
    bad = Caller(tier=Tier.PUBLIC, surface="test", credential_error=InvalidKey("revoked"))
    with pytest.raises(InvalidKey):
        await invoke(REGISTRY, "echo", {"text": "x"}, ctx(bad))


async def test_validation_names_each_bad_field() -> None:
    with pytest.raises(InvalidArguments) as caught:
        await invoke(REGISTRY, "echo", {"text": "far too long text", "times": 9, "extra": 1}, ctx(PUBLIC))
    fields = {p.field: p.message for p in caught.value.details or []}
    assert set(fields) == {"text", "times", "extra"}
    assert "10 characters" in fields["text"] and "3" in fields["times"] and "not a field" in fields["extra"]
    assert "text" in caught.value.message and "times" in caught.value.message


async def test_missing_required_field_says_required() -> None:
    with pytest.raises(InvalidArguments) as caught:
        await invoke(REGISTRY, "echo", {}, ctx(PUBLIC))
    assert caught.value.details and caught.value.details[0].field == "text"
    assert caught.value.details[0].message == "is required"


async def test_tool_errors_pass_through() -> None:
    with pytest.raises(ToolFailed) as caught:
        await invoke(REGISTRY, "echo", {"text": "refuse"}, ctx(PUBLIC))
    assert caught.value.status == 400 and caught.value.code == "tool_error"


async def test_unexpected_failures_are_masked_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR), pytest.raises(InternalError) as caught:
        await invoke(REGISTRY, "echo", {"text": "boom"}, ctx(PUBLIC))
    assert "secret internals" not in caught.value.message
    assert "incident" in caught.value.message
    assert "secret internals" in caplog.text


async def test_output_is_validated() -> None:
    with pytest.raises(InternalError):
        await invoke(REGISTRY, "echo", {"text": "wrong"}, ctx(PUBLIC))


async def test_images_in_results_become_mcp_image_blocks() -> None:
    result = await invoke(REGISTRY, "echo", {"text": "pic"}, ctx(PUBLIC))
    assert [i.mime_type for i in inline_images(result)] == ["image/png"]
    mcp = tool_result(result)
    assert [block["type"] for block in mcp["content"]] == ["text", "image"]
    assert mcp["content"][1]["mimeType"] == "image/png"
    # The bytes travel once, in the image block: the JSON keeps everything else of the image.
    image_bytes = mcp["content"][1]["data"]
    assert image_bytes == inline_images(result)[0].data
    assert image_bytes not in mcp["content"][0]["text"]
    expected = dump(result)
    assert "data" in json.dumps(expected)
    assert mcp["structuredContent"] == json.loads(json.dumps(expected).replace(f'"data": "{image_bytes}", ', ""))


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        Registry([tool("echo"), tool("echo")])


def test_the_service_registry_declares_its_tools_completely() -> None:
    registry = build_registry()
    assert {"diagnose", "costEstimate", "getDoorStyles"} <= set(registry.names)
    for declared in registry:
        assert declared.summary and len(declared.description) > 80 and declared.title
        assert declared.input_model.model_config.get("extra") == "forbid"


def test_auth_policy_reaches_openapi_and_the_mcp_listing() -> None:
    # A test registry with one tool of each policy: the generated surfaces must tell them apart.
    from garage_tools.surfaces.mcp_listing import mcp_tool
    from garage_tools.surfaces.openapi import openapi_document

    paths = openapi_document(REGISTRY, "https://doors.example.com")["paths"]
    assert paths["/api/v1/echo"]["post"]["security"] == [{}, {"bearerAuth": []}]
    assert paths["/api/v1/secretEcho"]["post"]["security"] == [{"bearerAuth": []}]
    assert "Requires an API key" in paths["/api/v1/secretEcho"]["post"]["description"]
    assert "Requires an API key" in (mcp_tool(REGISTRY.get("secretEcho")).description or "")
    assert "Requires an API key" not in (mcp_tool(REGISTRY.get("echo")).description or "")
