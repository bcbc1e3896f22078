"""A wormhole's Dilation that takes the subchannels its side listens on, and no other.

magic-wormhole holds every subchannel the other side opens under a name nothing listens
on, with every byte sent on it, until something listens on that name: a watcher with a
watch code (or a guest with a seat code, or a seat on its pair's wormhole) that opened
subchannels of made-up names and wrote on them would fill the other side's memory, and a
host the joiner's (which listens on nothing). The library refuses such names when told
the ones expected (``expected_subprotocols``), but magic-wormhole 0.24 keeps the list
without giving it to the part that reads the other side's opens (checked against the
library in tests/test_attack_watch2.py): `dilate_only` gives it there as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def dilate_only(wormhole: Any, names: Sequence[str], **options: Any) -> Any:
    """``wormhole.dilate(**options)``, the other side's subchannels refused (closed at
    once) unless named in ``names`` (empty: this side only opens subchannels)."""
    expected = list(names)
    dilated = wormhole.dilate(expected_subprotocols=expected, **options)
    # (magic-wormhole 0.24: `DilatedWormhole._manager._subprotocol_factories`, a
    # `SubchannelDemultiplex` made without the list; a later one that has it is left be.)
    demultiplex = getattr(getattr(dilated, "_manager", None), "_subprotocol_factories", None)
    if demultiplex is not None and getattr(demultiplex, "_expected", ()) is None:
        demultiplex._expected = expected
    return dilated
