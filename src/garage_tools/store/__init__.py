"""Persistence: SQLAlchemy 2 (async) models, repositories and Alembic migrations."""
