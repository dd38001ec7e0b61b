"""rummy's protocol messages (moved from the platform's protocol tests)."""

from __future__ import annotations

from cardarena.v1 import rummy_pb2


def test_fields_whose_absence_means_none_have_presence() -> None:
    """Seat-valued fields that can be "none", the take-it limits and a lay-off's meld are proto3 optional."""
    for message, name in ((rummy_pb2.RummyView, "take_it_limit"), (rummy_pb2.RummyView, "take_its_left"),
                          (rummy_pb2.RummyLayOff, "meld_id"),):
        assert message.DESCRIPTOR.fields_by_name[name].has_presence, f"{message.DESCRIPTOR.name}.{name}"
