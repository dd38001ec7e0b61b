"""``cardarena wait``: wait until gRPC services (bots, the Arena) answer, for scripts that start them in the background."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from cli.common import console, fail

#: Default seconds to wait for every endpoint.
DEFAULT_WAIT_S = 60.0
#: Seconds between two tries at an endpoint that is not serving yet.
RETRY_S = 0.25


def serving(endpoint: str, timeout_s: float) -> str:
    """Wait up to ``timeout_s`` seconds for ``endpoint`` ("host:port") to answer the gRPC health check
    (``grpc.health.v1``, overall server) with SERVING; returns "" once it does, else the last reason
    (one line). Never raises for what the endpoint does."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    end = time.monotonic() + timeout_s
    reason = "no answer"
    with grpc.insecure_channel(endpoint) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return reason
            try:
                answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=left, wait_for_ready=True)
            except grpc.RpcError as exc:
                code = exc.code() if hasattr(exc, "code") else None
                if code == grpc.StatusCode.UNIMPLEMENTED:
                    return "it answers but serves no grpc.health.v1.Health service"
                reason = f"{code.name if code else 'UNKNOWN'}: {exc.details() if hasattr(exc, 'details') else exc}"
            else:
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return ""
                reason = f"health status {health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)}"
            time.sleep(min(RETRY_S, max(0.0, end - time.monotonic())))


def wait(
    endpoints: Annotated[list[str], typer.Argument(
        help="HOST:PORT of each gRPC service to wait for: a bot (`bot serve`), the Arena (`server`, port 50050).")],
    timeout: Annotated[float, typer.Option(help="Seconds to wait for all of them.", min=0)] = DEFAULT_WAIT_S,
) -> None:
    """Wait until every ENDPOINT answers its gRPC health check with SERVING (at most --timeout seconds in all).

    For scripts that start `cardarena server` or `cardarena bot serve` in the background: the next
    command runs once they listen. Exit status 1 naming the endpoints that did not answer in time.
    """
    end = time.monotonic() + timeout
    late = []
    for endpoint in endpoints:
        reason = serving(endpoint, max(0.0, end - time.monotonic()))
        if reason:
            late.append(f"{endpoint} ({reason})")
    if late:
        fail(f"not serving after {timeout:g} s: {', '.join(late)}")
    console.print(f"serving: {', '.join(endpoints)}", highlight=False)
