"""Per-key usage counts (added up in memory, written in batches, added to by several processes) and plans on
keys, on SQLite and PostgreSQL; the chart the dashboard draws from them."""

from __future__ import annotations

from datetime import date, timedelta

from garage_tools.access.credentials import authenticate
from garage_tools.access.keys import KeyCache, KeyService
from garage_tools.access.usage import DAY, UsageCounter
from garage_tools.store.api_keys import ApiKeyRepository
from garage_tools.store.database import Database
from garage_tools.store.usage import UsageRepository
from garage_tools.web.portal.usage_chart import HEIGHT, usage_chart

NOON = 20_000 * DAY + 12 * 3600  # 2024-10-04 12:00 UTC


class Seconds:
    """A wall clock in seconds that tests move by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def test_counts_are_written_in_batches_and_add_up_across_processes_and_days(database: Database) -> None:
    clock = Seconds(NOON)
    one, two = (UsageCounter(UsageRepository(database), 3600, clock) for _ in range(2))
    for _ in range(3):
        one.note("keyA")
    two.note("keyA")
    two.note("keyB")
    today = one.today()
    assert (await one.daily(["keyA"], 2))["keyA"] == [(today - timedelta(days=1), 0), (today, 3)]  # pending only
    await one.flush()
    await two.flush()
    await one.flush()  # nothing pending: writes nothing, doubles nothing
    clock.now += DAY
    one.note("keyA")
    await one.flush()
    fresh = UsageCounter(UsageRepository(database), 3600, clock)  # as after a restart
    days = await fresh.daily(["keyA", "keyB", "keyC"], 30)
    assert len(days["keyA"]) == 30 and days["keyA"][-1] == (today + timedelta(days=1), 1)
    assert days["keyA"][-2] == (today, 4) and days["keyB"][-2] == (today, 1)
    assert sum(calls for _, calls in days["keyC"]) == 0


async def test_close_writes_what_is_pending(database: Database) -> None:
    counter = UsageCounter(UsageRepository(database), 3600, Seconds(NOON))
    counter.start()
    counter.note("keyZ")
    await counter.close()
    assert (await UsageRepository(database).daily(["keyZ"], date(2024, 1, 1)))["keyZ"] == {counter.today(): 1}


async def test_a_plan_change_reaches_the_credentials_past_the_cache(database: Database) -> None:
    clock = Seconds(100.0)
    keys = KeyService(ApiKeyRepository(database), KeyCache(ttl=5, clock=clock))
    other_process = KeyService(ApiKeyRepository(database), KeyCache(ttl=5, clock=clock))
    issued = await keys.issue("dev@example.com")
    header = [f"Bearer {issued.plaintext}"]
    assert (await authenticate(header, other_process)).plan is None  # the default plan
    assert (await keys.set_plan(issued.record.id, "team")) is not None
    assert (await authenticate(header, keys)).plan == "team"  # this process: at once
    assert (await authenticate(header, other_process)).plan is None  # another: its cache, for at most its ttl
    clock.now += 5.1
    assert (await authenticate(header, other_process)).plan == "team"
    assert await keys.set_plan("nosuchkey00", "team") is None


def test_the_chart_scales_to_the_busiest_day_and_says_so_in_words() -> None:
    first = date(2026, 10, 29)
    days = [(first + timedelta(days=n), calls) for n, calls in enumerate([0] * 27 + [5, 20, 10])]
    chart = usage_chart(days)
    assert len(chart.bars) == 30 and chart.total == 35 and chart.peak == 20
    tallest = max(chart.bars, key=lambda bar: bar.height)
    assert tallest.calls == 20 and tallest.y == 0 and tallest.height == HEIGHT
    assert all(bar.height >= 1 for bar in chart.bars)  # an empty day is still a visible line
    assert chart.bars[0].x == 0 and chart.bars[-1].x + chart.bars[-1].width <= chart.width
    assert chart.summary == "35 calls from Oct 29 to Nov 27; the most on Nov 26: 20."
    assert usage_chart([(first, 0)]).summary == "No calls from Oct 29 to Oct 29."
