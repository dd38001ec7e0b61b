"""Alembic migrations of the store (a package so that it ships in the wheel)."""
