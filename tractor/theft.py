"""Kitty theft (`Rules.kitty_theft`, reveal style only; seeds/README.md, "Kitty theft").

After each burial a window goes round the table in playing order from the seat after the
one that buried: each seat may overcall the standing declaration with cards from its hand
(the same overcall as while drawing) or pass. An overcall changes trump; the overcaller
takes the buried cards into its hand and buries as many, and the window opens again after
it. The window closes when every other seat passed since the last burial, or at once when
nothing can overcall the standing declaration (a pair of jokers, or trump turned over from
the talon). The starter, the leader of the first trick and the declaring side never
change: a thief only changes trump and which cards lie buried.

`TheftRules` is the part of `tractor.public.PublicHand` that records those moves.
"""

from __future__ import annotations

from .cards import format_cards
from .dealing import declaration_strength, declared_trump
from .hand_state import HandState
from .phases import TALON, THEFT, Face, IllegalAction, Seat

#: The strength of a pair of jokers, which nothing overcalls (`declaration_strength`).
_HIGHEST = 3


class TheftRules(HandState):
    """The kitty-theft window (see the module docstring)."""

    def theft_open(self) -> bool:
        """Whether a declaration stands that some overcall could still beat, so a window
        follows a burial."""
        return self.rules.kitty_theft and self.declaration is not None and \
            declaration_strength(self.declaration[1], self.trump_rank(),
                                 self.rules.no_trump_jokers) < _HIGHEST

    def _after_burial(self) -> None:
        if not self.theft_open():
            super()._after_burial()
            return
        exchanger = self.exchanger
        assert exchanger is not None
        self.phase = THEFT
        self.window_turn = (exchanger + 1) % self.players
        self.window_passes = 0

    def record_theft(self, seat: Seat, faces: tuple[Face, ...]) -> None:
        """``seat`` overcalls with ``faces`` in the window: trump changes and it takes the
        buried cards (the caller checks that it holds ``faces``: `tractor.hand.Hand`,
        between peers the cards the seat opens)."""
        self._expect_turn(seat, (THEFT,), "overcall for the kitty")
        assert self.declaration is not None
        rank = self.trump_rank()
        jokers = self.rules.no_trump_jokers
        strength = declaration_strength(faces, rank, jokers)
        current = declaration_strength(self.declaration[1], rank, jokers)
        if strength <= current:
            need = "a pair of jokers" if current == 2 else "a pair or a pair of jokers"
            raise IllegalAction(f"only {need} can overcall "
                                f"{format_cards(self.declaration[1], symbols=True)} to take "
                                "the kitty")
        self.declaration = (seat, tuple(faces))
        self.declarations.append(self.declaration)
        self.thefts.append(self.declaration)
        trump = declared_trump(faces, rank)
        self.trump = trump
        self.ladder = trump.ladder(self.rules.tractor_across_rank,
                                   self.rules.rank_and_jokers_in_tractors)
        self._move_stolen(seat)
        self.phase = TALON

    def _pass_theft(self, seat: Seat) -> None:
        """``seat`` passes in the window; the last pass closes it."""
        self._expect_turn(seat, (THEFT,), "pass")
        self.window_passes += 1
        self.window_turn = (self.window_turn + 1) % self.players
        if self.window_passes >= self.players - 1:
            super()._after_burial()
