"""The declarative base every table shares, with stable constraint names."""

from __future__ import annotations

from sqlalchemy import (
    MetaData,
)
from sqlalchemy.orm import DeclarativeBase

# Stable constraint names, so migrations behave the same on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
