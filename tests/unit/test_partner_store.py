"""The partner directory through the store, on SQLite and PostgreSQL: seeding, replacing, refreshing, leads and
referrals."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.knowledge.directory import load_sample_partners
from garage_tools.partners.directory import PartnerDirectory
from garage_tools.partners.referrals import ReferralRecorder
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from garage_tools.store.partners import DirectoryRows, Lead, PartnerRepository
from garage_tools.store.referrals import NewReferral, ReferralRepository
from tests.polling import eventually, eventually_async
from tests.scratch_postgres import UPSTREAM, scratch_database, service_url
from tests.tcp_proxy import tcp_proxy
from tests.unit.partner_data import partner, promotion


def referral(partner_id: str | None, caller: str = "caller") -> NewReferral:
    return NewReferral(
        datetime.now(UTC),
        partner_id,
        partner_id is not None,
        "84770",
        "wont_close",
        "16x7",
        "hot",
        "routing",
        "rest",
        caller,
    )


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lead(partner_id: str | None, heat: str | None = "hot", at: datetime | None = None) -> Lead:
    return Lead(
        created_at=at or datetime.now(UTC),
        partner_id=partner_id,
        covered=partner_id is not None,
        zip="84770",
        issue="wont_close",
        door_size="16x7",
        lead_heat=heat,
        surface="rest",
    )


async def test_a_fresh_store_is_seeded_once_with_the_samples(database: Database) -> None:
    repository = PartnerRepository(database)
    assert await repository.version() == 0
    directories = [PartnerDirectory(PartnerRepository(database)) for _ in range(3)]
    snapshots = await asyncio.gather(*(d.current() for d in directories))  # several processes starting at once
    samples = load_sample_partners().partners
    assert {s.version for s in snapshots} == {1}
    assert all(len(s.index) == len(samples) for s in snapshots)
    assert len((await repository.load()).partners) == len(samples)  # inserted once
    assert len(snapshots[0].promotions) > 0
    assert await directories[0].seed_if_new() is False


async def test_an_import_before_first_start_means_no_samples(database: Database) -> None:
    repository = PartnerRepository(database)
    await repository.replace_partners([partner("only", zips=["84770"])])
    snapshot = await PartnerDirectory(repository).current()
    assert list(snapshot.index.listings) == ["only"] and snapshot.promotions == ()


async def test_replacing_partners_keeps_the_promotions_of_those_who_stay(database: Database) -> None:
    repository = PartnerRepository(database)
    await repository.replace_partners([partner("stays", zips=["84770"]), partner("goes", zips=["84101"])])
    await repository.replace_promotions([promotion("p1", "stays"), promotion("p2", "goes"), promotion("p3", "goes")])
    before = await repository.version()
    changed = partner("stays", zips=["84770", "84771"], displayName="Stays Renamed")
    done = await repository.replace_partners([changed, partner("new", zips=["84601"])])
    assert (done.added, done.updated, done.removed, done.promotions_removed) == (1, 1, 1, 2)
    assert done.version == before + 1
    rows = await repository.load()
    assert [p.id for p in rows.partners] == ["new", "stays"]
    assert rows.partners[1] == changed
    assert [p.id for p in rows.promotions] == ["p1"]


async def test_records_come_back_exactly_as_stored(database: Database) -> None:
    repository = PartnerRepository(database)
    records = list(load_sample_partners().partners)
    await repository.replace_partners(records)
    assert (await repository.load()).partners == sorted(records, key=lambda p: p.id)


async def test_a_running_directory_sees_an_import_within_its_refresh_interval(database: Database) -> None:
    clock = Clock()
    serving = PartnerDirectory(PartnerRepository(database), refresh_seconds=5, clock=clock)
    first = await serving.current()
    assert first.version == 1 and first.index.get("red-rock-garage-doors") is not None

    await PartnerRepository(database).replace_partners([partner("replacement", zips=["84770"])])  # another process
    clock.now += 4
    assert (await serving.current()).version == 1  # not due yet: no check started
    await serving.settled()
    assert (await serving.current()).version == 1

    clock.now += 2
    assert (await serving.current()).version == 1  # due: the check runs in the background...
    await serving.settled()
    latest = await serving.current()  # ...and the next request routes on the new directory
    assert latest.version == 2 and list(latest.index.listings) == ["replacement"]


class CountingRepository(PartnerRepository):
    """The store as a directory reads it, counting the reads of the whole directory."""

    loads = 0

    async def load(self) -> DirectoryRows:
        self.loads += 1
        return await super().load()


async def test_a_warm_up_loads_the_directory_before_any_call_and_a_call_during_it_shares_it(
    database: Database,
) -> None:
    warmed_alone = CountingRepository(database)
    alone = PartnerDirectory(warmed_alone)
    alone.warm_up()

    async def loaded() -> int:  # the store is filled with the samples and read without any request asking
        return warmed_alone.loads

    await eventually_async(loaded, seconds=30, what="the warm-up to load the directory")
    await alone.settled()
    assert warmed_alone.loads == 1 and await warmed_alone.version() == 1
    assert (await alone.current()).version == 1 and warmed_alone.loads == 1  # the first call found it ready

    raced = CountingRepository(database)
    directory = PartnerDirectory(raced)
    directory.warm_up()
    first_call = await directory.current()  # arrives while the warm-up is still loading: waits for that load
    assert first_call.version == 1 and raced.loads == 1


async def test_a_warm_up_under_way_is_given_up_on_shutdown(database: Database) -> None:
    directory = PartnerDirectory(PartnerRepository(database))
    directory.warm_up()
    await directory.stop_warming()  # no error, and nothing left running
    assert (await directory.current()).version == 1  # a later first call still loads it


def test_a_starting_server_fills_and_reads_the_directory_before_its_first_request(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "var", mail_worker_in_process=False)
    with TestClient(create_app(settings)):

        def partners_stored() -> int:  # no request is made: the samples arrive in the store all the same
            with contextlib.closing(sqlite3.connect(tmp_path / "var" / "garage-tools.db")) as db:
                return int(db.execute("SELECT count(*) FROM partners").fetchone()[0])  # no table yet raises: not yet

        eventually(partners_stored, seconds=30, what="the directory to be loaded at start-up")


async def test_leads_are_tallied(database: Database) -> None:
    repository = PartnerRepository(database)
    long_ago = datetime.now(UTC) - timedelta(days=30)
    await repository.add_leads(
        [lead("a", "hot"), lead("a", "warm"), lead("a", None), lead("b", "cold"), lead(None, "hot", long_ago)]
    )
    tallies = {t.partner_id: t for t in await repository.lead_tallies()}
    assert (tallies["a"].total, tallies["a"].hot, tallies["a"].warm, tallies["a"].cold) == (3, 1, 1, 0)
    assert tallies["b"].cold == 1 and tallies[None].total == 1
    recent = await repository.lead_tallies(datetime.now(UTC) - timedelta(days=1))
    assert {t.partner_id for t in recent} == {"a", "b"}
    stored = await repository.leads()
    assert stored[0].door_size == "16x7" and stored[0].issue == "wont_close" and stored[0].surface == "rest"


async def test_referrals_are_written_in_the_background_once_per_caller(database: Database) -> None:
    repository = ReferralRepository(database)
    recorder = ReferralRecorder(repository)
    for item in [referral("a"), referral("a"), referral("a", "another"), referral("b"), referral(None)]:
        recorder.record(item)
    await recorder.flush()
    assert recorder.pending == 0
    stored = await repository.all()
    assert sorted((r.partner_id or "", r.caller) for r in stored) == [
        ("", "caller"),
        ("a", "another"),
        ("a", "caller"),
        ("b", "caller"),
    ]


@pytest.mark.postgres
async def test_referrals_wait_out_a_store_outage() -> None:
    async with scratch_database() as name:
        with tcp_proxy(UPSTREAM) as proxy:
            database = Database(service_url(name, port=proxy.port))
            try:
                await database.migrate()
                repository = ReferralRepository(database)
                recorder = ReferralRecorder(repository, first_retry_seconds=0.05, max_retry_seconds=0.1, max_pending=3)
                proxy.cut()
                for number in range(5):
                    recorder.record(referral(f"p{number}"))  # returns at once, store or no store
                # A sleep on purpose: the outage itself must last while the writer retries through it (every
                # 0.05-0.1 s), and what it holds must stay bounded all the while.
                await asyncio.sleep(0.3)
                assert recorder.pending == 3 and recorder.dropped == 2  # bounded: the oldest went
                proxy.restore()
                # Up to 60 s, past a statement timeout: CI's PostgreSQL leg is busy.

                async def written() -> list[str]:
                    return [item.partner_id or "" for item in await repository.all()]

                stored = await eventually_async(written, seconds=60, what="the waiting referrals to be written")
                assert stored == ["p2", "p3", "p4"], "the waiting referrals were not written once the store came back"

                async def settled() -> bool:  # the writer counts the batch done when it resumes after the commit
                    return recorder.pending == 0

                await eventually_async(settled, seconds=1, every=0.01, what="the written batch to be counted done")
            finally:
                await database.dispose()
