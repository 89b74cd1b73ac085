"""Alembic migrations: every schema change of the catalog database, for SQLite and PostgreSQL."""
