"""The one codec for hostile bytes: every limit refuses, naming whose bytes they were; what
the walk estimates is never below what decoding takes; a frame of empty maps (72 times its
size decoded) is refused before anything is made; shapes read values whole."""

from __future__ import annotations

import re
import tracemalloc

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tractor.net.codec import (
    Bytes,
    CodecError,
    Fixed,
    Footprint,
    Int,
    Limits,
    ListOf,
    Maybe,
    OneOf,
    Record,
    ShapeError,
    Tagged,
    Text,
    decode,
    decode_at,
    decode_measured,
    encode,
    measure,
)
from tractor.net.deck.envelope import (
    FRAME_LIMITS,
    MAX_FRAME,
    FrameError,
    Header,
    open_frame,
    peek_hand,
    seal,
)

ROOMY = Limits(max_bytes=1 << 20, max_depth=16, max_elements=1 << 20, max_str=1 << 16,
               max_bin=1 << 16, max_array=1 << 16, max_map=1 << 16, max_memory=1 << 30)


def empty_maps(size: int) -> dict[str, list[dict[str, object]]]:
    """About ``size`` bytes of empty maps, in arrays and a map a frame's limits allow."""
    return {f"k{i}": [{}] * 4096 for i in range(size // 4100)}


def decoded_bytes(data: bytes) -> int:
    """What decoding ``data`` leaves allocated (tracemalloc)."""
    tracemalloc.start()
    try:
        value = msgpack.unpackb(data, raw=False, max_array_len=1 << 16, max_map_len=1 << 16,
                                max_str_len=1 << 16, max_bin_len=1 << 16)
        taken = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del value
    return taken


@pytest.mark.parametrize("value", [
    [{}] * 3000, [[]] * 3000, [None, True, False] * 1000, list(range(-32, 5000)),
    [2**63 - 1] * 1000, [1.5] * 1000, ["ab"] * 1000, ["é" * 40] * 300, ["😀" + "a" * 30] * 300,
    [b""] * 1000, [bytes(32)] * 1000, [{f"k{i}": i for i in range(n)} for n in range(90)],
    [list(range(n)) for n in range(90)], {"deep": [[[[[[b"x"]]]]]] * 200},
    [{f"k{i}": None for i in range(n)} for n in (170, 171, 341, 342, 683, 684, 1365, 1366)],
])
def test_the_estimate_is_never_below_what_decoding_takes(value):
    data = encode(value)
    assert measure(data, ROOMY).memory >= decoded_bytes(data)


def test_a_frame_of_empty_maps_would_take_72_times_its_size():
    """The issue's figure, so the test below refuses what it claims to."""
    data = encode({"data": empty_maps(MAX_FRAME - 4096)})
    assert len(data) <= MAX_FRAME
    assert decoded_bytes(data) > 60 * len(data)
    assert measure(data, ROOMY).memory >= decoded_bytes(data)


def test_a_signed_frame_of_empty_maps_is_refused_before_it_is_decoded():
    """256 KiB of empty maps in a validly signed table message: refused by its number of
    values after walking a few KiB, with next to nothing allocated (it decoded to 18 MiB)."""
    key = Ed25519PrivateKey.generate()
    header = Header(b"t" * 16, 1, 0, 0, "app", ((0, bytes(32)),))
    frame = seal(header, {"data": empty_maps(MAX_FRAME - 4096)}, key)
    assert len(frame) <= MAX_FRAME
    tracemalloc.start()
    try:
        with pytest.raises(FrameError, match=f"more than {FRAME_LIMITS.max_elements} values"):
            open_frame(frame, b"t" * 16, 1, [key.public_key()])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024
    assert peek_hand(frame) == 1  # read without the rest of the frame


@pytest.mark.parametrize(("data", "limits", "reason"), [
    (encode(b"x" * 65), Limits(max_bytes=64), "67 bytes (at most 64)"),
    (encode([[[[1]]]]), Limits(max_bytes=64, max_depth=3), "nested more than 3 deep"),
    (encode([1] * 9), Limits(max_bytes=64, max_elements=9), "more than 9 values"),
    (encode("x" * 9), Limits(max_bytes=64, max_str=8), "a string of 9 bytes (at most 8)"),
    (encode(b"x" * 9), Limits(max_bytes=64, max_bin=8), "a blob of 9 bytes (at most 8)"),
    (encode([1] * 9), Limits(max_bytes=64, max_array=8), "9 items in an array (at most 8)"),
    (encode({str(i): 1 for i in range(9)}), Limits(max_bytes=64, max_map=8),
     "9 keys in a map (at most 8)"),
    (encode([{}] * 9), Limits(max_bytes=64, max_memory=600), "more than 600 bytes decoded"),
    (encode([1, 2])[:-1], Limits(max_bytes=64), "cut short"),
    (encode(b"x" * 9)[:-1], Limits(max_bytes=64), "cut short"),
    (encode(1) + b"\x01", Limits(max_bytes=64), "1 extra bytes"),
    (b"\xc1", Limits(max_bytes=64), "byte 0xc1"),
    (msgpack.packb(msgpack.ExtType(1, b"x")), Limits(max_bytes=64), "extension type"),
    (b"\xa1\xff", Limits(max_bytes=64), "unreadable"),  # not UTF-8
    (encode({1: 2}), Limits(max_bytes=64), "unreadable"),  # a key that is not a string
    ("text", Limits(max_bytes=64), "str where bytes were expected"),
])
def test_each_limit_refuses_naming_whose_bytes_they_were(data, limits, reason):
    with pytest.raises(CodecError, match=re.escape(reason)) as info:
        decode(data, limits, who="seat 3")
    assert str(info.value).startswith("seat 3: ")
    assert info.value.who == "seat 3"


def test_what_is_within_the_limits_decodes_as_msgpack_does():
    value = {"a": [1, -40, 2**40, 1.5, None, True, "é😀", b"\x00" * 40, {"b": []}]}
    data = encode(value)
    assert decode(data, Limits(max_bytes=len(data))) == value
    decoded, footprint = decode_measured(data, Limits(max_bytes=len(data)))
    assert decoded == value and footprint.elements == 14 and footprint.depth == 4


def test_one_field_is_read_without_the_rest():
    data = encode([["p", b"t", 5], [{}] * 100])
    assert decode_at(data, Limits(max_bytes=256, max_elements=8), 4) == 5
    with pytest.raises(CodecError, match="no plain value number 1"):
        decode_at(data, Limits(max_bytes=256), 1)


def test_shapes_read_a_message_whole_and_say_where_it_is_wrong():
    shape = Tagged({
        "claim": Record({"claim": ListOf(Fixed(Int(0, 9), ListOf(Int(0, 107), 25, 1)), 1)}),
        "name": Record({"name": Maybe(OneOf("S", "H"))}),
        "chat": Record({"chat": Text(8, printable=True)}),
        "key": Record({"key": Bytes(32)}),
    })
    assert shape.read({"claim": [[1, [4, 5]]]}) == {"claim": ((1, (4, 5)),)}
    assert shape.read({"name": None}) == {"name": None}
    for bad, where in [({"claim": [[1, []]]}, "claim: item 0: item 1: not a list of 1"),
                       ({"claim": [[True, [4]]]}, "claim: item 0: item 0: not a whole"),
                       ({"name": "X"}, "name: not one of 'S', 'H'"),
                       ({"chat": "\x1b[2J"}, "chat: text that is not printable"),
                       ({"key": b"x"}, "key: not 32 bytes"),
                       ({"chat": "hi", "name": "S"}, "a map holding one of"),
                       ([], "a map holding one of")]:
        with pytest.raises(ShapeError, match=where) as info:
            shape.read(bad, who="seat 1")
        assert info.value.who == "seat 1"


def test_every_site_reads_through_the_codec_and_keeps_its_error_type():
    """Each reader refuses a value nested past its limits with the error its callers catch,
    and says whose bytes they were."""
    from tractor.net.lobby.discovery import BadAnnouncement, parse_announcement
    from tractor.net.lobby.errors import BadLobbyMessage
    from tractor.net.lobby.messages import unpack
    from tractor.net.mesh.relay import HaveError, read_have

    nested = encode([[[[[[[[[[0]]]]]]]]]])
    with pytest.raises(BadAnnouncement, match="unreadable: nested more than 1 deep"):
        parse_announcement(encode({"v": {"v": 1}}), "10.0.0.7", 0.0)
    with pytest.raises(HaveError, match="seat 2: unreadable have report: nested more than 4"):
        read_have(nested, 4, who="seat 2")
    with pytest.raises(BadLobbyMessage, match="nested more than 6 deep"):
        unpack(nested, "peer 10.0.0.7")
    with pytest.raises(FrameError, match="nested more than 8 deep"):
        open_frame(nested, b"t" * 16, 1, [])


@pytest.mark.parametrize("value", [
    [bytes(32)] * 100, [bytes(32)] * 99 + [bytes(31)], [bytes(31)] + [bytes(32)] * 99,
    [5] * 100, [5] * 99 + [200], [b""] * 100, [bytes(255)] * 10,
])
def test_arrays_of_alike_items_are_read_at_once_and_counted_as_one_by_one(value):
    footprint = measure(encode(value), ROOMY)
    each = sum(48 + len(v) if isinstance(v, bytes) else 40 for v in value)
    assert footprint == Footprint(1 + len(value), 1, 56 + 8 * len(value) + each)
    with pytest.raises(CodecError, match=f"more than {len(value)} values"):
        measure(encode(value), Limits(max_bytes=1 << 16, max_elements=len(value)))
    if isinstance(value[0], bytes):
        with pytest.raises(CodecError, match="a blob of"):
            measure(encode(value), Limits(max_bytes=1 << 16, max_bin=len(value[-1]) - 1))


def test_a_signature_found_good_once_is_not_good_for_another_key_or_frame():
    # A process checks a signature once (`envelope._signed_by`): what it remembers must
    # not let another key's frame, an altered body or a forged signature through.
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    header = Header(b"t" * 16, 1, 0, 0, "app", ((0, bytes(32)),))
    frame = seal(header, {"play": [3]}, key)
    assert open_frame(frame, b"t" * 16, 1, [key.public_key()]).body == {"play": [3]}
    assert open_frame(frame, b"t" * 16, 1, [key.public_key()]).body == {"play": [3]}
    with pytest.raises(FrameError, match="bad signature"):
        open_frame(frame, b"t" * 16, 1, [other.public_key()])  # the same bytes, another key
    parts = msgpack.unpackb(frame)
    altered = msgpack.packb([parts[0], {"play": [4]}, parts[2]])
    with pytest.raises(FrameError, match="bad signature"):
        open_frame(altered, b"t" * 16, 1, [key.public_key()])
    forged = msgpack.packb([parts[0], parts[1], bytes(64)])
    with pytest.raises(FrameError, match="bad signature"):
        open_frame(forged, b"t" * 16, 1, [key.public_key()])
