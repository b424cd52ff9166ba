"""The model-provider settings: the language model behind diagnose's fallback and the vision model of the
photo tools, checked at start-up so a half-configured provider stops the service with one clear line."""

from __future__ import annotations

from typing import Literal, Self
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings

ProviderName = Literal["none", "openai", "anthropic"]

#: Where each model provider's API lives when no base URL is set.
PROVIDER_BASE_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


class ModelSettings(BaseSettings):
    """`GARAGE_TOOLS_LLM_*` and `GARAGE_TOOLS_VISION_*`; a group of `Settings`, never built on its own."""

    llm_provider: ProviderName = Field(
        default="none",
        description=(
            "Language model behind diagnose's `useLlmFallback`: `openai` (any OpenAI-compatible Chat Completions "
            "server: OpenAI, Ollama, vLLM, LM Studio), `anthropic` (Messages API), or `none` (offline matcher)."
        ),
    )
    llm_base_url: str | None = Field(
        default=None,
        description="API base URL, e.g. `http://127.0.0.1:11434/v1` for Ollama. Default: the provider's own API.",
    )
    llm_model: str | None = Field(default=None, description="Model name; required when a provider is set.")
    llm_api_key: SecretStr | None = Field(
        default=None, description="API key; never logged or printed. Optional for local OpenAI-compatible servers."
    )
    llm_timeout_seconds: float = Field(
        default=30.0, gt=0, le=300, description="Seconds to wait for one reply from a model (connecting: at most 5)."
    )
    llm_max_retries: int = Field(
        default=2,
        ge=0,
        le=10,
        description="Retries after a 429, a 5xx, a timeout or a connection failure, with exponential backoff.",
    )
    vision_provider: ProviderName | None = Field(
        default=None, description="Model provider for photo tools. Default: `llm_provider` (`none` turns it off)."
    )
    vision_base_url: str | None = Field(
        default=None, description="Default: `llm_base_url` when the provider is the same, else the provider's API."
    )
    vision_model: str | None = Field(
        default=None, description="A model that reads images. Default: `llm_model` when the provider is the same."
    )
    vision_api_key: SecretStr | None = Field(
        default=None, description="Default: `llm_api_key` when the provider is the same; never logged or printed."
    )

    @field_validator(
        "llm_provider",
        "llm_base_url",
        "llm_model",
        "llm_api_key",
        "vision_provider",
        "vision_base_url",
        "vision_model",
        "vision_api_key",
        mode="before",
    )
    @classmethod
    def _blank_provider_setting_is_unset(cls, value: object, info: ValidationInfo) -> object:
        # An empty `GARAGE_TOOLS_LLM_API_KEY=` line means "no key", not "send an empty key".
        if isinstance(value, str):
            value = value.strip()
            if info.field_name in ("llm_provider", "vision_provider"):
                value = value.lower()
            if not value:
                return "none" if info.field_name == "llm_provider" else None
        return value

    @model_validator(mode="after")
    def _resolve_providers(self) -> Self:
        """Fill the vision settings from the language ones, apply default base URLs, refuse what cannot work."""
        if self.vision_provider in (None, self.llm_provider):
            self.vision_provider = self.llm_provider
            self.vision_base_url = self.vision_base_url or self.llm_base_url
            self.vision_model = self.vision_model or self.llm_model
            self.vision_api_key = self.vision_api_key or self.llm_api_key
        self.llm_base_url = _check_provider(
            "LLM", self.llm_provider, self.llm_base_url, self.llm_model, self.llm_api_key
        )
        self.vision_base_url = _check_provider(
            "VISION", self.vision_provider, self.vision_base_url, self.vision_model, self.vision_api_key
        )
        return self


def _check_provider(
    prefix: str, provider: str, base_url: str | None, model: str | None, api_key: SecretStr | None
) -> str | None:
    """The provider's base URL with the default applied; a `ValueError` naming the variable to set otherwise.

    Checked at start-up so that a half-configured provider stops the service with one clear line
    instead of failing on the first homeowner's request.
    """
    if provider == "none":
        return base_url
    variable = f"GARAGE_TOOLS_{prefix}"
    if not model:
        raise ValueError(f"{variable}_MODEL is required when {variable}_PROVIDER={provider}")
    url = (base_url or PROVIDER_BASE_URLS[provider]).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{variable}_BASE_URL must be an absolute http(s) URL, e.g. http://127.0.0.1:11434/v1")
    has_key = api_key is not None and bool(api_key.get_secret_value())
    public_api = parts.hostname in ("api.openai.com", "api.anthropic.com")
    if not has_key and (provider == "anthropic" or public_api):
        raise ValueError(f"{variable}_API_KEY is required for {url} (only local servers work without a key)")
    return url
