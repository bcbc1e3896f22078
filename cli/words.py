"""Small pieces of English for the screens' text (light: no screen library)."""

from __future__ import annotations


def count(n: int, noun: str) -> str:
    """``n`` and the noun, singular for one.

    >>> count(1, "card"), count(3, "card"), count(0, "level")
    ('1 card', '3 cards', '0 levels')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
