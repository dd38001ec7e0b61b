"""Views as protocol wire bytes, encoded once per decision and in amortised constant time.

Bots are stateless (DESIGN "one Act per decision"): every view carries the
whole public history of the game (Slippery Sam's bets, Svara's moves of the
deal, rummy's melds on the table), so encoding each view from scratch costs
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


class _FieldCache:
    """The frames of one history field as last encoded (the entries, each one's frame, all joined),
    and every frame encoded so far by entry."""

    def __init__(self) -> None:
        self.items: tuple[Any, ...] = ()
        self.frames: list[bytes] = []
        self.joined = b""
        self.by_value: dict[Any, bytes] = {}


#: Distinct values of one field whose bytes an encoder keeps before starting afresh (bounds its memory).
MAX_CACHED_VALUES = 4096


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
        if descriptor.oneofs or any(f.message_type is not None and f.message_type.GetOptions().map_entry
                                    for f in descriptor.fields):
            raise ValueError(f"{descriptor.name}: a view with oneofs or maps cannot be encoded field by field")
        history = {h.name: (h, _FieldCache()) for h in codec.history}
        #: every field in field-number order: (name, its bytes by value, its history and cache or None)
        self._plan: list[tuple[str, dict[Any, bytes], tuple[History, _FieldCache] | None]] = [
            (f.name, {}, history.get(f.name)) for f in sorted(descriptor.fields, key=lambda f: f.number)
        ]

    def encode(self, view: Any) -> bytes:
        """The view's wire bytes, equal to ``codec.message(view).SerializeToString()``.

        Raises KeyError when the codec's ``fields`` misses a field of the message.
        """
        fields = self.codec.fields(view)
        parts = []
        append = parts.append
        for name, known, history in self._plan:
            if history is None:
                value = fields[name]
                data = known.get(value)
                if data is None:
                    data = self._field_bytes(name, value)
                    if len(known) >= MAX_CACHED_VALUES:
                        known.clear()
                    known[value] = data
                append(data)
            else:
                append(self._history_bytes(history[0], history[1], tuple(history[0].items(view))))
        return b"".join(parts)

    def _field_bytes(self, name: str, value: Any) -> bytes:
        convert = self.codec.convert.get(name)
        return self.codec.message_type(**{name: convert(value) if convert else value}).SerializeToString()

    def _frame(self, history: History, cache: _FieldCache, item: Any) -> bytes:
        """One history entry's frame, kept by value (Svara's moves repeat: seat 2 looks, seat 0 folds)."""
        data = cache.by_value.get(item)
        if data is None:
            data = self.codec.message_type(**{history.name: [history.encode(item)]}).SerializeToString()
            if len(cache.by_value) >= MAX_CACHED_VALUES:
                cache.by_value.clear()
            cache.by_value[item] = data
        return data

    def _history_bytes(self, history: History, cache: _FieldCache, items: tuple[Any, ...]) -> bytes:
        known = len(cache.items)
        if items[:known] != cache.items:  # C-speed: identity first, then value equality
            same = (i for i, (a, b) in enumerate(zip(items, cache.items)) if a != b)
            keep = next(same, min(len(items), known))
            cache.frames = cache.frames[:keep]
            cache.joined = b"".join(cache.frames)
            known = keep
        if len(items) > known:
            new = [self._frame(history, cache, x) for x in items[known:]]
            cache.frames.extend(new)
            cache.joined += b"".join(new)
        cache.items = items
        return cache.joined


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
