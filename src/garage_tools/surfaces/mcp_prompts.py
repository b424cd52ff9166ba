"""MCP prompts and completions, on both tiers, from `knowledge/data/prompts.json`.

A prompt is a message the person picks in their assistant ("Diagnose my door and find a pro"); its
wording is data, its arguments complete from the service's own lists (`completion/complete`): places
from the US place index, door sizes, issue keys, inspection item ids and lab slugs. The lab resource
template `lab://{slug}` completes its slug the same way. "Explain my spring" carries its lab: on the
pro tier the lab passages that answer the question (the search `retrieveLabContext` runs), on the public
tier a link to the whole lab as a `lab://` resource.
"""

from __future__ import annotations

from collections.abc import Mapping

import mcp_types as types
from mcp import MCPError

from garage_tools.inputs import holdable
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.places import us_places
from garage_tools.knowledge.prompts import Completion, Prompt
from garage_tools.surfaces.mcp_resources import MIME_TYPE, SCHEME, lab_uri
from garage_tools.tools.retrieval import RetrieveInput, retrieve

#: The most values one completion answer may carry (the MCP specification's limit).
MAX_VALUES = 100
MAX_ARGUMENT_CHARS = 500
LAB_TEMPLATE = f"{SCHEME}{{slug}}"
_PASSAGES = 3


class Prompts:
    """The prompts of one knowledge base: listed, filled in, and their arguments completed."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self.catalog = knowledge.prompts
        self.listing = [
            types.Prompt(
                name=prompt.name,
                title=prompt.title,
                description=prompt.description,
                arguments=[
                    types.PromptArgument(name=a.name, description=a.description, required=a.required)
                    for a in prompt.arguments
                ],
            )
            for prompt in self.catalog.prompts
        ]
        self.templates = [
            types.ResourceTemplate(
                name="lab",
                title="An interactive lab, as Markdown",
                uri_template=LAB_TEMPLATE,
                description="Any lab by its slug; resources/list lists them all.",
                mime_type=MIME_TYPE,
            )
        ]

    def get(self, name: str, arguments: Mapping[str, str] | None, *, pro: bool, base_url: str) -> types.GetPromptResult:
        """The prompt `name` filled in with `arguments`; unknown prompts and bad arguments are -32602."""
        prompt = self._prompt(name)
        given = _checked(prompt, arguments or {})
        tier = "pro" if pro else "public"
        paragraphs = [
            paragraph.text.format_map(given)
            for paragraph in prompt.paragraphs
            if (paragraph.when is None or paragraph.when in given)
            and (paragraph.unless is None or paragraph.unless not in given)
            and (paragraph.tier is None or paragraph.tier == tier)
        ]
        messages = [_user(types.TextContent(type="text", text="\n\n".join(paragraphs)))]
        slug = given.get("lab", prompt.lab)
        if slug is not None and (lab := self.knowledge.labs.get(slug)) is not None:
            if pro:
                query = " ".join(filter(None, (given.get("question"), given.get("issue", "").replace("_", " "))))
                found = retrieve(
                    self.knowledge, RetrieveInput(query=query or lab.title, labSlug=slug, topK=_PASSAGES), base_url
                )
                text = "\n\n".join(f"{c.section_title} ({c.url}):\n{c.text}" for c in found.chunks)
                messages.append(
                    _user(types.TextContent(type="text", text=f"Passages of the lab {lab.title}:\n\n{text}"))
                )
            else:
                link = types.ResourceLink(
                    type="resource_link", uri=lab_uri(slug), name=slug, title=lab.title, mime_type=MIME_TYPE
                )
                messages.append(_user(link))
        return types.GetPromptResult(description=prompt.description, messages=messages)

    def complete(self, params: types.CompleteRequestParams) -> types.CompleteResult:
        """Values for the argument being typed: of a prompt argument, or of the lab template's `slug`."""
        ref, argument = params.ref, params.argument
        if isinstance(ref, types.ResourceTemplateReference):
            if ref.uri != LAB_TEMPLATE:
                raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource template {ref.uri!r}.")
            kind: Completion | None = Completion.LAB if argument.name == "slug" else None
        else:
            prompt = self._prompt(ref.name)
            declared = {a.name: a for a in prompt.arguments}.get(argument.name)
            if declared is None:
                raise MCPError(
                    code=types.INVALID_PARAMS, message=f"The prompt {prompt.name!r} has no argument {argument.name!r}."
                )
            kind = declared.complete
        values, total = self._values(kind, argument.value[:MAX_ARGUMENT_CHARS]) if kind else ([], 0)
        return types.CompleteResult(
            completion=types.Completion(values=values[:MAX_VALUES], total=total, has_more=total > MAX_VALUES)
        )

    def _values(self, kind: Completion, typed: str) -> tuple[list[str], int]:
        if kind is Completion.PLACE:
            return us_places().suggest(typed, MAX_VALUES)
        options: list[str] = {
            Completion.DOOR_SIZE: lambda: list(self.catalog.door_sizes),
            Completion.ISSUE: lambda: list(self.knowledge.tree.issues),
            Completion.INSPECTION_ITEM: lambda: [item.id for item in self.knowledge.checklist.items],
            Completion.LAB: lambda: list(self.knowledge.labs.slugs),
        }[kind]()
        start = typed.strip().lower()
        found = [value for value in options if value.lower().startswith(start)]
        found += [value for value in options if start and start in value.lower() and value not in found]
        return found, len(found)

    def _prompt(self, name: str) -> Prompt:
        prompt = self.catalog.get(name)
        if prompt is None:
            known = ", ".join(p.name for p in self.catalog.prompts)
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt {name[:100]!r}. Prompts: {known}.")
        return prompt


def _checked(prompt: Prompt, arguments: Mapping[str, str]) -> dict[str, str]:
    """The arguments given (blank ones dropped), or -32602 naming what is wrong."""
    declared = {a.name for a in prompt.arguments}
    problems = [f"{name!r} is not an argument of this prompt" for name in arguments if name not in declared]
    given = {name: value.strip() for name, value in arguments.items() if name in declared and value.strip()}
    for name, value in given.items():
        if len(value) > MAX_ARGUMENT_CHARS or not holdable(value):
            problems.append(f"{name!r} must be at most {MAX_ARGUMENT_CHARS} characters without control characters")
    problems += [f"{a.name!r} is required" for a in prompt.arguments if a.required and a.name not in given]
    if problems:
        raise MCPError(code=types.INVALID_PARAMS, message=f"Prompt {prompt.name!r}: {'; '.join(problems)}.")
    return given


def _user(content: types.TextContent | types.ResourceLink) -> types.PromptMessage:
    return types.PromptMessage(role="user", content=content)
