"""Small pieces of English for the screens' text (light: no screen library)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def count(n: int, noun: str) -> str:
    """``n`` and the noun, singular for one.

    >>> count(1, "card"), count(3, "card"), count(0, "level")
    ('1 card', '3 cards', '0 levels')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def display_names(names: Sequence[str]) -> list[str]:
    """The names as the screens show them: when several seats share a name (two people who
    kept their default), the later ones are numbered, so every seat reads differently.

    >>> display_names(["ann", "AI 1", "ann", "AI 2", "ann"])
    ['ann', 'AI 1', 'ann 2', 'AI 2', 'ann 3']
    """
    taken = set(names)
    seen: Counter[str] = Counter()
    out: list[str] = []
    for name in names:
        seen[name] += 1
        shown, k = name, seen[name]
        while k > 1 and shown in taken | set(out):
            shown = f"{name} {k}"
            k += 1
        out.append(shown)
    return out
