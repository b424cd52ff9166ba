"""Models from settings: which client serves the language model and which the vision model."""

from __future__ import annotations

from pydantic import SecretStr

from garage_tools.providers.anthropic import Anthropic
from garage_tools.providers.base import Models
from garage_tools.providers.chat import ChatModel
from garage_tools.providers.openai_compatible import OpenAICompatible
from garage_tools.settings import Settings

CLIENTS: dict[str, type[ChatModel]] = {"openai": OpenAICompatible, "anthropic": Anthropic}


def build_models(settings: Settings) -> Models:
    """The configured models (settings.py has already resolved defaults and refused half-set providers).

    When the vision settings equal the language ones, one client serves both: one connection pool.
    """
    language = _client(settings, settings.llm_provider, settings.llm_base_url, settings.llm_model, settings.llm_api_key)
    vision_config = (
        settings.vision_provider,
        settings.vision_base_url,
        settings.vision_model,
        settings.vision_api_key,
    )
    language_config = (settings.llm_provider, settings.llm_base_url, settings.llm_model, settings.llm_api_key)
    vision = language if vision_config == language_config else _client(settings, *vision_config)
    return Models(language=language, vision=vision)


def _client(
    settings: Settings, provider: str | None, base_url: str | None, model: str | None, api_key: SecretStr | None
) -> ChatModel | None:
    if provider in (None, "none") or base_url is None or model is None:
        return None
    return CLIENTS[provider](
        model=model,
        base_url=base_url,
        api_key=api_key,
        timeout_seconds=settings.llm_timeout_seconds,
        max_retries=settings.llm_max_retries,
    )
