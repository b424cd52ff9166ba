"""A key's calls per day for the last 30 days as a small bar chart the server draws (SVG, no script), with the
same numbers as a table for those who cannot see it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

WIDTH = 300.0  # the drawing's own units (viewBox); the page scales it to its column
HEIGHT = 60.0
GAP = 2.0
FLOOR = 1.0  # a day without calls still shows a line, so the days read as a row


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    day: date
    calls: int


@dataclass(frozen=True, slots=True)
class UsageChart:
    days: tuple[tuple[date, int], ...]
    bars: tuple[Bar, ...]
    total: int
    peak: int
    width: float = WIDTH
    height: float = HEIGHT

    @property
    def summary(self) -> str:
        """What the chart shows, in words (its SVG description)."""
        if not self.total:
            return f"No calls from {self.days[0][0]:%b %-d} to {self.days[-1][0]:%b %-d}."
        busiest = max(self.days, key=lambda item: item[1])
        return (
            f"{self.total:,} calls from {self.days[0][0]:%b %-d} to {self.days[-1][0]:%b %-d}; "
            f"the most on {busiest[0]:%b %-d}: {busiest[1]:,}."
        )


def usage_chart(days: list[tuple[date, int]]) -> UsageChart:
    """The bars of `days` (oldest first), scaled to the busiest day."""
    peak = max((calls for _, calls in days), default=0)
    step = WIDTH / max(len(days), 1)
    bars = []
    for index, (day, calls) in enumerate(days):
        height = max(FLOOR, calls / peak * HEIGHT) if peak else FLOOR
        bars.append(
            Bar(round(index * step, 2), round(HEIGHT - height, 2), round(step - GAP, 2), round(height, 2), day, calls)
        )
    return UsageChart(tuple(days), tuple(bars), sum(calls for _, calls in days), peak)
