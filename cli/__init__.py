"""The ``cardarena`` command line (Typer)."""
