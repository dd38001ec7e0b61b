"""The network policy holds at play time too, not only at registration (no DNS rebinding)."""

from __future__ import annotations

from referee.clients import GrpcBotClient, UnreachableBotClient
from referee.record import FaultKind
from workers import service


def test_an_allowed_endpoint_is_dialled_at_its_checked_address() -> None:
    client = service.client_for("localhost:50999")
    assert isinstance(client, GrpcBotClient) and client.endpoint in ("127.0.0.1:50999", "[::1]:50999")


def test_a_refused_endpoint_plays_as_unreachable(monkeypatch) -> None:
    from league.entry.netpolicy import NetworkPolicy

    monkeypatch.setattr(service, "_policy", lambda: NetworkPolicy.from_strings("private", "loopback"))
    client = service.client_for("127.0.0.1:50999")
    assert isinstance(client, UnreachableBotClient) and "refused by the network policy" in client.reason
    try:
        client.call(None, 1.0)  # type: ignore[arg-type]
    except Exception as exc:
        assert getattr(exc, "kind", None) is FaultKind.UNREACHABLE
    else:
        raise AssertionError("an unreachable client answered")


def test_a_malformed_endpoint_plays_as_unreachable() -> None:
    assert isinstance(service.client_for("not an endpoint"), UnreachableBotClient)
