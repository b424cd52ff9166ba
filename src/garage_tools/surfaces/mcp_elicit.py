"""Asking the person for a missing argument (MCP elicitation), where the protocol allows it statelessly.

A tool declares the required arguments it may ask for (`Tool.questions`). On 2026-07-28 a `tools/call`
without one, from a client that declared form elicitation, is answered with an `InputRequiredResult`
holding one form request per missing argument; the client asks the person and retries the same call
with `inputResponses`, which are merged into the arguments. Nothing is kept between the two requests
(the retry carries the original arguments), so any worker can answer the retry.

The handshake revisions cannot do this here: the service answers in stateless JSON-response mode, where
the SDK has no channel for a request to the client (and the spec sends one only over SSE). There, as for
clients without elicitation or a person who declines, the call fails with the question in the error
(`parse_arguments` adds it), so the agent can ask in the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types

from garage_tools.registry import Tool

REVISION = "2026-07-28"
_KEY = "ask:"  # input request keys are `ask:<argument>`


def missing_questions(tool: Tool[Any, Any], arguments: Mapping[str, Any]) -> dict[str, str]:
    """The declared questions whose argument is absent, null or blank."""
    return {
        name: question
        for name, question in tool.questions.items()
        if not (isinstance(arguments.get(name), str) and arguments[name].strip())
    }


def can_elicit(protocol_version: str, capabilities: types.ClientCapabilities | None) -> bool:
    """Form elicitation through an input-required result: 2026-07-28, with the client's form capability."""
    elicitation = capabilities.elicitation if capabilities else None
    if protocol_version != REVISION or elicitation is None:
        return False
    return elicitation.form is not None or elicitation.url is None  # an empty `elicitation: {}` means form


def ask_or_answer(
    tool: Tool[Any, Any], params: types.CallToolRequestParams
) -> types.InputRequiredResult | dict[str, Any]:
    """Either the requests for the person (no answer yet), or the arguments with their answers merged in."""
    arguments = dict(params.arguments or {})
    questions = missing_questions(tool, arguments)
    responses = params.input_responses or {}
    unanswered: dict[str, types.InputRequest] = {}
    for name, question in questions.items():
        response = responses.get(_KEY + name)
        if isinstance(response, types.ElicitResult):
            value = (response.content or {}).get(name) if response.action == "accept" else None
            if isinstance(value, str) and value.strip():
                arguments[name] = value
            continue  # declined, cancelled or left blank: the call goes on and fails with the question
        unanswered[_KEY + name] = types.ElicitRequest(
            method="elicitation/create",
            params=types.ElicitRequestFormParams(
                message=question,
                requested_schema={
                    "type": "object",
                    "properties": {name: {"type": "string", "title": question, "minLength": 1}},
                    "required": [name],
                },
            ),
        )
    if unanswered:
        return types.InputRequiredResult(input_requests=unanswered)
    return arguments
