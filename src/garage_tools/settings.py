"""One `Settings` object, read once from the environment (prefix `GARAGE_TOOLS_`) and `.env`.

It is built at start-up and passed down; nothing else reads the environment. Relative paths
resolve against the working directory at the moment the settings are read, so two services
started in two directories never share state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from sqlalchemy.engine import make_url

CommaList = Annotated[list[str], NoDecode]


def _split_commas(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    """Runtime configuration. Every field can be set as `GARAGE_TOOLS_<FIELD>`."""

    model_config = SettingsConfigDict(
        env_prefix="GARAGE_TOOLS_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    host: str = Field(default="127.0.0.1", description="Interface `serve` binds to.")
    port: int = Field(default=8000, ge=0, le=65535, description="Port `serve` listens on.")
    workers: int = Field(default=1, ge=1, le=64, description="uvicorn worker processes for `serve`.")

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
            "Extra browser origins MCP accepts, e.g. `https://app.example.com`. "
            "Loopback origins and the public base URL's origin are always allowed."
        ),
    )
    dns_rebinding_protection: bool = Field(
        default=True,
        description="Check `Host` and `Origin` on the MCP endpoints. Turn off only behind a proxy that owns `Host`.",
    )

    mcp_fast_path: bool = Field(
        default=True,
        description="Answer plain 2026-07-28 tools/call requests without the SDK's generic machinery (same answers).",
    )
    forwarded_allow_ips: str = Field(
        default="127.0.0.1",
        description="Proxies trusted to set X-Forwarded-For (comma-separated IPs or CIDRs; '*' trusts all).",
    )
    log_level: str = Field(default="info", description="uvicorn and application log level.")

    _split_hosts = field_validator("allowed_hosts", "allowed_origins", mode="before")(_split_commas)

    @field_validator("public_base_url")
    @classmethod
    def _check_base_url(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("public_base_url must be an absolute http(s) URL, e.g. https://api.example.com")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _resolve_paths(self) -> Settings:
        self.data_dir = self.data_dir.expanduser().resolve()
        if self.database_url is None:
            self.database_url = f"sqlite+aiosqlite:///{self.data_dir / 'garage-tools.db'}"
        else:
            url = make_url(self.database_url)
            if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
                resolved = Path(url.database).expanduser().resolve()
                self.database_url = url.set(database=str(resolved)).render_as_string(hide_password=False)
        return self

    @property
    def db_url(self) -> str:
        """The database URL after defaults are applied (never None once validated)."""
        assert self.database_url is not None
        return self.database_url

    def mcp_allowed_hosts(self) -> list[str]:
        """`Host` header patterns the MCP transport accepts."""
        hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"]
        if self.public_base_url:
            netloc = urlsplit(self.public_base_url).netloc
            hosts += [netloc, f"{netloc.split(':')[0]}:*"] if ":" in netloc else [netloc, f"{netloc}:*"]
        for host in self.allowed_hosts:
            hosts += [host] if ":" in host else [host, f"{host}:*"]
        return hosts

    def mcp_allowed_origins(self) -> list[str]:
        """Browser origins the MCP transport accepts."""
        origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
        if self.public_base_url:
            parts = urlsplit(self.public_base_url)
            origins.append(f"{parts.scheme}://{parts.netloc}")
        origins += [origin.rstrip("/") for origin in self.allowed_origins]
        return origins
