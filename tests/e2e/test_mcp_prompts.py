"""MCP prompts and completions with the official SDK client, on both tiers and both protocol revisions."""

from __future__ import annotations

import pytest
from mcp import MCPError
from mcp_types import PromptReference, ResourceLink, ResourceTemplateReference, TextContent

from tests.conftest import LiveServer
from tests.e2e.test_mcp import MODES, connect

PROMPTS = {"diagnose-and-find-a-pro", "inspection-walkthrough", "explain-my-spring"}


@pytest.fixture(params=["public", "pro"])
def endpoint(request: pytest.FixtureRequest, live_server: LiveServer, pro_key: str) -> tuple[str, str | None, bool]:
    if request.param == "public":
        return f"{live_server.url}/mcp", None, False
    return f"{live_server.url}/mcp-pro", pro_key, True


@pytest.mark.parametrize("mode", MODES)
async def test_prompts_are_listed_and_filled_in(mode: str, endpoint: tuple[str, str | None, bool]) -> None:
    url, key, pro = endpoint
    async with connect(url, mode, key) as client:
        listed = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        assert set(listed) == PROMPTS
        assert all(prompt.title and prompt.arguments for prompt in listed.values())
        diagnose = await client.get_prompt(
            "diagnose-and-find-a-pro", {"symptom": "loud bang and the door won't open", "place": "84770"}
        )
        spring = await client.get_prompt("explain-my-spring", {"question": "why did it snap in the cold?"})
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("diagnose-and-find-a-pro", {"place": "84770"})
    assert missing.value.error.code == -32602 and "'symptom' is required" in missing.value.error.message
    (message,) = diagnose.messages
    assert isinstance(message.content, TextContent)
    assert "loud bang and the door won't open" in message.content.text and '"84770"' in message.content.text
    assert "ask me for my ZIP code" not in message.content.text  # the paragraph for a missing place is left out
    question, lab = spring.messages
    assert isinstance(question.content, TextContent) and "why did it snap in the cold?" in question.content.text
    if pro:  # the lab passages that answer the question come with the prompt
        assert isinstance(lab.content, TextContent)
        assert "/labs/science-of-garage-door-springs#" in lab.content.text
    else:  # a link to the whole lab, as a resource
        assert isinstance(lab.content, ResourceLink) and str(lab.content.uri) == "lab://science-of-garage-door-springs"


@pytest.mark.parametrize("mode", MODES)
async def test_arguments_complete_from_the_services_lists(mode: str, endpoint: tuple[str, str | None, bool]) -> None:
    url, key, _ = endpoint
    diagnose = PromptReference(type="ref/prompt", name="diagnose-and-find-a-pro")
    async with connect(url, mode, key) as client:
        place = (await client.complete(diagnose, {"name": "place", "value": "8477"})).completion
        city = (await client.complete(diagnose, {"name": "place", "value": "St Geo"})).completion
        size = (await client.complete(diagnose, {"name": "doorSize", "value": "16"})).completion
        spring = PromptReference(type="ref/prompt", name="explain-my-spring")
        issue = (await client.complete(spring, {"name": "issue", "value": "broken"})).completion
        lab = (await client.complete(spring, {"name": "lab", "value": "science"})).completion
        walk = PromptReference(type="ref/prompt", name="inspection-walkthrough")
        item = (await client.complete(walk, {"name": "startAt", "value": "spr"})).completion
        template = ResourceTemplateReference(type="ref/resource", uri="lab://{slug}")
        slug = (await client.complete(template, {"name": "slug", "value": "energy"})).completion
        free = (await client.complete(diagnose, {"name": "symptom", "value": "loud"})).completion
    assert place.values[0] == "Saint George, UT 84770" and place.total == len(place.values)
    assert "Saint George, UT" in city.values
    assert size.values[:2] == ["16x7", "16x8"]
    assert {"broken_spring", "broken_cable"} <= set(issue.values)
    assert "science-of-garage-door-springs" in lab.values
    assert item.values[0] == "springs" and "spring-safety-cables" in item.values
    assert slug.values == ["energy-efficiency-lab"]
    assert free.values == []
