"""Local price factors: how a garage door job costs here compared with the national ranges.

`data/regional_prices.json` holds one factor per state (the BEA's Regional Price Parities) and a few
metro areas with a figure of their own (keyed by three-digit ZIP prefix). A ZIP code takes its metro's
factor when it has one, otherwise its state's, so every ZIP code of the 50 states and DC has a local
price. Each row carries its source, year and confidence, and the answer repeats them: people see how
sure the figure is.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from garage_tools.knowledge.places import STATES, Gazetteer
from garage_tools.knowledge.schemas import Confidence, DataModel, Source, Text

ZIP_PREFIX_RANGE = r"^[0-9]{3}(?:-[0-9]{3})?$"
SourceKey = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")]
Year = Annotated[int, Field(ge=2000, le=2100)]

#: States and DC: every ZIP code in them must get a factor. Territories have no RPP.
COVERED_STATES = frozenset(STATES) - {"PR", "VI", "GU", "AS", "MP"}


class StateFactor(DataModel):
    """One state's price level: the BEA Regional Price Parity (US = 100) for one year."""

    state: Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$")]
    rpp: float = Field(gt=50, lt=200, description="Regional Price Parity, all items (US average = 100).")
    year: Year
    source: SourceKey = Field(description="A key of `sources`.")
    confidence: Confidence


class MetroFactor(DataModel):
    """A metro area with its own factor, by the first three digits of its ZIP codes."""

    name: Text
    zip_prefixes: list[Annotated[str, StringConstraints(pattern=ZIP_PREFIX_RANGE)]] = Field(
        alias="zipPrefixes", min_length=1, description="Three-digit ZIP prefixes or inclusive ranges like 100-104."
    )
    multiplier: float = Field(gt=0.5, lt=2.0)
    year: Year
    confidence: Confidence
    sources: list[SourceKey] = Field(min_length=1, description="Keys of `sources`.")

    def prefixes(self) -> set[str]:
        found: set[str] = set()
        for item in self.zip_prefixes:
            low, _, high = item.partition("-")
            for number in range(int(low), int(high or low) + 1):
                found.add(f"{number:03d}")
        return found


class RegionalPrices(DataModel):
    """`data/regional_prices.json`."""

    about: Text
    method: Text = Field(description="How a factor is chosen and what it rests on, in plain words.")
    sources: dict[SourceKey, Source]
    states: list[StateFactor]
    metros: list[MetroFactor]

    @model_validator(mode="after")
    def _consistent(self) -> RegionalPrices:
        codes = [row.state for row in self.states]
        unknown = sorted(set(codes) - set(STATES))
        missing = sorted(COVERED_STATES - set(codes))
        if unknown or missing or len(codes) != len(set(codes)):
            raise ValueError(f"states: unknown {unknown}, missing {missing}, or listed twice")
        named = {row.source for row in self.states} | {key for metro in self.metros for key in metro.sources}
        if named - set(self.sources):
            raise ValueError(f"sources not listed under `sources`: {sorted(named - set(self.sources))}")
        seen: dict[str, str] = {}
        for metro in self.metros:
            for prefix in metro.prefixes():
                if prefix in seen:
                    raise ValueError(f"ZIP prefix {prefix} is in both {seen[prefix]!r} and {metro.name!r}")
                seen[prefix] = metro.name
        return self

    @cached_property
    def by_prefix(self) -> dict[str, MetroFactor]:
        return {prefix: metro for metro in self.metros for prefix in metro.prefixes()}

    @cached_property
    def by_state(self) -> dict[str, StateFactor]:
        return {row.state: row for row in self.states}


class FactorKind(StrEnum):
    METRO = "metro"
    STATE = "state"


@dataclass(frozen=True, slots=True)
class LocalFactor:
    """What a ZIP code's price is multiplied by, and what that rests on."""

    kind: FactorKind
    area: str  # "Utah", "New York City"
    state: str | None
    place: str | None  # the ZIP code's own town, "Saint George, UT", when the data set has it
    multiplier: float
    year: int
    confidence: Confidence
    sources: tuple[Source, ...]


def local_factor(prices: RegionalPrices, places: Gazetteer, code: str) -> LocalFactor | None:
    """The factor for a five-digit ZIP code: its metro's, else its state's; None outside the 50 states and DC."""
    found = places.zip_place(code)
    place = found.label if found else None
    metro = prices.by_prefix.get(code[:3])
    state = found.state if found else places.prefix_state(code[:3])
    if metro is not None:
        return LocalFactor(
            FactorKind.METRO,
            metro.name,
            state,
            place,
            metro.multiplier,
            metro.year,
            metro.confidence,
            tuple(prices.sources[key] for key in metro.sources),
        )
    row = prices.by_state.get(state or "")
    if row is None:
        return None
    return LocalFactor(
        FactorKind.STATE,
        STATES[row.state],
        row.state,
        place,
        round(row.rpp / 100, 3),
        row.year,
        row.confidence,
        (prices.sources[row.source],),
    )
