"""The ``cardarena`` command line (Typer)."""

from botsdk.runtime import configure_grpc

configure_grpc()  # before any module of this package imports grpc (botsdk.runtime)
