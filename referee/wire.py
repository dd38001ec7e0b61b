"""Views as protocol wire bytes, encoded once per decision and in amortised constant time.

Bots are stateless (DESIGN "one Act per decision"): every view carries the
whole public history of the game (the bets or moves of the deal, the melds
on the table), so encoding each view from scratch costs
time proportional to the game's length, and a game's encoding cost grows with
the square of its length. A :class:`ViewEncoder` keeps the bytes of the
history entries it has already encoded and encodes only the entries that are
new (or changed: a run laid off to) since the previous view; the other fields
of a view are small (a hand, per-seat counts), and their bytes are kept by
value, since most repeat from one view to the next.

The bytes are exactly those of ``encode_view(view).SerializeToString()`` (the
from-scratch encoding, :meth:`ViewCodec.message`): protobuf writes the fields
of a message in field-number order, each one's bytes those of a message
holding that field alone, and a repeated message field as one
``tag, length, bytes`` frame per entry; so the encoder joins each field's
bytes in field-number order.

A game's codec describes its view once as a :class:`ViewCodec`: the message
class, a function giving every field that is not history as keyword
arguments (a new field of the view is added there, and nowhere else), and the
:class:`History` fields. ``tests/games/test_view_wire.py`` checks the bytes
against the from-scratch encoding at every decision of many random games.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message


@dataclass(frozen=True)
class History:
    """A repeated message field of a view that grows along the game.

    ``name`` is the field's name in the view message, ``items`` gives the
    engine view's entries (a tuple of immutable values: equal entries encode
    to equal bytes), ``encode`` one entry as its protocol message.
    """

    name: str
    items: Callable[[Any], Sequence[Any]]
    encode: Callable[[Any], Message]


@dataclass(frozen=True)
class ViewCodec:
    """How one game's engine view becomes its protocol view message.

    ``message_type`` is the view message class (no oneofs, no maps);
    ``fields(view)`` gives every field but the ``history`` ones as keyword
    arguments of ``message_type``, each value hashable (tuples, not lists),
    and ``None`` for an ``optional`` field not set; ``convert`` maps a field
    name to the function making its protocol value from that hashable one
    (a message field from an engine dataclass).
    """

    message_type: type[Message]
    fields: Callable[[Any], dict[str, Any]]
    history: tuple[History, ...]
    convert: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)

    def message(self, view: Any) -> Message:
        """The whole view message, encoded from scratch (the reference for :class:`ViewEncoder`)."""
        kwargs = self.fields(view)
        for name, convert in self.convert.items():
            kwargs[name] = convert(kwargs[name])
        histories = {h.name: [h.encode(x) for x in h.items(view)] for h in self.history}
        return self.message_type(**kwargs, **histories)

    def encoder(self) -> ViewEncoder:
        """A new incremental encoder (one per game: it keeps that game's history)."""
        return ViewEncoder(self)


#: Distinct values of one field (or entries of one history field) whose bytes an encoder keeps
#: before starting afresh (bounds its memory).
MAX_CACHED_VALUES = 4096


class _FieldBytes(dict[Any, bytes]):
    """One field's bytes by value: a missing value is encoded (a message holding that field alone) and kept."""

    def __init__(self, codec: ViewCodec, name: str) -> None:
        super().__init__()
        self.make = codec.message_type
        self.name = name
        self.convert = codec.convert.get(name)

    def __missing__(self, value: Any) -> bytes:
        data = self.make(**{self.name: self.convert(value) if self.convert else value}).SerializeToString()
        if len(self) >= MAX_CACHED_VALUES:
            self.clear()
        self[value] = data
        return data


class _HistoryBytes:
    """One history field's bytes for a tuple of entries: the frames of the entries last seen, in
    order, are kept (and every frame by entry), so only new or changed entries are encoded."""

    def __init__(self, codec: ViewCodec, history: History) -> None:
        self.make = codec.message_type
        self.history = history
        self.items: tuple[Any, ...] = ()
        self.frames: list[bytes] = []
        self.joined = b""
        self.by_value: dict[Any, bytes] = {}

    def __getitem__(self, items: tuple[Any, ...]) -> bytes:
        known = len(self.items)
        if items[:known] != self.items:  # C-speed: identity first, then value equality
            same = (i for i, (a, b) in enumerate(zip(items, self.items)) if a != b)
            known = next(same, min(len(items), known))
            self.frames = self.frames[:known]
            self.joined = b"".join(self.frames)
        if len(items) > known:
            new = [self._frame(x) for x in items[known:]]
            self.frames.extend(new)
            self.joined += b"".join(new)
        self.items = items
        return self.joined

    def _frame(self, item: Any) -> bytes:
        """One entry's frame, kept by value (moves repeat: seat 2 looks, seat 0 folds)."""
        data = self.by_value.get(item)
        if data is None:
            data = self.make(**{self.history.name: [self.history.encode(item)]}).SerializeToString()
            if len(self.by_value) >= MAX_CACHED_VALUES:
                self.by_value.clear()
            self.by_value[item] = data
        return data


class ViewEncoder:
    """Encodes one game's views to wire bytes, reusing what it has already encoded.

    Each field's bytes are kept by value (most fields repeat from one view
    to the next: the dealer, the stakes, the parameters), and each history
    entry's frame is kept in order. The history of every view is public in
    the platform's games, so one cache per field serves every seat; a view
    whose history is not an extension of the previous one (a new deal, a meld
    laid off to) re-encodes from the first entry that differs, so the bytes
    are always those of a from-scratch encoding, whatever the order of the views.
    """

    def __init__(self, codec: ViewCodec) -> None:
        self.codec = codec
        descriptor = codec.message_type.DESCRIPTOR
        # proto3 ``optional`` fields sit in a synthetic oneof of their own: encoded as any field
        real_oneofs = [o for o in descriptor.oneofs if not (len(o.fields) == 1 and o.name == f"_{o.fields[0].name}")]
        if real_oneofs or any(f.message_type is not None and f.message_type.GetOptions().map_entry
                                    for f in descriptor.fields):
            raise ValueError(f"{descriptor.name}: a view with oneofs or maps cannot be encoded field by field")
        history = {h.name: h for h in codec.history}
        #: every field in field-number order, with its bytes by value (a history field: by its entries)
        self._plan: list[tuple[str, Any]] = [
            (f.name, _HistoryBytes(codec, history[f.name]) if f.name in history else _FieldBytes(codec, f.name))
            for f in sorted(descriptor.fields, key=lambda f: f.number)
        ]

    def encode(self, view: Any) -> bytes:
        """The view's wire bytes, equal to ``codec.message(view).SerializeToString()``.

        Raises KeyError when the codec's ``fields`` misses a field of the message,
        TypeError when a value is not hashable.
        """
        fields = self.codec.fields(view)
        for h in self.codec.history:
            fields[h.name] = tuple(h.items(view))
        return b"".join([known[fields[name]] for name, known in self._plan])


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def frame(field_number: int, payload: bytes) -> bytes:
    """``payload`` as a length-delimited field ``field_number`` (how a message field is written on the wire)."""
    return _varint(field_number << 3 | 2) + _varint(len(payload)) + payload


def act_request(header: Message, view_field_number: int, view: bytes) -> bytes:
    """The wire bytes of an ``ActRequest``: ``header`` (its fields but the view) followed by ``view``
    (a view's bytes) as its member ``view_field_number`` of the ``view`` oneof.

    Equal to serialising the whole request, since the view members are numbered
    above every other field of ``ActRequest`` (bot.proto).
    """
    return header.SerializeToString() + frame(view_field_number, view)
