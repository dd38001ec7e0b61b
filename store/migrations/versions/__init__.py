"""Alembic revision scripts (a package so that they ship in the wheel)."""
