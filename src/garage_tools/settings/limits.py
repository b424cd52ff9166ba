"""The rate-limit settings: one notation per rule of `access/limits.py`'s table, the default plan, and how
often the per-key usage counters are written.

Each field is named in the table (`Rule.setting`), so a rule and the setting that overrides it are declared
together; the defaults here are what the docs and pages show when nothing is set. Notation: the `limits`
package's, `N/period;N/period` (`60/minute;2000/day`, `3 per 15 minutes`).
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings


class LimitSettings(BaseSettings):
    """`GARAGE_TOOLS_RATE_LIMIT_*`, `GARAGE_TOOLS_DEFAULT_PLAN`, `GARAGE_TOOLS_USAGE_FLUSH_SECONDS`; a group of
    `Settings`, never built on its own."""

    rate_limit_public: str = Field(
        default="60/minute;2000/day",
        description="Tool calls per client IP on the public tier, in the `limits` notation (`N/period;...`).",
    )
    rate_limit_pro: str = Field(
        default="240/minute;10000/day",
        description="Tool calls with an API key, per client IP on an address plan (beta) or per key on a key plan.",
    )
    rate_limit_photos_public: str = Field(
        default="20/day", description="Photos the photo check (visualDiagnose) analyses per client IP without a key."
    )
    rate_limit_photos_pro: str = Field(
        default="100/day", description="Photos the photo check analyses with an API key (counted as its plan says)."
    )
    rate_limit_service_requests_public: str = Field(
        default="10/day", description="Service requests (requestService) sent per client IP without a key."
    )
    rate_limit_service_requests_pro: str = Field(
        default="200/day", description="Service requests sent with an API key (counted as its plan says)."
    )
    rate_limit_mcp_protocol: str = Field(
        default="600/minute",
        description="MCP handshakes and listings (initialize, tools/list, ping) per client IP; tool calls count apart.",
    )
    rate_limit_bad_keys: str = Field(
        default="20/minute",
        description="Invalid API keys an address may send before its keyed calls get 429 (forged-key floods).",
    )
    rate_limit_sign_in_ip: str = Field(
        default="10/hour", description="Sign-in links (developer portal and partner console) asked for per client IP."
    )
    rate_limit_sign_in_address: str = Field(
        default="3 per 15 minutes", description="Sign-in links mailed to one e-mail address."
    )
    rate_limit_oauth_register: str = Field(
        default="20/hour", description="OAuth client registrations (`POST /register`) per client IP."
    )
    rate_limit_oauth_authorize: str = Field(
        default="60/minute", description="OAuth authorization requests (`GET /authorize`) per client IP."
    )
    rate_limit_oauth_token: str = Field(
        default="300/minute", description="OAuth token requests (`POST /token`: codes and refreshes) per client IP."
    )
    rate_limit_pages: str = Field(
        default="1200/minute",
        description="Every request that is not a tool call or a static file (pages, sign-in, OAuth, `/healthz`) per "
        "client IP: a ceiling for floods, above what a household or an office behind one address opens.",
    )
    default_plan: str = Field(
        default="beta",
        description="The plan of every API key and connected app that has none of its own (`garage-tools keys plan`).",
    )
    usage_flush_seconds: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="How often each process writes its per-key call counts (the dashboard's chart) to the store.",
    )
