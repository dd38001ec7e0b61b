"""Regenerate the Python stubs of proto/cardarena/v1/*.proto in place.

Usage: python proto/generate.py [OUT_DIR]

Writes ``*_pb2.py``, ``*_pb2.pyi`` and ``*_pb2_grpc.py`` next to the .proto
files (or under OUT_DIR, mirroring ``cardarena/v1``). The protos are laid out
so that the generated imports (``from cardarena.v1 import ...``) need no
rewriting. Requires grpcio-tools (the ``dev`` extra).
"""

from __future__ import annotations

import sys
from pathlib import Path

from grpc_tools import protoc

PROTO_ROOT = Path(__file__).resolve().parent


def generate(out_dir: Path = PROTO_ROOT) -> None:
    """Run protoc on every .proto under cardarena/v1; raise RuntimeError on failure."""
    import grpc_tools

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / "cardarena" / "v1").glob("*.proto"))
    include = str(Path(grpc_tools.__file__).parent / "_proto")
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed: " + " ".join(args))


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else PROTO_ROOT)
