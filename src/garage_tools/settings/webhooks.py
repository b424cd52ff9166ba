"""The webhook settings: which non-public addresses endpoints may reach, retries, when an endpoint is
turned off, and the key that keeps signing secrets sealed at rest."""

from __future__ import annotations

import ipaddress
from typing import Annotated

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode


class WebhookSettings(BaseSettings):
    """`GARAGE_TOOLS_WEBHOOK_*` and `GARAGE_TOOLS_SECRETS_KEY`; a group of `Settings`, never built on its own."""

    webhook_allow_addresses: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description=(
            "Addresses or networks a webhook endpoint may reach although they are not public (comma-separated, "
            "e.g. `10.0.0.7,10.20.0.0/16`), over http or https on any port: an internal CRM. Default: none; "
            "endpoints must be public https URLs on port 443."
        ),
    )
    webhook_timeout_seconds: float = Field(
        default=10.0, gt=0, le=60, description="Seconds an endpoint has to answer one delivery."
    )
    webhook_retry_seconds: float = Field(
        default=4.0,
        gt=0,
        le=3600,
        description="Wait before retrying a failed delivery; it doubles with each failure (with jitter), to an hour.",
    )
    webhook_max_attempts: int = Field(
        default=12, ge=1, le=100, description="Delivery attempts of one event before it is given up on."
    )
    webhook_disable_after: int = Field(
        default=15,
        ge=1,
        le=1000,
        description=(
            "Failed deliveries in a row after which an endpoint is turned off and its partner is e-mailed; "
            "any success resets the count."
        ),
    )
    secrets_key: SecretStr | None = Field(
        default=None,
        description=(
            "Key that seals webhook signing secrets in the database (any long random string); never logged. "
            "Default: a key generated on first use in `data_dir/secrets.key`. Set it when several hosts share "
            "one database, the same on each, and keep it apart from the database's backups."
        ),
    )

    @field_validator("webhook_allow_addresses", mode="before")
    @classmethod
    def _split_networks(cls, value: object) -> object:
        items = [part.strip() for part in value.split(",") if part.strip()] if isinstance(value, str) else value
        if isinstance(items, list):
            for item in items:
                try:
                    ipaddress.ip_network(str(item), strict=False)
                except ValueError:
                    raise ValueError(f"{item!r} is not an IP address or network") from None
        return items

    @field_validator("secrets_key", mode="before")
    @classmethod
    def _blank_key_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value
