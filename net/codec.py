"""The one codec for bytes from the network and the journal: bounded msgpack, then shapes.

Every byte a peer sends is hostile, and msgpack amplifies: one byte ``0x80`` decodes to an
empty dict of 64 bytes plus the 8-byte slot that holds it, so a 256 KiB frame of empty maps
decodes to about 18 MiB (72 times its size). `decode` therefore walks the bytes first
(`measure`: no object is made) and refuses them before ``msgpack.unpackb`` allocates
anything if they break one of the `Limits`: their size, nesting depth, number of values,
the length of one string, blob, array or map, or an upper bound of the memory the decoded
value would take. This module is the only caller of ``msgpack.unpackb``.

>>> limits = Limits(max_bytes=64, max_elements=8, max_memory=4096)
>>> decode(encode({"play": [3, 4]}), limits, who="seat 2")
{'play': [3, 4]}
>>> decode(encode({"k": [{}] * 40}), limits, who="seat 2")
Traceback (most recent call last):
...
tractor.net.codec.CodecError: seat 2: more than 8 values

Decoded values are then read by *shape*: a message's shape is stated once, and `Shape.read`
checks it all at once and returns it typed (or raises `ShapeError`, naming whose it was).

>>> move = Record({"play": ListOf(Int(0, 107), max=25, min=1, distinct=True)})
>>> move.read({"play": [3, 4]}, who="seat 2")
{'play': (3, 4)}
>>> move.read({"play": [3, 3]}, who="seat 2")
Traceback (most recent call last):
...
tractor.net.codec.ShapeError: seat 2: play: a value repeats
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgpack

from tractor.net.errors import NetError

T = TypeVar("T")


class CodecError(NetError, ValueError):
    """Bytes or a value from a peer (or the journal) refused. ``who`` names whose they were
    ("seat 2", "announcement from 10.0.0.7"; empty: not known here), ``reason`` says what
    is wrong with them."""

    def __init__(self, reason: str, who: str = "") -> None:
        self.reason = reason
        self.who = who
        super().__init__(f"{who}: {reason}" if who else reason)


class ShapeError(CodecError):
    """A decoded value that is not of the shape its message must have."""


# --- limits and the walk that enforces them -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Limits:
    """What one encoded value may be: ``max_bytes`` long, containers nested ``max_depth``
    deep, ``max_elements`` values in all (every container, key and value counts one), one
    string of ``max_str`` bytes (UTF-8), one blob of ``max_bin``, one array of
    ``max_array`` items, one map of ``max_map`` keys, and ``max_memory`` bytes decoded
    (an upper bound, `measure`). Extension types are never accepted."""

    max_bytes: int
    max_depth: int = 8
    max_elements: int = 1024
    max_str: int = 1024
    max_bin: int = 1024
    max_array: int = 1024
    max_map: int = 64
    max_memory: int = 1 << 20


@dataclass(frozen=True, slots=True)
class Footprint:
    """What `measure` found: values, deepest nesting, decoded bytes (upper bound)."""

    elements: int
    depth: int
    memory: int


# Upper bounds of what CPython (64-bit) allocates for each decoded value, checked against
# tracemalloc by the tests: a list is its header and one slot per item; a dict's table
# grows in steps, each below 232 + 56 bytes per key; a str may need 4 bytes a character
# (one emoji widens every character of it); small ints and one-letter strings are shared
# objects, but counting them keeps the bound simple.
_INT, _FLOAT, _BIN, _STR = 40, 24, 48, 80


def _list_bytes(n: int) -> int:
    return 56 + 8 * n


def _dict_bytes(n: int) -> int:
    return 232 + 56 * n if n else 64


_WIDTH = {0xc4: 1, 0xc5: 2, 0xc6: 4, 0xd9: 1, 0xda: 2, 0xdb: 4,
          0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4}
_SKIP = {0xca: 4, 0xcb: 8, 0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8,
         0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}


def _alike(data: bytes, pos: int, count: int, max_bin: int) -> tuple[int, int]:
    """(bytes, decoded bytes) of ``count`` items from ``pos`` if they are all small whole
    numbers, or all blobs of one length below 256 (positions, points, keys: most of a
    frame), read at once by slicing; (0, 0) otherwise: `_walk` reads them one by one."""
    first = data[pos] if pos < len(data) else 0xc1
    if first <= 0x7f:
        run = data[pos:pos + count]
        if len(run) == count and max(run) <= 0x7f:
            return count, count * _INT
    elif first == 0xc4 and pos + 1 < len(data) and data[pos + 1] <= max_bin:
        size = data[pos + 1]
        step = size + 2
        run = data[pos:pos + step * count]
        if len(run) == step * count and run[::step] == b"\xc4" * count \
                and run[1::step] == bytes((size,)) * count:
            return step * count, count * (_BIN + size)
    return 0, 0


def _walk(data: bytes, lim: Limits, who: str, stop: int = -1) -> tuple[Footprint, int]:
    """One pass over msgpack bytes, value by value (a container before its items), making
    no objects: what `measure` found, and where it ended. With ``stop``, it ends where
    value number ``stop`` begins (only the values before it are checked)."""
    end = len(data)
    pos = elements = memory = depth = 0
    open_: list[int] = []  #: values still to come in each open container
    while True:
        if elements == stop:
            return Footprint(elements, depth, memory), pos
        elements += 1
        if elements > lim.max_elements:
            raise CodecError(f"more than {lim.max_elements} values", who)
        if pos >= end:
            raise CodecError("the value is cut short", who)
        b = data[pos]
        pos += 1
        count = -1  #: a container's entries (-1: a scalar)
        if b <= 0x7f or b >= 0xe0:
            memory += _INT
        elif b <= 0x9f:
            count, is_map = b & 0x0f, b <= 0x8f
        elif b <= 0xbf or 0xc4 <= b <= 0xc6 or 0xd9 <= b <= 0xdb:
            if b <= 0xbf:
                size = b & 0x1f
            else:
                width = _WIDTH[b]
                size = int.from_bytes(data[pos:pos + width], "big")
                pos += width
            is_str = b <= 0xbf or b >= 0xd9
            limit = lim.max_str if is_str else lim.max_bin
            if size > limit:
                raise CodecError(f"a {'string' if is_str else 'blob'} of {size} bytes "
                                 f"(at most {limit})", who)
            pos += size
            memory += _STR + 4 * size if is_str else _BIN + size
        elif b in (0xc0, 0xc2, 0xc3):
            pass  # nil, false, true: shared objects
        elif b in _SKIP:
            pos += _SKIP[b]
            memory += _FLOAT if b <= 0xcb else _INT
        elif 0xdc <= b <= 0xdf:
            width = _WIDTH[b]
            count, is_map = int.from_bytes(data[pos:pos + width], "big"), b >= 0xde
            pos += width
        else:
            raise CodecError(f"byte 0x{b:02x} (an extension type, or no msgpack type)", who)
        if pos > end:
            raise CodecError("the value is cut short", who)
        if count >= 0:
            limit, what = (lim.max_map, "keys in a map") if is_map else (lim.max_array,
                                                                        "items in an array")
            if count > limit:
                raise CodecError(f"{count} {what} (at most {limit})", who)
            if len(open_) >= depth:
                depth = len(open_) + 1
                if depth > lim.max_depth:
                    raise CodecError(f"nested more than {lim.max_depth} deep", who)
            memory += _dict_bytes(count) if is_map else _list_bytes(count)
            if count > 1 and not is_map and stop < 0:  # its items at once, if alike
                skipped, taken = _alike(data, pos, count, lim.max_bin)
                if skipped:
                    elements += count
                    if elements > lim.max_elements:
                        raise CodecError(f"more than {lim.max_elements} values", who)
                    pos, memory, count = pos + skipped, memory + taken, 0
        if memory > lim.max_memory:
            raise CodecError(f"would take more than {lim.max_memory} bytes decoded", who)
        if count > 0:
            open_.append(2 * count if is_map else count)
            continue
        while open_:  # one value complete: so may be the containers it closes
            open_[-1] -= 1
            if open_[-1]:
                break
            open_.pop()
        else:
            break
    if pos != end:
        raise CodecError(f"{end - pos} extra bytes after the value", who)
    return Footprint(elements, depth, memory), pos


def measure(data: bytes, limits: Limits, who: str = "") -> Footprint:
    """Walk one encoded value without decoding it; `CodecError` (naming ``who``) at the
    first limit it breaks, or if it is not exactly one well-formed msgpack value.

    >>> measure(encode([b"k" * 32, {"a": None}]), Limits(max_bytes=64))
    Footprint(elements=5, depth=2, memory=524)
    >>> measure(b"\\x91" * 9 + b"\\xc0", Limits(max_bytes=64), who="seat 1")
    Traceback (most recent call last):
    ...
    tractor.net.codec.CodecError: seat 1: nested more than 8 deep
    """
    _check_size(data, limits, who)
    return _walk(data, limits, who)[0]


def _check_size(data: bytes, limits: Limits, who: str) -> None:
    if type(data) is not bytes:
        raise CodecError(f"{type(data).__name__} where bytes were expected", who)
    if len(data) > limits.max_bytes:
        raise CodecError(f"{len(data)} bytes (at most {limits.max_bytes})", who)


def decode(data: bytes, limits: Limits, who: str = "") -> Any:
    """The one msgpack value in ``data``, decoded only once `measure` found it within
    ``limits`` (so decoding never takes more than ``limits.max_memory``); strings as str,
    blobs as bytes, arrays as lists, map keys str or bytes. `CodecError` naming ``who``
    otherwise."""
    return decode_measured(data, limits, who)[0]


def decode_measured(data: bytes, limits: Limits, who: str = "") -> tuple[Any, Footprint]:
    """`decode`, with the `Footprint` it measured (what holding the value costs)."""
    footprint = measure(data, limits, who)
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True,
                                max_str_len=limits.max_str, max_bin_len=limits.max_bin,
                                max_array_len=limits.max_array, max_map_len=limits.max_map,
                                max_ext_len=0)
    except (msgpack.UnpackException, ValueError, TypeError) as exc:
        # What the walk lets through and msgpack still refuses: bad UTF-8, a key that is
        # not a string.
        raise CodecError(f"unreadable: {type(exc).__name__}", who) from exc
    return value, footprint


def decode_at(data: bytes, limits: Limits, index: int, who: str = "") -> Any:
    """Value number ``index`` of ``data`` (every value counts, a container before its
    items), decoded alone once the values before it are found within ``limits``; nothing
    after it is read. For one field looked up before the whole value is checked (a frame's
    hand number); it must be a scalar (a number, string, blob, nil or bool).

    >>> decode_at(encode([["tractor", b"table", 7], {}]), Limits(max_bytes=64), 4)
    7
    """
    _check_size(data, limits, who)
    start = _walk(data, limits, who, stop=index)[1]
    stop = _walk(data, limits, who, stop=index + 1)[1]
    if start >= len(data) or 0x80 <= data[start] <= 0x9f or 0xdc <= data[start] <= 0xdf:
        raise CodecError(f"no plain value number {index}", who)
    return decode(data[start:stop], limits, who)


def encode(value: Any) -> bytes:
    """``value`` in msgpack (str as strings, bytes as blobs): what `decode` reads back."""
    packed: bytes = msgpack.packb(value, use_bin_type=True)  # (msgpack ships no types)
    return packed


# --- shapes ----------------------------------------------------------------------------------


class _Mismatch(NetError):
    """Raised inside a shape; `Shape.read` turns it into a `ShapeError` with its path."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.path: list[str] = []

    def describe(self) -> str:
        return ": ".join([*reversed(self.path), self.reason])


class Shape(Generic[T]):
    """What one decoded value must be. `read` checks it and returns it typed."""

    def read(self, value: object, who: str = "") -> T:
        try:
            return self.take(value)
        except _Mismatch as m:
            raise ShapeError(m.describe(), who) from None

    def take(self, value: object) -> T:
        """The value, checked (raises `_Mismatch`; for shapes made of shapes)."""
        raise NotImplementedError


def _inside(where: str, shape: Shape[T], value: object) -> T:
    try:
        return shape.take(value)
    except _Mismatch as m:
        m.path.append(where)
        raise


def _items(shapes: Sequence[Shape[Any]], values: list[Any]) -> tuple[Any, ...]:
    """Each value read by its shape (a loop, not a generator: frames have many)."""
    out = []
    for i, value in enumerate(values):
        try:
            out.append(shapes[i].take(value))
        except _Mismatch as m:
            m.path.append(f"item {i}")
            raise
    return tuple(out)


class Int(Shape[int]):
    """A whole number from ``lo`` to ``hi`` (not a bool).

    >>> Int(0, 3).read(4, "seat 1")
    Traceback (most recent call last):
    ...
    tractor.net.codec.ShapeError: seat 1: not a whole number from 0 to 3
    """

    def __init__(self, lo: int = 0, hi: int = 2**62) -> None:
        self.lo, self.hi = lo, hi

    def take(self, value: object) -> int:
        if type(value) is not int or not self.lo <= value <= self.hi:
            raise _Mismatch(f"not a whole number from {self.lo} to {self.hi}")
        return value


class Bool(Shape[bool]):
    def take(self, value: object) -> bool:
        if type(value) is not bool:
            raise _Mismatch("not true or false")
        return value


class Bytes(Shape[bytes]):
    """A blob of exactly ``size`` bytes, or of at most ``max``."""

    def __init__(self, size: int | None = None, max: int = 1 << 20) -> None:
        self.size, self.max = size, max

    def take(self, value: object) -> bytes:
        if type(value) is not bytes:
            raise _Mismatch("not bytes")
        if self.size is not None and len(value) != self.size:
            raise _Mismatch(f"not {self.size} bytes")
        if len(value) > self.max:
            raise _Mismatch(f"more than {self.max} bytes")
        return value


class Text(Shape[str]):
    """A string of at most ``max`` characters (``min`` at least; ``printable``: no control
    characters or escape sequences)."""

    def __init__(self, max: int, min: int = 0, printable: bool = False) -> None:
        self.max, self.min, self.printable = max, min, printable

    def take(self, value: object) -> str:
        if type(value) is not str or not self.min <= len(value) <= self.max:
            raise _Mismatch(f"not text of {self.min} to {self.max} characters")
        if self.printable and not value.isprintable():
            raise _Mismatch("text that is not printable")
        return value


class OneOf(Shape[Any]):
    """One of a few exact values (str, int, None ...; a bool never matches an int).

    >>> OneOf("deal", "talon").read("deal")
    'deal'
    """

    def __init__(self, *values: object) -> None:
        self.values = values

    def take(self, value: object) -> Any:
        for v in self.values:
            if type(v) is type(value) and v == value:
                return value
        raise _Mismatch(f"not one of {', '.join(repr(v) for v in self.values)}")


class Maybe(Shape["T | None"]):
    """None, or a value of ``shape``."""

    def __init__(self, shape: Shape[T]) -> None:
        self.shape = shape

    def take(self, value: object) -> T | None:
        return None if value is None else self.shape.take(value)


class Anything(Shape[Any]):
    """Any decoded value (already bounded by the `Limits` it was decoded with)."""

    def take(self, value: object) -> Any:
        return value


class ListOf(Shape[tuple[T, ...]]):
    """An array of ``min`` to ``max`` values of ``shape`` (``distinct``: none repeats), as
    a tuple."""

    def __init__(self, shape: Shape[T], max: int, min: int = 0, distinct: bool = False) -> None:
        self.shape, self.max, self.min, self.distinct = shape, max, min, distinct

    def take(self, value: object) -> tuple[T, ...]:
        if type(value) is not list or not self.min <= len(value) <= self.max:
            raise _Mismatch(f"not a list of {self.min} to {self.max} items")
        items = _items([self.shape] * len(value), value)
        if self.distinct and len(set(items)) != len(items):
            raise _Mismatch("a value repeats")
        return items


class Fixed(Shape[tuple[Any, ...]]):
    """An array of exactly one value of each shape, in order, as a tuple."""

    def __init__(self, *shapes: Shape[Any]) -> None:
        self.shapes = shapes

    def take(self, value: object) -> tuple[Any, ...]:
        if type(value) is not list or len(value) != len(self.shapes):
            raise _Mismatch(f"not a list of {len(self.shapes)} items")
        return _items(self.shapes, value)


class Record(Shape[T]):
    """A map with exactly the keys of ``fields`` (str), each value of its shape; made into
    ``make(**values)`` (by default a dict).

    >>> Record({"bid": Int(0, 300)}).read({"bid": 80, "x": 1}, "seat 3")
    Traceback (most recent call last):
    ...
    tractor.net.codec.ShapeError: seat 3: a map of exactly 'bid'
    """

    def __init__(self, fields: Mapping[str, Shape[Any]],
                 make: Callable[..., T] = dict) -> None:  # type: ignore[assignment]
        self.fields, self.make = dict(fields), make

    def take(self, value: object) -> T:
        if type(value) is not dict or value.keys() != self.fields.keys():
            raise _Mismatch(f"a map of exactly {', '.join(map(repr, self.fields))}")
        return self.make(**{k: _inside(k, s, value[k]) for k, s in self.fields.items()})


class MapOf(Shape[dict[Any, Any]]):
    """A map of at most ``max`` keys of shape ``key``, each value of shape ``value``."""

    def __init__(self, key: Shape[Any], value: Shape[Any], max: int) -> None:
        self.key, self.value, self.max = key, value, max

    def take(self, value: object) -> dict[Any, Any]:
        if type(value) is not dict or len(value) > self.max:
            raise _Mismatch(f"not a map of at most {self.max} keys")
        return {_inside("a key", self.key, k): _inside(repr(k)[:20], self.value, v)
                for k, v in value.items()}


class Tagged(Shape[Any]):
    """A map read by the one of ``variants``' keys (tags) it holds, with that variant's
    shape: ``{"chat": ...}`` and ``{"play": ...}`` are two kinds of one message.

    >>> kinds = Tagged({"bid": Record({"bid": Int(0, 300)}), "name": Record({"name": Text(8)})})
    >>> kinds.read({"name": "S"})
    {'name': 'S'}
    >>> kinds.read({"pass": 1}, "seat 0")
    Traceback (most recent call last):
    ...
    tractor.net.codec.ShapeError: seat 0: a map holding one of 'bid', 'name'
    """

    def __init__(self, variants: Mapping[str, Shape[Any]]) -> None:
        self.variants = dict(variants)

    def take(self, value: object) -> Any:
        tags = [t for t in self.variants if type(value) is dict and t in value]
        if len(tags) != 1:
            raise _Mismatch(f"a map holding one of {', '.join(map(repr, self.variants))}")
        return self.variants[tags[0]].take(value)
