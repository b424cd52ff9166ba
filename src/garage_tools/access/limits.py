"""The table of the service's limits: every rate limit is one `Rule` here, each read from one setting, and the
plans that say which rules a key's calls count against, per client address or per key.

Adding a limit is one `Rule` in `RULES` plus its setting in `settings/limits.py` (a notation with a default);
the pages and docs that describe limits (`/developers`, `/ai`, `/llms.txt`, the guide) list every rule from
here (`access/limits_text.py`), and the code that counts it asks `Limits.policy(name)`. The counting itself
is `ratelimit.py`'s; the one door that applies a rule to a request is `access/policy.py` `Access`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import SimpleNamespace
from typing import Any

from garage_tools.access.caller import Tier
from garage_tools.access.ratelimit import Decision, Policy
from garage_tools.errors import RateLimited, ServiceError
from garage_tools.settings.limits import LimitSettings


class Per(StrEnum):
    """What a rule counts apart: each client address (an IPv6 /64), each key, each e-mail address."""

    ADDRESS = "client address"
    KEY = "key"
    EMAIL = "e-mail address"
    PLAN = "as the plan says"  # a plan's rule: counted per address or per key by the caller's plan


@dataclass(frozen=True, slots=True)
class Rule:
    """One rate limit: its name (the prefix of its windows in `RateLimit-Policy` and the metrics), the setting
    that holds its notation, what it counts (for people) and per what."""

    name: str
    setting: str
    what: str
    per: Per


#: Every rate limit of the service. Add a rule here and its setting in `settings/limits.py`.
RULES: tuple[Rule, ...] = (
    Rule("public", "rate_limit_public", "Tool calls", Per.PLAN),
    Rule("pro", "rate_limit_pro", "Tool calls", Per.PLAN),
    Rule("photos-public", "rate_limit_photos_public", "Photos the photo check analyses", Per.PLAN),
    Rule("photos-pro", "rate_limit_photos_pro", "Photos the photo check analyses", Per.PLAN),
    Rule("service-requests-public", "rate_limit_service_requests_public", "Service requests sent to pros", Per.PLAN),
    Rule("service-requests-pro", "rate_limit_service_requests_pro", "Service requests sent to pros", Per.PLAN),
    Rule("mcp", "rate_limit_mcp_protocol", "MCP handshakes and listings (tool calls count apart)", Per.ADDRESS),
    Rule("bad-keys", "rate_limit_bad_keys", "Invalid API keys sent (then keyed calls wait)", Per.ADDRESS),
    Rule("sign-in-ip", "rate_limit_sign_in_ip", "Sign-in links asked for (developers and partners)", Per.ADDRESS),
    Rule("sign-in-address", "rate_limit_sign_in_address", "Sign-in links mailed to one address", Per.EMAIL),
    Rule("oauth-register", "rate_limit_oauth_register", "AI apps registering to connect (OAuth)", Per.ADDRESS),
    Rule("oauth-authorize", "rate_limit_oauth_authorize", "AI apps asking to connect (OAuth)", Per.ADDRESS),
    Rule("oauth-token", "rate_limit_oauth_token", "Connected apps' token requests (OAuth)", Per.ADDRESS),
    Rule("pages", "rate_limit_pages", "Pages and health checks (every request but tool calls and files)", Per.ADDRESS),
    # Not here: questions to `ask` and `/v1/chat/completions` are tool calls (the plan's rule counts them), and a
    # service request's limit per phone number or e-mail address is counted in the store, exactly, over 24 hours
    # (`GARAGE_TOOLS_REQUEST_LIMIT_PER_CONTACT`, partners/requests.py), since it must hold across restarts.
)


@dataclass(frozen=True, slots=True)
class Plan:
    """What a caller's tool calls count against: a rule for the calls, one per usage cap (cap name -> rule), and
    whether they count per client address or per key. `note` is the plan's price line, for people."""

    name: str
    label: str
    per: Per
    calls: str
    caps: Mapping[str, str] = field(default_factory=dict)
    note: str = ""


#: Callers without a key: per client address.
PUBLIC = Plan(
    "public",
    "Public (no key)",
    Per.ADDRESS,
    "public",
    {"photos": "photos-public", "service-requests": "service-requests-public"},
    "free, no sign-up",
)
#: The usage caps of a key's plan (the pro rules).
_PRO_CAPS = {"photos": "photos-pro", "service-requests": "service-requests-pro"}

#: The plans a key or a connected app may be on (`garage-tools keys plan`); the first is the usual default.
PLANS: tuple[Plan, ...] = (
    Plan("beta", "Beta key", Per.ADDRESS, "pro", _PRO_CAPS, "free during the beta; no payment card"),
    Plan("team", "Team key", Per.KEY, "pro", _PRO_CAPS, "by arrangement: each key has its own count"),
)


@dataclass(frozen=True, slots=True)
class UsageCap:
    """A cap on what one tool does for a caller (visualDiagnose: photos analysed), on top of the plan's
    general rate limits, which still count every call. Its numbers are the plan's rule for `name`.

    It counts uses, not attempts: the access gate reserves one unit with the call's other limits, in one atomic
    step (so the cap holds exactly under concurrency and across processes), and `invoke` gives it back when
    the call ends in an error that `counts` says used nothing. A call that never reached the tool is given
    back by the gate. The same on every surface.
    """

    name: str

    def counts(self, error: ServiceError) -> bool:
        """Whether a call that failed with `error` still used what the cap counts.

        Not when the request was refused (any 4xx: a bad argument or image, a missing key) or the work
        could not be done now (503: a model provider or another dependency is away, "send it again
        later"). Otherwise yes: a 502 `provider_bad_reply` means the model did look, and an unexpected
        500 may have come after it did.
        """
        return not (400 <= error.status < 500 or error.status == 503)


def _parse(rule: Rule, notation: object) -> Policy:
    """The rule's policy; a bad notation stops start-up with the setting's name (GARAGE_TOOLS_<SETTING>)."""
    try:
        return Policy.parse(rule.name, str(notation))
    except ValueError as exc:
        raise ValueError(f"GARAGE_TOOLS_{rule.setting.upper()}: {exc}") from None


class Limits:
    """The table in force: each rule's policy (from its setting), the plans, and which tools have a usage cap."""

    def __init__(
        self,
        settings: Any,
        caps: Mapping[str, UsageCap] | None = None,
        *,
        rules: tuple[Rule, ...] = RULES,
        plans: tuple[Plan, ...] = PLANS,
        default_plan: str | None = None,
    ) -> None:
        """`settings` holds each rule's notation under `Rule.setting` (ValueError on a bad one); `caps` maps a
        tool's name to its usage cap."""
        self.rules = rules
        self.plans = {plan.name: plan for plan in plans}
        self.public_plan = PUBLIC
        self._policies = {rule.name: _parse(rule, getattr(settings, rule.setting)) for rule in rules}
        name = default_plan if default_plan is not None else str(getattr(settings, "default_plan", plans[0].name))
        if name not in self.plans:
            raise ValueError(f"default_plan: no plan {name!r}; the plans are {', '.join(self.plans)}")
        self.default_plan = self.plans[name]
        self.caps = dict(caps or {})
        for plan in (PUBLIC, *plans):
            for rule in (plan.calls, *plan.caps.values()):
                self.policy(rule)  # a plan naming no rule of the table stops start-up
        self._calls: dict[tuple[str, str | None], tuple[tuple[Policy, ...], Policy | None]] = {}
        self.mcp_protocol = self.policy("mcp")
        self.auth_failures = self.policy("bad-keys")

    @classmethod
    def defaults(cls, caps: Mapping[str, UsageCap] | None = None) -> Limits:
        """The table with every setting at its default (what the docs show; parts built without settings)."""
        fields = LimitSettings.model_fields
        return cls(SimpleNamespace(**{name: info.default for name, info in fields.items()}), caps)

    def policy(self, rule: str) -> Policy:
        """The policy of rule `rule` (KeyError names a rule missing from the table)."""
        try:
            return self._policies[rule]
        except KeyError:
            raise KeyError(f"no rate-limit rule {rule!r} in access/limits.py RULES") from None

    def rule(self, name: str) -> Rule:
        return next(rule for rule in self.rules if rule.name == name)

    def refusal(self, name: str, decision: Decision) -> RateLimited:
        """The 429 of rule `name` when `decision` found it full: what it counts, its limit, and the wait."""
        rule = self.rule(name)
        return RateLimited(
            f"Limit reached: {rule.what}, {self.policy(name).describe()} per {rule.per.value}. "
            f"Retry after {decision.retry_after} seconds.",
            headers=decision.header_fields(),
        )

    def plan(self, name: str | None, tier: Tier = Tier.PRO) -> Plan:
        """The plan a caller is on: none for the public tier; a key's own, or the default for none or an unknown one."""
        if tier is Tier.PUBLIC:
            return PUBLIC
        return self.plans.get(name or "", self.default_plan) if name else self.default_plan

    def for_call(self, plan: str, tool: str | None) -> tuple[tuple[Policy, ...], Policy | None]:
        """What a call of `tool` counts against on the plan named `plan` (a `Caller.plan`): the calls' rule and
        the tool's cap (to be reserved), if any. Cached: this runs on every tool call."""
        key = (plan, tool)
        found = self._calls.get(key)
        if found is None:
            on = PUBLIC if plan == PUBLIC.name else self.plans.get(plan, self.default_plan)
            general = self.policy(on.calls)
            cap = self.cap_of(on, tool)
            found = ((general, cap) if cap is not None else (general,), cap)
            if len(self._calls) < 4096:  # tools are few; unknown names are not kept
                self._calls[key] = found
        return found

    def cap_of(self, plan: Plan, tool: str | None) -> Policy | None:
        """The tool's usage cap on `plan`, if it declares one."""
        cap = self.caps.get(tool) if tool is not None else None
        rule = plan.caps.get(cap.name) if cap is not None else None
        return self.policy(rule) if rule is not None else None
