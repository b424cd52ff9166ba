"""Asking the person for a missing argument (MCP elicitation), where the protocol allows it statelessly.

A tool declares the required arguments it may ask for (`Tool.questions`): words (a place), or a yes to a
sentence (a service request's consent). On 2026-07-28 a `tools/call` without one, from a client that declared
form elicitation, is answered with an `InputRequiredResult` holding one form request per missing argument; the
client asks the person and retries the same call with `inputResponses`, which are merged into the arguments.
Nothing is kept between the two requests (the retry carries the original arguments), so any worker can answer
the retry.

The handshake revisions cannot do this here: the service answers in stateless JSON-response mode, where
the SDK has no channel for a request to the client (and the spec sends one only over SSE). There, as for
clients without elicitation or a person who declines, the call fails with the question in the error
(`parse_arguments` adds it), so the agent can ask in the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types

from garage_tools.registry import Question, Tool

REVISION = "2026-07-28"
_KEY = "ask:"  # input request keys are `ask:<argument>`


def answered(question: Question, value: Any) -> bool:
    """Whether an argument already answers its question: words that are not blank, or the yes it asks for."""
    if question.agree is None:
        return isinstance(value, str) and bool(value.strip())
    return isinstance(value, Mapping) and value.get(question.agree) is True


def missing_questions(tool: Tool[Any, Any], arguments: Mapping[str, Any]) -> dict[str, Question]:
    """The declared questions whose argument is absent, null, blank, or without the yes it needs."""
    return {name: question for name, question in tool.questions.items() if not answered(question, arguments.get(name))}


def _form(name: str, question: Question) -> dict[str, Any]:
    """The form the person fills in: one text field, or one yes/no box they must tick."""
    if question.agree is None:
        field = {name: {"type": "string", "title": question.text, "minLength": 1}}
        return {"type": "object", "properties": field, "required": [name]}
    box = {question.agree: {"type": "boolean", "title": question.text, "default": False}}
    return {"type": "object", "properties": box, "required": [question.agree]}


def _answer(name: str, question: Question, content: Mapping[str, Any], given: Any) -> Any:
    """The argument the person's answer makes, or None when it answers nothing (blank, or not a yes)."""
    if question.agree is None:
        value = content.get(name)
        return value if isinstance(value, str) and value.strip() else None
    if content.get(question.agree) is not True:
        return None
    return {**(given if isinstance(given, Mapping) else {}), question.agree: True}


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
            content = (response.content or {}) if response.action == "accept" else {}
            value = _answer(name, question, content, arguments.get(name))
            if value is not None:
                arguments[name] = value
            continue  # declined, cancelled, blank or not agreed: the call goes on and fails as it would have
        unanswered[_KEY + name] = types.ElicitRequest(
            method="elicitation/create",
            params=types.ElicitRequestFormParams(message=question.text, requested_schema=_form(name, question)),
        )
    if unanswered:
        return types.InputRequiredResult(input_requests=unanswered)
    return arguments
