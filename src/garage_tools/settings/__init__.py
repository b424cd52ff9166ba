"""One `Settings` object, read once from the environment (prefix `GARAGE_TOOLS_`) and `.env`.

It is built at start-up and passed down; nothing else reads the environment. Relative paths
resolve against the working directory at the moment the settings are read, so two services
started in two directories never share state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Self
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import NoDecode, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from garage_tools.redis_address import RedisAddress
from garage_tools.settings.limits import LimitSettings
from garage_tools.settings.mail import MailSettings
from garage_tools.settings.models import ModelSettings
from garage_tools.settings.webhooks import WebhookSettings

CommaList = Annotated[list[str], NoDecode]


def _split_commas(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(LimitSettings, MailSettings, ModelSettings, WebhookSettings):
    """Runtime configuration. Every field can be set as `GARAGE_TOOLS_<FIELD>`; mail, model providers, rate
    limits and webhooks have their own groups (`settings/mail.py`, `settings/models.py`, `settings/limits.py`,
    `settings/webhooks.py`)."""

    model_config = SettingsConfigDict(
        env_prefix="GARAGE_TOOLS_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        hide_input_in_errors=True,  # a settings error must not print the API keys and passwords it was given
    )

    host: str = Field(default="127.0.0.1", description="Interface `serve` binds to.")
    port: int = Field(default=8000, ge=0, le=65535, description="Port `serve` listens on.")
    workers: int = Field(default=1, ge=1, le=64, description="uvicorn worker processes for `serve`.")
    header_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description=(
            "Seconds a client has to send a complete request line and headers, counted from when the connection "
            "opens or the request starts. Slower clients get 408 and are disconnected."
        ),
    )
    keep_alive_timeout_seconds: int = Field(
        default=5, ge=1, le=300, description="Seconds an idle connection is kept open between requests."
    )
    max_connections: int = Field(
        default=1000,
        ge=2,
        le=100_000,
        description=(
            "Per worker: once this many connections are open (or requests in flight), "
            "new requests get 503 `service_unavailable` instead of waiting."
        ),
    )
    max_header_bytes: int = Field(
        default=32 * 1024,
        ge=1024,
        le=1024 * 1024,
        description="Largest request line plus headers accepted; larger heads get 431 and are disconnected.",
    )
    graceful_shutdown_seconds: int = Field(
        default=20,
        ge=0,
        le=600,
        description="On SIGTERM, how long requests in flight may finish before they are cancelled.",
    )

    public_base_url: str | None = Field(
        default=None,
        description=(
            "Absolute base URL used in OpenAPI and in every link the service returns. "
            "Default: the address the request reached the service on."
        ),
    )
    data_dir: Path = Field(default=Path("var"), description="Where the embedded defaults keep state.")
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy async URL. Default: a SQLite file in `data_dir`. PostgreSQL: postgresql+asyncpg://…",
        repr=False,  # it may carry a password; show it only through store.database.display_url
    )
    auto_migrate: bool = Field(default=True, description="Apply pending database migrations when the service starts.")

    allowed_hosts: CommaList = Field(
        default_factory=list,
        description=(
            "Extra `Host` values MCP accepts (DNS-rebinding protection), e.g. `api.example.com`. "
            "Loopback names and the public base URL's host are always allowed."
        ),
    )
    allowed_origins: CommaList = Field(
        default_factory=list,
        description=(
            "Browser origins admitted as the service's own, e.g. a partner's `https://doors.example.com`: "
            "their pages call the REST tools without the browser challenge, and may use MCP. "
            "The public base URL's origin is always admitted; MCP also accepts loopback origins."
        ),
    )
    dns_rebinding_protection: bool = Field(
        default=True,
        description="Check `Host` and `Origin` on the MCP endpoints. Turn off only behind a proxy that owns `Host`.",
    )

    challenge_secret: SecretStr | None = Field(
        default=None,
        description=(
            "Turnstile secret key for the browser challenge; never logged or printed. "
            "Unset: browser callers are not challenged."
        ),
    )
    challenge_verify_url: str = Field(
        default="https://challenges.cloudflare.com/turnstile/v0/siteverify",
        description="Where challenge tokens are verified: Turnstile's siteverify API (or a stand-in in tests).",
    )
    challenge_site_key: str | None = Field(
        default=None,
        max_length=200,
        description=(
            "Turnstile site key (public) that browser pages such as the contractor widget render the challenge "
            "with; `GET /challenge` hands it out. Set it with the secret, from the same Turnstile widget."
        ),
    )
    challenge_script_url: str = Field(
        default="https://challenges.cloudflare.com/turnstile/v0/api.js",
        description="The challenge client script pages load: Turnstile's api.js (or a stand-in in tests).",
    )
    challenge_timeout_seconds: float = Field(
        default=3.0, gt=0, le=30, description="Total seconds to spend verifying one token, its one retry included."
    )
    challenge_hostnames: CommaList = Field(
        default_factory=list,
        description="Hostnames a challenge must have been solved on, e.g. `app.example.com`. Default: any hostname.",
    )
    challenge_action: str | None = Field(
        default=None, description="Widget action (`data-action`) a challenge token must carry. Default: any action."
    )

    redis_url: str | None = Field(
        default=None,
        description="Redis for rate limits shared by several processes or hosts, e.g. `redis://10.0.0.5:6379/0`. "
        "Default: counted in each process's memory.",
        repr=False,
    )
    redis_key_prefix: str = Field(
        default="garage-tools:",
        min_length=1,
        max_length=64,
        description="Prefix of every key this service writes in Redis: give each deployment that shares one "
        "Redis server its own.",
    )
    key_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        le=60,
        description="How long a process trusts a key it has checked; a revocation reaches every process within this.",
    )
    body_timeout_seconds: float = Field(
        default=15.0, gt=0, le=300, description="Longest time a request body may take to arrive (then 408)."
    )
    mcp_fast_path: bool = Field(
        default=True,
        description="Answer plain tools/call and tools/list requests without the SDK's machinery (same answers).",
    )
    trusted_proxies: CommaList = Field(
        default_factory=list,
        description=(
            "Proxies whose `Forwarded`/`X-Forwarded-For` headers name the client (comma-separated IPs or CIDRs, "
            "e.g. `127.0.0.1,10.0.0.0/8`; `*` trusts every peer). Default: none; the socket peer is the client."
        ),
    )
    partner_refresh_seconds: float = Field(
        default=5.0,
        ge=0,
        le=3600,
        description=(
            "How often each process checks whether the partner directory changed (one small query); an import "
            "reaches every running process within this many seconds."
        ),
    )
    # -- service requests (requestService) --------------------------------------------------------
    request_response_hours: float = Field(
        default=2.0,
        gt=0,
        le=720,
        description=(
            "Business hours (`REQUEST_BUSINESS_HOURS`) a partner has to answer a service request before it is "
            "offered to the next partner that serves the ZIP code, and the homeowner told."
        ),
    )
    request_business_hours: str = Field(
        default="mon-sat 08:00-18:00",
        max_length=40,
        description=(
            "When a partner's response time runs, in the local time of the request's place: days and opening "
            "hours such as `mon-sat 08:00-18:00`, or `always` (every hour counts, nights and weekends too)."
        ),
    )
    request_sweep_seconds: float = Field(
        default=60.0,
        ge=0,
        le=86400,
        description=(
            "How often each `serve` process looks for requests left unanswered past `REQUEST_RESPONSE_HOURS` "
            "(0: never in `serve`; run `garage-tools requests sweep` from a scheduler instead)."
        ),
    )
    request_limit_per_contact: int = Field(
        default=3,
        ge=1,
        le=10_000,
        description="Service requests one e-mail address or phone number may send a day (a day: the last 24 hours).",
    )
    retention_inspection_days: int = Field(
        default=730, ge=1, le=36500, description="Days an inspection report (and who sent it) is kept; `data purge`."
    )
    retention_lead_days: int = Field(
        default=365, ge=1, le=36500, description="Days a lead (and any contact details it carries) is kept."
    )
    retention_mail_days: int = Field(
        default=30, ge=1, le=36500, description="Days delivered (or undeliverable) e-mail stays in the outbox."
    )
    retention_audit_days: int = Field(
        default=730, ge=1, le=36500, description="Days an entry of the partner console's audit is kept."
    )
    privacy_contact: str | None = Field(
        default=None,
        max_length=320,
        pattern=r"^[^@\s<>]+@[^@\s<>]+$",
        description="Where people ask for their data to be deleted (an e-mail address), shown on /privacy.",
    )
    # -- contact (homeowner) --
    contact_email: str | None = Field(
        default=None,
        max_length=320,
        pattern=r"^[^@\s<>]+@[^@\s<>]+$",
        description="The address people write to about the service, shown on /about and in every homeowner page's "
        "footer (and on /privacy when GARAGE_TOOLS_PRIVACY_CONTACT is not set).",
    )
    contact_phone: str | None = Field(
        default=None,
        max_length=40,
        pattern=r"^\+?[0-9 ().-]{7,39}$",
        description="A phone number for the same, e.g. `+1 435 555 0100`, shown beside it.",
    )
    # -- end contact --
    reference_photos_manifest: Path | None = Field(
        default=None,
        description=(
            "A reference photo manifest of your own (JSON, the packaged `photos/manifest.json` format; files "
            "relative to it) for getInspectionReferencePhotos and /photos/. Checked at start-up. Default: the "
            "packaged illustrations."
        ),
    )
    log_level: str = Field(default="info", description="uvicorn and application log level.")
    log_format: Literal["text", "json"] = Field(
        default="text",
        description=(
            "`text`: uvicorn's lines, for a terminal. `json`: one JSON object per line, for a log pipeline "
            "(production). Both carry each request's id and never a key, token or e-mail address."
        ),
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        description=(
            "Bearer token `/metrics` requires (`Authorization: Bearer <token>`); never logged or printed. "
            "Unset: `/metrics` is open, so block it at the proxy."
        ),
    )

    _split_hosts = field_validator(
        "allowed_hosts", "allowed_origins", "challenge_hostnames", "trusted_proxies", mode="before"
    )(_split_commas)

    @field_validator("challenge_secret", "challenge_action", "challenge_site_key", mode="before")
    @classmethod
    def _blank_challenge_setting_is_none(cls, value: object) -> object:
        # An empty GARAGE_TOOLS_CHALLENGE_SECRET= line must mean "off", not "verify with an empty secret".
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _blank_metrics_token_is_none(cls, value: object) -> object:
        # An empty GARAGE_TOOLS_METRICS_TOKEN= line must mean "open", not "the empty string is the token".
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("challenge_verify_url", "challenge_script_url")
    @classmethod
    def _check_challenge_urls(cls, value: str, info: ValidationInfo) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"{info.field_name} must be an absolute http(s) URL")
        return value

    @field_validator("public_base_url")
    @classmethod
    def _check_base_url(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("public_base_url must be an absolute http(s) URL, e.g. https://api.example.com")
        return value.rstrip("/")

    @field_validator("redis_url")
    @classmethod
    def _check_redis_url(cls, value: str | None) -> str | None:
        if value:
            RedisAddress.from_url(value)  # its error says what is wrong without repeating the URL (or password)
        return value or None

    @field_validator("reference_photos_manifest", mode="before")
    @classmethod
    def _blank_path_is_none(cls, value: object) -> object:
        # An empty GARAGE_TOOLS_REFERENCE_PHOTOS_MANIFEST= line means "the packaged photos", not the current directory.
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("privacy_contact", "contact_email", "contact_phone", mode="before")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value or None

    @model_validator(mode="after")
    def _resolve_paths(self) -> Self:
        self.data_dir = self.data_dir.expanduser().resolve()
        if self.reference_photos_manifest is not None:
            self.reference_photos_manifest = self.reference_photos_manifest.expanduser().resolve()
        if self.database_url is None:
            self.database_url = f"sqlite+aiosqlite:///{self.data_dir / 'garage-tools.db'}"
        else:
            try:
                url = make_url(self.database_url)
            except (ArgumentError, ValueError):
                return self  # reported, with the password masked, when the store is opened
            if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
                resolved = Path(url.database).expanduser().resolve()
                self.database_url = url.set(database=str(resolved)).render_as_string(hide_password=False)
        return self

    @property
    def db_url(self) -> str:
        """The database URL after defaults are applied (never None once validated)."""
        assert self.database_url is not None
        return self.database_url
