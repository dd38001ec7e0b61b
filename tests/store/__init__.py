"""Tests of the store and the ratings, on SQLite and on PostgreSQL when one is reachable."""
