"""Which time zone a US place's times read in: the state's main zone (`time_zones.json`).

Times are stored in UTC; people read them in their own zone. A state split between zones takes the zone most
of its people live in, so a time near a zone line may read an hour off: a request's pages also name the zone.
"""

from __future__ import annotations

import functools
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, field_validator

from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError, read_data_file
from garage_tools.knowledge.schemas import DataModel


def _zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"not a time zone: {name!r}") from exc
    return name


class TimeZoneTable(DataModel):
    """Each state's (or territory's) main IANA time zone, and one for a state the table lacks."""

    about: str | None = None
    default: str = Field(description="The zone of a state the table does not name.")
    states: dict[str, str] = Field(description="Two-letter state code → IANA zone name (America/Denver).")

    @field_validator("default")
    @classmethod
    def _default(cls, value: str) -> str:
        return _zone(value)

    @field_validator("states")
    @classmethod
    def _states(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value.values():
            _zone(name)
        return value

    def of_state(self, state: str) -> ZoneInfo:
        return ZoneInfo(self.states.get(state.upper(), self.default))


TIME_ZONE_FILES: dict[str, type[BaseModel]] = {"time_zones.json": TimeZoneTable}


@functools.cache
def time_zones(directory: Path = DATA_DIR) -> TimeZoneTable:
    """The table, read and checked once per process."""
    table = read_data_file(directory / "time_zones.json", TimeZoneTable)
    if not table.states:
        raise KnowledgeError("time_zones.json names no state")
    return table
