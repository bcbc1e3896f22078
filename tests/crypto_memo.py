"""The deck's scalar multiplications remembered within one test process (conftest turns it
on; `TRACTOR_TEST_NO_MEMO=1` turns it off).

Why: k*P (`tractor.net.deck.group.mul`, libsodium, about 95 µs) is a pure function of its
two 32-byte arguments, and the in-process tests compute the same products again and again:
every case of a parametrized test deals the same seeded decks before its attack starts, and
at a table of in-memory peers every peer checks the same proofs with the same challenges.
On this machine the multiplications were a quarter to a third of those tests' CPU; with
them remembered `tests/test_shuffle_ahead.py` took 51 s instead of 76, `test_stalls.py` 37
instead of 46. What the tests check does not change: a product is computed by libsodium the
first time and is the same bytes every time after; a refused product (a bad point, a zero
result) is never remembered, so it is refused again; `OPS` counts every multiplication asked
for, remembered or not, as the benchmarks expect. Processes the tests start (the `tractor`
command, AI peers) never load this module: they multiply as users' programs do.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

#: Products kept before the memory is emptied (about 100 bytes each: some 20 MB at most).
LIMIT = 200_000


def install() -> None:
    """Replace `mul` in the deck's modules by a remembering one (idempotent)."""
    from tractor.net.deck import group

    original = group.mul
    if getattr(original, "remembering", False):
        return
    remembered: dict[bytes, bytes] = {}

    def mul(k: bytes, p: bytes) -> bytes:
        key = k + p
        product = remembered.get(key)
        if product is None:
            product = original(k, p)  # raises on a refused product: nothing remembered
            if len(remembered) >= LIMIT:
                remembered.clear()
            remembered[key] = product
        else:
            group.OPS.mults += 1
        return product

    mul.__doc__ = original.__doc__
    mul.remembering = True  # type: ignore[attr-defined]
    _replace(original, mul)


def _replace(original: Callable[..., bytes], memo: Callable[..., bytes]) -> None:
    """Every deck module that imported `mul` by name gets the remembering one (importing
    them all first, so none imports the original after this)."""
    import importlib
    import pkgutil

    from tractor.net import deck

    for info in pkgutil.iter_modules(deck.__path__, "tractor.net.deck."):
        importlib.import_module(info.name)
    for name, module in list(sys.modules.items()):
        if name.startswith("tractor.net.deck") and getattr(module, "mul", None) is original:
            module.mul = memo  # type: ignore[attr-defined]
