"""svara's protocol messages (moved from the platform's protocol tests)."""

from __future__ import annotations

from cardarena.v1 import svara_pb2


def test_fields_whose_absence_means_none_have_presence() -> None:
    """Seat-valued fields that can be "none", the take-it limits and a lay-off's meld are proto3 optional."""
    for message, name in ((svara_pb2.SvaraView, "dealer"), (svara_pb2.SvaraView, "proposer"),):
        assert message.DESCRIPTOR.fields_by_name[name].has_presence, f"{message.DESCRIPTOR.name}.{name}"
