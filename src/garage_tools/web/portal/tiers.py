"""What each tier gives, as the portal's table shows it: read from the limits in force and the registry,
so the page never drifts from what the gate counts."""

from __future__ import annotations

from dataclasses import dataclass

from garage_tools.access.caller import Tier
from garage_tools.access.limits import Limits
from garage_tools.registry import AuthPolicy, Registry


@dataclass(frozen=True, slots=True)
class TierRow:
    what: str
    public: str
    pro: str


def describe_tiers(limits: Limits, registry: Registry) -> list[TierRow]:
    """The rows of the tier table: the general limits, each tool's cap, the tools that need a key, the price."""
    rows = [TierRow("Tool calls, per client IP", limits.public.describe(), limits.pro.describe())]
    for tool in registry:
        public, pro = limits.cap_of(Tier.PUBLIC, tool.name), limits.cap_of(Tier.PRO, tool.name)
        if tool.usage_cap is not None and public is not None and pro is not None:
            what = f"{tool.name} ({tool.usage_cap.name}), per client IP"
            rows.append(TierRow(what, public.describe(), pro.describe()))
    keyed = [tool.name for tool in registry if tool.auth is AuthPolicy.BEARER]
    if keyed:
        rows.append(TierRow(f"Needs a key: {', '.join(keyed)}", "not available (401)", "included"))
    rows.append(TierRow("Price", "free, no sign-up", "free during the beta; no payment card"))
    return rows
