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
from functools import cached_property, lru_cache
from operator import getitem, itemgetter
from typing import Any

from google.protobuf import message_factory
from google.protobuf.message import Message


@dataclass(frozen=True)
class History:
    """A repeated message field of a view that grows along the game.

    ``name`` is the field's name in the view message, ``items`` gives the
    engine view's entries (a tuple of immutable values: equal entries encode
    to equal bytes), ``encode`` one entry as its protocol message. ``items`` and
    ``values`` run for every view: an ``operator.attrgetter`` runs at C speed, a
    lambda as a Python call.
    """

    name: str
    items: Callable[[Any], Sequence[Any]]
    encode: Callable[[Any], Message]
    #: whether equal entries recur (in other games, or again in the same game: a move), so that each
    #: entry's frame is kept by value; False where an entry rarely repeats, so each new one is encoded
    #: without hashing it twice for a cache it would only fill
    repeats: bool = True
    #: for an entry message of scalar fields only (numbers, bools, strings): the entry's value of each
    #: of them, in field-number order; its frame is then joined from each value's bytes kept by value,
    #: with no message built (``encode`` stays the from-scratch reference), and kept by those values
    #: (a tuple of scalars hashes at C speed, where an entry dataclass hashes in Python)
    values: Callable[[Any], tuple[Any, ...]] | None = None


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

    @cached_property
    def _plan(self) -> _Plan:
        """The bytes of field values and history entries, kept by value for every game of this
        codec in the process (a value's bytes do not depend on the game); built on first use."""
        return _Plan(self)


#: Distinct values of one field (or entries of one history field) whose bytes an encoder keeps
#: before starting afresh (bounds its memory).
MAX_CACHED_VALUES = 4096


#: Field types written directly (``FieldDescriptor.TYPE_*``): their bytes are a tag and a varint
#: or a length-delimited string, so no message is built for them.
_UINT32, _ENUM, _BOOL, _STRING = 13, 14, 8, 9
_UINT32_LIMIT = 1 << 32
_INT32_MIN, _INT32_LIMIT = -(1 << 31), 1 << 31


@lru_cache(maxsize=1 << 16, typed=True)
def _uint32_bytes(value: int) -> bytes:
    """A uint32 value's varint; raises TypeError/ValueError for a value the field cannot hold."""
    if not isinstance(value, int):
        raise TypeError(f"an integer field cannot hold {value!r}")
    if not 0 <= value < _UINT32_LIMIT:
        raise ValueError(f"value out of range for uint32: {value}")
    return _varint(value)


@lru_cache(maxsize=1 << 10, typed=True)
def _enum_bytes(value: int) -> bytes:
    """An enum value's varint (an int32: a negative one takes 10 bytes)."""
    if not isinstance(value, int):
        raise TypeError(f"an enum field cannot hold {value!r}")
    if not _INT32_MIN <= value < _INT32_LIMIT:  # (not ``in range(...)``: an IntEnum member would be looked for one by one)
        raise ValueError(f"value out of range for an enum: {value}")
    return _varint(value & 0xFFFFFFFFFFFFFFFF)


def _bool_bytes(value: Any) -> bytes:
    """A bool's varint."""
    if not isinstance(value, int):  # bool is an int
        raise TypeError(f"a bool field cannot hold {value!r}")
    return b"\x01" if value else b"\x00"


_VARINT_OF: dict[int, Callable[[Any], bytes]] = {_UINT32: _uint32_bytes, _ENUM: _enum_bytes, _BOOL: _bool_bytes}


class _StringFrames(dict[str, bytes]):
    """The frame of one string of repeated string field ``number``, by value (cards repeat): a plain
    dict, whose hits run at C speed; a missing string is checked, encoded and kept."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.tag = _varint(number << 3 | 2)

    def __missing__(self, value: str) -> bytes:
        if not isinstance(value, str):
            raise TypeError(f"a string field cannot hold {value!r}")
        data = value.encode()
        frame = self.tag + _varint(len(data)) + data
        if len(self) >= MAX_CACHED_VALUES:
            self.clear()
        self[value] = frame
        return frame


#: Below this, a varint is at most two bytes, written from :data:`_VARINTS` (a list index at C speed).
_TWO_BYTE_LIMIT = 1 << 14


def _direct_encoder(fd: Any) -> Callable[[Any], bytes] | None:
    """The function writing field ``fd``'s bytes for a value, for the scalar types above; None for
    another type (a message field: encoded through a message holding it alone).

    The bytes are protobuf's: nothing for a default value of a field without presence or an empty
    repeated field; a packed frame for repeated numbers and bools; a frame per string."""
    if fd.type not in (_UINT32, _ENUM, _BOOL, _STRING):
        return None
    number, field_type = fd.number, fd.type
    varint_of = _VARINT_OF.get(field_type)
    if fd.is_repeated:
        if field_type == _STRING:
            one = _StringFrames(number).__getitem__

            def strings(values: Any) -> bytes:
                return b"".join(map(one, values))
            return strings
        if not fd.is_packed:
            return None
        packed_tag = _varint(number << 3 | 2)
        #: the largest value whose varint is the one byte ``bytes((value,))`` writes (a bool: 1)
        one_byte_max = 1 if field_type == _BOOL else 127
        #: the largest value whose varint is ``_VARINTS[value]`` (a bool: its varint is 0 or 1, so none above)
        two_byte_max = 1 if field_type == _BOOL else _TWO_BYTE_LIMIT - 1
        two_bytes = _VARINTS.__getitem__

        def packed(values: Any) -> bytes:
            if not values:
                return b""
            try:  # most values of a view are one- or two-byte varints: written at C speed
                low, high = min(values), max(values)
            except TypeError:  # not numbers: the general way says which one
                low = high = -1
            if 0 <= low and high <= one_byte_max:
                payload = bytes(values)
            elif 0 <= low and high <= two_byte_max:  # (a value that is no int: list indices refuse it)
                payload = b"".join(map(two_bytes, values))
            else:
                payload = b"".join(map(varint_of, values))
            n = len(payload)
            return packed_tag + (_ONE_BYTE[n] if n < 128 else _varint(n)) + payload
        return packed
    presence = fd.has_presence
    if field_type == _STRING:
        tag = _varint(number << 3 | 2)

        def string(value: Any) -> bytes:
            if value is None and presence:
                return b""
            if not isinstance(value, str):
                raise TypeError(f"a string field cannot hold {value!r}")
            if not value and not presence:
                return b""
            data = value.encode()
            return tag + _varint(len(data)) + data
        return string
    tag = _varint(number << 3)

    def scalar(value: Any) -> bytes:
        if value is None and presence:
            return b""
        data = varint_of(value)
        if not presence and data == b"\x00":
            return b""
        return tag + data
    return scalar


class _FieldBytes(dict[Any, bytes]):
    """One field's bytes by value: a missing value is encoded (written directly for a scalar field,
    else as a message holding that field alone) and kept."""

    def __init__(self, message_type: type[Message], name: str, convert: Callable[[Any], Any] | None = None) -> None:
        super().__init__()
        self.make = message_type
        self.name = name
        self.convert = convert
        fd = message_type.DESCRIPTOR.fields_by_name[name]
        self.direct = None if self.convert else _direct_encoder(fd)

    def __missing__(self, value: Any) -> bytes:
        if self.direct is not None:
            data = self.direct(value)
        else:
            data = self.make(**{self.name: self.convert(value) if self.convert else value}).SerializeToString()
        if len(self) >= MAX_CACHED_VALUES:
            self.clear()
        self[value] = data
        return data


class _HistoryBytes:
    """One history field's bytes for a tuple of entries: the frames of the entries last seen, in
    order, are kept (per game; every frame by entry in the codec's shared ``entries``), so only new
    or changed entries are encoded."""

    def __init__(self, entries: _EntryFrames) -> None:
        self.frame = entries.frame
        self.key = entries.key
        self.items: tuple[Any, ...] = ()
        self.frames: list[bytes] = []
        self.joined = b""

    def __getitem__(self, items: tuple[Any, ...]) -> bytes:
        known = len(self.items)
        if items[:known] != self.items:  # C-speed: identity first, then value equality
            same = (i for i, (a, b) in enumerate(zip(items, self.items)) if a != b)
            known = next(same, min(len(items), known))
            self.frames = self.frames[:known]
            self.joined = b"".join(self.frames)
        if len(items) > known:
            added = items[known:]
            new = list(map(self.frame, added if self.key is None else map(self.key, added)))
            self.frames.extend(new)
            self.joined += b"".join(new)
        self.items = items
        return self.joined


class _EntryFrames(dict[Any, bytes]):
    """One history field's entry frames by entry (moves repeat: seat 2 looks, seat 0 folds), or by
    the entry's ``values`` where the history gives them (a tuple of scalars hashes and compares at C
    speed, an entry dataclass in Python); a missing one is encoded and kept.

    ``frame`` gives the frame of an entry's ``key``: the entry itself, or its values (``key``
    then makes them, else it is None)."""

    def __init__(self, codec: ViewCodec, history: History) -> None:
        super().__init__()
        self.encode = history.encode
        fd = codec.message_type.DESCRIPTOR.fields_by_name[history.name]
        self.tag = _varint(fd.number << 3 | 2)
        self.key = history.values
        if self.key is not None:
            entry = message_factory.GetMessageClass(fd.message_type)
            ordered = sorted(fd.message_type.fields, key=lambda f: f.number)
            if any(_direct_encoder(f) is None for f in ordered):
                raise ValueError(f"{fd.message_type.name}: values are given for an entry message of scalar fields only")
            #: per field of the entry message, in field-number order, its bytes by value
            self.value_parts = tuple(_FieldBytes(entry, f.name) for f in ordered)
        self.frame = self.__getitem__ if history.repeats else self.encoded

    def encoded(self, key: Any) -> bytes:
        """The frame of the entry of ``key`` (the entry, or its values), encoded (not looked up, not kept)."""
        if self.key is not None:
            payload = b"".join(map(getitem, self.value_parts, key))
        else:
            payload = self.encode(key).SerializeToString()
        n = len(payload)
        return self.tag + (_ONE_BYTE[n] if n < 128 else _varint(n)) + payload

    def __missing__(self, key: Any) -> bytes:
        data = self.encoded(key)
        if len(self) >= MAX_CACHED_VALUES:
            self.clear()
        self[key] = data
        return data


class _Plan:
    """A codec's fields in field-number order, with the bytes kept by value that every encoder
    of the codec shares: per field, its bytes by value (:class:`_FieldBytes`); per history field,
    its entries' frames (:class:`_EntryFrames`). Raises ValueError for a view message with oneofs
    or maps."""

    def __init__(self, codec: ViewCodec) -> None:
        descriptor = codec.message_type.DESCRIPTOR
        # proto3 ``optional`` fields sit in a synthetic oneof of their own: encoded as any field
        real_oneofs = [o for o in descriptor.oneofs if not (len(o.fields) == 1 and o.name == f"_{o.fields[0].name}")]
        if real_oneofs or any(f.message_type is not None and f.message_type.GetOptions().map_entry
                                    for f in descriptor.fields):
            raise ValueError(f"{descriptor.name}: a view with oneofs or maps cannot be encoded field by field")
        history = {h.name: h for h in codec.history}
        ordered = sorted(descriptor.fields, key=lambda f: f.number)
        self.names = tuple(f.name for f in ordered)
        #: per field, in field-number order: its bytes by value, or (a history field) its entry frames
        self.parts: tuple[_FieldBytes | _EntryFrames, ...] = tuple(
            _EntryFrames(codec, history[f.name]) if f.name in history
            else _FieldBytes(codec.message_type, f.name, codec.convert.get(f.name)) for f in ordered)


class ViewEncoder:
    """Encodes one game's views to wire bytes, reusing what it has already encoded.

    Each field's bytes are kept by value (most fields repeat from one view
    to the next: the dealer, the stakes, the parameters), in caches every
    encoder of the codec shares (a value's bytes do not depend on the game),
    and each history entry's frame is kept in order. The history of every view is public in
    the platform's games, so one cache per field serves every seat; a view
    whose history is not an extension of the previous one (a new deal, a meld
    laid off to) re-encodes from the first entry that differs, so the bytes
    are always those of a from-scratch encoding, whatever the order of the views.
    """

    def __init__(self, codec: ViewCodec) -> None:
        self.codec = codec
        self._fields = codec.fields
        plan = codec._plan
        #: each field's value in field-number order, from the dict of fields
        self._values = itemgetter(*plan.names) if len(plan.names) > 1 else lambda fields: (fields[plan.names[0]],)
        #: per field, in field-number order, its bytes by value (a history field: by its entries, this game's frames)
        self._parts: list[Any] = [_HistoryBytes(part) if isinstance(part, _EntryFrames) else part for part in plan.parts]
        self._history = [(h.name, h.items) for h in codec.history]

    def encode(self, view: Any) -> bytes:
        """The view's wire bytes, equal to ``codec.message(view).SerializeToString()``.

        Raises KeyError when the codec's ``fields`` misses a field of the message,
        TypeError when a value is not hashable.
        """
        fields = self._fields(view)
        for name, items in self._history:
            fields[name] = tuple(items(view))
        return b"".join(map(getitem, self._parts, self._values(fields)))


#: The one-byte varints, 0..127 (most values of a view).
_ONE_BYTE = [bytes((v,)) for v in range(128)]
#: The varints of 0 .. 2**14 - 1 (one or two bytes: the tokens of a view), by value.
_VARINTS = _ONE_BYTE + [bytes((v & 0x7F | 0x80, v >> 7)) for v in range(128, _TWO_BYTE_LIMIT)]


def _varint(value: int) -> bytes:
    """A non-negative integer's varint (the wire bytes of a uint32 or uint64 value)."""
    if 0 <= value < 128:
        return _ONE_BYTE[value]
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


#: A non-negative integer's varint, for the protocol's other messages (``referee.stream``'s envelopes).
varint = _varint


def frame(field_number: int, payload: bytes) -> bytes:
    """``payload`` as a length-delimited field ``field_number`` (how a message field is written on the wire)."""
    return _varint(field_number << 3 | 2) + _varint(len(payload)) + payload


def act_request(header: Message | bytes, view_field_number: int, view: bytes) -> bytes:
    """The wire bytes of an ``ActRequest``: ``header`` (its fields but the view, as a message or
    as its bytes, :func:`act_header`) followed by ``view`` (a view's bytes) as its member
    ``view_field_number`` of the ``view`` oneof.

    Equal to serialising the whole request, since the view members are numbered
    above every other field of ``ActRequest`` (bot.proto).
    """
    head = header if isinstance(header, bytes) else header.SerializeToString()
    return head + frame(view_field_number, view)


@lru_cache(maxsize=1 << 10)
def _game_id_frame(game_id: str) -> bytes:
    """Field 1 (``game_id``) of an ActRequest: nothing for the empty string (proto3)."""
    data = game_id.encode()
    return frame(1, data) if data else b""


def _uint32_field(field_number: int, value: int) -> bytes:
    """A proto3 uint32 field: nothing for 0; raises TypeError/ValueError for a value a uint32 cannot hold."""
    data = _uint32_bytes(value)
    return b"" if data == b"\x00" else _varint(field_number << 3) + data


def act_header(game_id: str, seat: int, decision: int, deadline_ms: int, time_bank_ms: int, budget_ms: int) -> bytes:
    """The wire bytes of ``ActRequest(game_id, seat, decision, clock=Clock(deadline_ms, time_bank_ms,
    budget_ms))`` (bot.proto), written directly: the ``header`` of :func:`act_request` as bytes.

    Equal to that message's ``SerializeToString()`` (``tests/games/test_view_wire.py``): fields in
    number order, a zero uint32 omitted, the clock present even when all its fields are zero.
    Raises TypeError or ValueError for a number a uint32 cannot hold, as the message would.
    What repeats from one decision to the next (the game and seat; the deadline and, until it is
    drawn on, the bank) is kept by value; the clock's length is one byte (at most 3 x 6 bytes).
    """
    clock = _clock_head(deadline_ms, time_bank_ms) + _uint32_field(3, budget_ms)
    return _seat_head(game_id, seat) + _uint32_field(3, decision) + _CLOCK_TAG + _ONE_BYTE[len(clock)] + clock


#: Field 4 (``clock``) of an ActRequest: its tag.
_CLOCK_TAG = _varint(4 << 3 | 2)


@lru_cache(maxsize=1 << 10, typed=True)
def _seat_head(game_id: str, seat: int) -> bytes:
    """Fields 1 and 2 (``game_id``, ``seat``) of an ActRequest."""
    return _game_id_frame(game_id) + _uint32_field(2, seat)


@lru_cache(maxsize=1 << 10, typed=True)
def _clock_head(deadline_ms: int, time_bank_ms: int) -> bytes:
    """Fields 1 and 2 (``deadline_ms``, ``time_bank_ms``) of a Clock."""
    return _uint32_field(1, deadline_ms) + _uint32_field(2, time_bank_ms)
