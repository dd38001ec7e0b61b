"""Benchmarks: run with ``make bench`` (not part of the tests; figures are machine-dependent)."""
