"""Output shapes shared by several tools."""

from __future__ import annotations

from pydantic import Field

from garage_tools.knowledge.schemas import DiyRisk, UsdRange
from garage_tools.models import OutputModel


class CostRange(OutputModel):
    """A typical installed price range (parts and labor)."""

    min: int = Field(description="Low end of the typical range.")
    max: int = Field(description="High end of the typical range.")
    currency: str = Field(default="USD", description="ISO 4217 currency code.")

    @classmethod
    def of(cls, usd: UsdRange, currency: str = "USD") -> CostRange:
        return cls(min=usd.min, max=usd.max, currency=currency)


class SourceLink(OutputModel):
    """Where a figure or fact comes from."""

    title: str
    url: str


DIY_RISK_DESCRIPTION = (
    "Whether a homeowner can safely do this: `safe`, `caution` (limited checks only) or "
    "`unsafe` (stop and call a professional)."
)

__all__ = ["DIY_RISK_DESCRIPTION", "LANG_PATTERN", "CostRange", "DiyRisk", "SourceLink"]


#: A language tag as a `lang` argument takes it (`es`, `es-MX`): only its first two letters are read.
LANG_PATTERN = r"^[A-Za-z]{2}(?:-[A-Za-z0-9]{1,8})?$"
