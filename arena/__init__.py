"""The Arena: where bots enter the platform (register, update, retire; public standings).

- :mod:`arena.registry`: every rule of bot submission (names, the network policy, the
  entry checks of ``league.entry.checks``, tokens, the rate limit), over the store.
- :mod:`arena.service`: the gRPC service ``cardarena.v1.Arena`` (``arena.proto``).
- :mod:`arena.http`: the same operations over HTTP under ``/api/v1/arena``.

The two front doors only translate requests and errors. ``cardarena server`` serves both
beside the dashboard, which only reads (docs/design.md, *Layers*; arena/README.md).
"""

from botsdk.runtime import configure_grpc

configure_grpc()  # before any module of this package imports grpc (botsdk.runtime)
