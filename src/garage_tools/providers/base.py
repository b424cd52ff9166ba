"""The interfaces tools use to ask a model, and the errors they may see.

A tool hands over its own Pydantic model as the reply schema and gets back a validated instance,
never free text: the clients ask for JSON, parse it and check it, so tool code never parses a
model's prose. Errors follow the service's taxonomy (errors.py):

- `ProviderUnavailable` (503, `provider_unavailable`, `Retry-After`): the provider is down, slow,
  rate-limiting us or refusing our credentials; the same request may succeed later.
- `ProviderBadReply` (502, `provider_bad_reply`): the model answered, twice, with something that is
  not the JSON asked for.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from garage_tools.errors import ProviderBadReply, ProviderUnavailable

__all__ = ["LanguageModel", "Models", "ProviderBadReply", "ProviderUnavailable", "VisionModel"]

M = TypeVar("M", bound=BaseModel)


class LanguageModel(Protocol):
    """A model that answers a text prompt with JSON fitting `schema`."""

    name: str  # e.g. "openai-compatible:gpt-4o-mini", reported in `method`/`model` fields

    async def complete_json(self, *, system: str, prompt: str, schema: type[M]) -> M: ...


class VisionModel(Protocol):
    """A model that answers a prompt about one image with JSON fitting `schema`."""

    name: str

    async def analyse_json(self, *, system: str, prompt: str, image: bytes, mime_type: str, schema: type[M]) -> M: ...


@runtime_checkable
class _Closeable(Protocol):
    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Models:
    """The models this process may use. None: no provider configured (tools use their offline method)."""

    language: LanguageModel | None = None
    vision: VisionModel | None = None

    def describe(self) -> str:
        """One line for the start-up log (model names only: never a key)."""
        language = self.language.name if self.language else "none (offline matcher)"
        vision = self.vision.name if self.vision else "none (offline image checks)"
        return f"models: language {language}; vision {vision}"

    async def aclose(self) -> None:
        """Close the clients' connection pools (one client may serve as both models: closed once)."""
        clients: list[_Closeable] = []
        for model in (self.language, self.vision):
            if isinstance(model, _Closeable) and all(model is not seen for seen in clients):
                clients.append(model)
        await asyncio.gather(*(client.aclose() for client in clients))
