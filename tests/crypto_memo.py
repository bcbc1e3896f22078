"""The deck's group operations remembered within one test process (conftest turns it on;
`TRACTOR_TEST_NO_MEMO=1` turns it off).

Why: k*P (`tractor.net.deck.group.mul`, libsodium, about 95 µs), k*G (`base`, 18 µs) and
P+Q (`add`, 15 µs) are pure functions of their 32-byte arguments, and the in-process tests
compute the same ones again and again: every case of a parametrized test deals the same
seeded decks before its attack starts, and at a table of in-memory peers every peer checks
the same proofs with the same challenges. On this machine the multiplications were a
quarter to a third of those tests' CPU: with the products remembered
`tests/test_shuffle_ahead.py` took 51 s of CPU instead of 76 and `test_stalls.py` 37 instead
of 46; with the sums and base products too (and `tractor` checking a signature once per
process, `envelope._signed_by`), shuffle_ahead took 33 s.

What the tests check does not change: a result is computed by libsodium the first time and
is the same bytes every time after; a refused one (a bad point, a zero result) is never
remembered, so it is refused again; `OPS` counts every multiplication asked for, remembered
or not, as the benchmarks expect. Processes the tests start (the `tractor` command, AI
peers) never load this module: they compute as users' programs do. `tractor` itself
remembers no product, since the scalars are secrets that would stay in memory longer (it
remembers only public values: points found valid, `check_point`; signatures found good).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

#: Products kept before the memory is emptied (about 100 bytes each: some 20 MB at most).
LIMIT = 200_000


def install() -> None:
    """Replace `mul`, `base` and `add` in the deck's modules by remembering ones
    (idempotent)."""
    from tractor.net.deck import group

    if getattr(group.mul, "remembering", False):
        return
    counted = {"mul": "mults", "base": "base_mults"}  # (`add` is not counted)
    for name in ("mul", "base", "add"):
        original = getattr(group, name)
        _replace(original, _remembering(original, counted.get(name)))


def _remembering(original: Callable[..., bytes], count: str | None) -> Callable[..., bytes]:
    from tractor.net.deck import group

    remembered: dict[bytes, bytes] = {}

    def memo(*args: bytes) -> bytes:
        key = b"".join(args)
        product = remembered.get(key)
        if product is None:
            product = original(*args)  # raises on a refused product: nothing remembered
            if len(remembered) >= LIMIT:
                remembered.clear()
            remembered[key] = product
        elif count is not None:
            setattr(group.OPS, count, getattr(group.OPS, count) + 1)
        return product

    memo.__doc__ = original.__doc__
    memo.remembering = True  # type: ignore[attr-defined]
    return memo


def _replace(original: Callable[..., bytes], memo: Callable[..., bytes]) -> None:
    """Every deck module that imported ``original`` by name gets ``memo`` (importing them
    all first, so none imports the original after this)."""
    import importlib
    import pkgutil

    from tractor.net import deck

    for info in pkgutil.iter_modules(deck.__path__, "tractor.net.deck."):
        importlib.import_module(info.name)
    for name, module in list(sys.modules.items()):
        if not name.startswith("tractor.net.deck"):
            continue
        for attr, value in list(vars(module).items()):
            if value is original:
                setattr(module, attr, memo)
