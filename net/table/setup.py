"""What every peer agrees on before a hand."""

from __future__ import annotations

from dataclasses import dataclass

from tractor.rules import Rules


@dataclass(frozen=True)
class HandSetup:
    """What every peer agrees on before a hand: rules, levels, who draws first, and the
    starter and declaring team (None in a game's first hand: the declaration decides).

    ``levels`` has `Rules.level_count` entries: the two teams' levels, or in find-a-friend
    one per player (there are no teams: ``declarers`` stays None)."""

    rules: Rules
    levels: tuple[str, ...]
    first: int
    starter: int | None = None
    declarers: int | None = None

    def __post_init__(self) -> None:
        if len(self.levels) != self.rules.level_count:
            raise ValueError(f"a hand of these rules has {self.rules.level_count} levels, "
                             f"not {len(self.levels)}")

    @property
    def rank(self) -> str:
        """The trump rank to be: the declaring team's level, or in find-a-friend the
        starter's (the first drawer's in a first hand: every level is equal then)."""
        if self.rules.mode == "friends":
            return self.levels[self.starter if self.starter is not None else self.first]
        return self.levels[self.declarers if self.declarers is not None else 0]
