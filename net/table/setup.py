"""What every peer agrees on before a hand."""

from __future__ import annotations

from dataclasses import dataclass

from tractor.rules import Rules


@dataclass(frozen=True)
class HandSetup:
    """What every peer agrees on before a hand: rules, levels, who draws first, and the
    starter and declaring team (None in a game's first hand: the declaration decides)."""

    rules: Rules
    levels: tuple[str, str]
    first: int
    starter: int | None = None
    declarers: int | None = None

    @property
    def rank(self) -> str:
        return self.levels[self.declarers if self.declarers is not None else 0]
