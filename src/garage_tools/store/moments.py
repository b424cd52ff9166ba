"""Moments read back from the store: one rule for the whole store, since every table keeps UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def as_utc(moment: datetime) -> datetime:
    """`moment` as an aware UTC datetime. SQLite hands back naive datetimes even for timezone-aware columns;
    the service only ever stores UTC, so a naive one is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
