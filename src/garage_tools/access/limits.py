"""The service's rate limits: each tier's windows, and the caps some tools put on what they do for a caller.

The counting itself is `ratelimit.py`'s; this module says what is counted. The limits come from the
settings (tiers) and from the tools' declarations (caps), and the portal, the agent guide and the 429
message all describe them with `Policy.describe`, so a changed limit reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from garage_tools.access.caller import Tier
from garage_tools.access.ratelimit import Policy
from garage_tools.errors import ServiceError


@dataclass(frozen=True, slots=True)
class UsageCap:
    """A cap on what one tool does for a caller (visualDiagnose: photos analysed), on top of the tier's
    general rate limits, which still count every call.

    `public` and `pro` are in the `limits` package's notation, e.g. `20/day`. It counts uses, not
    attempts: the access gate reserves one unit with the call's other limits, in one atomic step (so
    the cap holds exactly under concurrency and across processes), and `invoke` gives it back when the
    call ends in an error that `counts` says used nothing. A call that never reached the tool is given
    back by the gate. The same on every surface.
    """

    name: str
    public: str
    pro: str

    def counts(self, error: ServiceError) -> bool:
        """Whether a call that failed with `error` still used what the cap counts.

        Not when the request was refused (any 4xx: a bad argument or image, a missing key) or the work
        could not be done now (503: a model provider or another dependency is away, "send it again
        later"). Otherwise yes: a 502 `provider_bad_reply` means the model did look, and an unexpected
        500 may have come after it did.
        """
        return not (400 <= error.status < 500 or error.status == 503)


@dataclass(frozen=True)
class Limits:
    """The rate-limit policies of each tier, and the usage caps of the tools that declare one, by tool name."""

    public: Policy
    pro: Policy
    mcp_protocol: Policy
    auth_failures: Policy
    tool_caps: dict[tuple[str, Tier], Policy]

    @classmethod
    def build(
        cls, caps: Mapping[str, UsageCap], *, public: str, pro: str, mcp_protocol: str, auth_failures: str
    ) -> Limits:
        """The limits from the settings' notations and the tools' caps (tool name -> its cap)."""
        tool_caps: dict[tuple[str, Tier], Policy] = {}
        for tool, cap in caps.items():
            tool_caps[tool, Tier.PUBLIC] = Policy.parse(f"{cap.name}-public", cap.public)
            tool_caps[tool, Tier.PRO] = Policy.parse(f"{cap.name}-pro", cap.pro)
        return cls(
            public=Policy.parse("public", public),
            pro=Policy.parse("pro", pro),
            mcp_protocol=Policy.parse("mcp", mcp_protocol),
            auth_failures=Policy.parse("bad-keys", auth_failures),
            tool_caps=tool_caps,
        )

    def for_call(self, tier: Tier, tool: str | None) -> tuple[Policy, ...]:
        """What a call of `tool` counts against: the tier's limits, and the tool's cap when it has one."""
        general = self.pro if tier is Tier.PRO else self.public
        if (cap := self.cap_of(tier, tool)) is not None:
            return (general, cap)
        return (general,)

    def cap_of(self, tier: Tier, tool: str | None) -> Policy | None:
        """The tool's usage cap for `tier`, if it declares one."""
        return self.tool_caps.get((tool, tier)) if tool is not None else None
