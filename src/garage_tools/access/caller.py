"""Who is calling, worked out once per request by the access gate and read by every surface."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from garage_tools.errors import ServiceError
from garage_tools.values import value

if TYPE_CHECKING:
    from garage_tools.access.ratelimit import Reservation

#: The surfaces that deliver a result's images as MCP image content blocks (the gate names callers by endpoint).
MCP_SURFACES = frozenset({"mcp", "mcp-pro"})


class Tier(StrEnum):
    PUBLIC = "public"
    PRO = "pro"


@value
class Caller:
    """The caller as the gate established it: tier, surface, client address and key.

    `credential_error` is set when a bearer was presented but could not be accepted (invalid,
    revoked, or the key store unreachable). REST and `/mcp-pro` refuse such a request at once;
    public `/mcp` carries it to the tool call, so connectors see a tool error rather than an HTTP
    401 that would send them into an OAuth flow. Either way a bad key is never a silent downgrade.

    `reservation` holds what the gate took from the called tool's usage cap (`access/limits.py` `UsageCap`)
    for this call: `invoke` keeps it or gives it back once the tool's outcome is known, and the gate
    gives back whatever is still unsettled when the request is done (the tool never ran).
    """

    tier: Tier
    surface: str
    ip: str | None = None
    key_id: str | None = None
    origin: str | None = None
    credential_error: ServiceError | None = None
    partition: str = ""  # the rate-limit bucket: tier and address (an IPv6 /64), or the key, set by the gate
    plan: str = "public"  # the name of the plan its calls count against (`access/limits.py` `PLANS`)
    reservation: Reservation | None = None  # the usage-cap units this call holds, set by the gate

    @classmethod
    def anonymous(cls, surface: str, ip: str | None = None) -> Caller:
        return cls(tier=Tier.PUBLIC, surface=surface, ip=ip, partition=f"public:{ip}")

    @property
    def takes_image_blocks(self) -> bool:
        """Whether images in this caller's results reach it as image content (MCP), not as JSON it must read."""
        return self.surface in MCP_SURFACES

    def refuse_bad_credential(self) -> None:
        """Refuse a bearer that was presented but not accepted, with its own error (invalid or revoked key,
        key store down, too many bad keys): never a silent downgrade to the public tier. The gates apply it
        at the door (on public `/mcp`, at the tool call) and `invoke` for every caller."""
        if self.credential_error is not None:
            raise self.credential_error

    @property
    def has_bearer(self) -> bool:
        """A bearer credential was presented (valid or not): such callers skip the browser challenge."""
        return self.key_id is not None or self.credential_error is not None
