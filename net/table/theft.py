"""Kitty theft between peers (`Rules.kitty_theft`; the rules: `tractor.theft`): the window
after each burial, one seat's turn at a time (`net.table.hand` gives the whole schedule).

The seat whose turn it is posts ``{"steal": positions}``, the cards it overcalls with,
shown first through the deck as a declaration's are (none: a pass). Every peer judges it
with the rules core (`PublicHand.record_theft`, `record_pass`), so an overcall the rules
refuse, or cards the seat does not hold (any more: a card it showed may since lie buried),
is that seat's `TableError`. An overcall hands the buried positions to the thief through
the deck (`Deck.pass_kitty`: its blinded requests, the burier's proven answers), and the
table goes back to TALON, where the thief buries anew (`net.table.dealing`); the window
opens again after it. When every other seat passed, the window closes: the call of
find-a-friend, or the first trick.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from tractor.actions import Declare
from tractor.cards import format_cards
from tractor.net.deck.engine import Deck
from tractor.net.table.decisions import Decisions
from tractor.net.table.errors import TableError, judged
from tractor.net.table.inbox import Inbox
from tractor.net.table.messages import Overcall, to_wire
from tractor.net.table.positions import OwnCards, RevealedCards
from tractor.net.table.schedule import Schedule
from tractor.phases import Phase
from tractor.public import PublicHand


class TheftWindow:
    """The schedule's step THEFT (see the module docstring); ``first_trick(starter)``
    begins the play when the window closes."""

    def __init__(self, deck: Deck, public: PublicHand, schedule: Schedule, inbox: Inbox,
                 own: OwnCards, revealed: RevealedCards, decisions: Decisions,
                 first_trick: Callable[[int], None]) -> None:
        self.deck = deck
        self.public = public
        self.schedule = schedule
        self.inbox = inbox
        self.own = own
        self.revealed = revealed
        self.decisions = decisions
        self.first_trick = first_trick

    def options(self) -> list[tuple[int, ...]]:
        """The overcalls this seat's cards allow in its turn (empty otherwise)."""
        if self.public.phase != Phase.THEFT:
            return []
        return self.public.declarable(self.deck.me, self.own.faces())

    def step(self) -> list[bytes]:
        public, out = self.public, []
        while public.phase == Phase.THEFT:
            seat = public.window_turn
            out += self._my_turn(seat)
            if (taken := self.inbox.take(seat, Overcall)) is None:
                return out
            message, seq = taken
            if not message.positions:
                judged(seat, partial(public.record_pass, seat))
                continue
            self._check_held(seat, message.positions)
            faces = self.revealed.faces(seat, message.positions, "show", seq)
            judged(seat, partial(public.record_theft, seat, faces))
            self.schedule.phase = Phase.TALON  # the thief buries anew
            return out + self.deck.pass_kitty(seat)
        # Every other seat passed: the window is closed.
        starter = public.starter
        assert starter is not None
        if public.phase == Phase.CALL:
            self.schedule.phase = Phase.CALL
        else:
            self.schedule.phase = Phase.PLAY
            self.first_trick(starter)
        return out

    def _my_turn(self, seat: int) -> list[bytes]:
        """This peer's overcall or pass, once, when the turn is its seat's."""
        turn = f"theft {len(self.public.thefts)} {self.public.window_passes}"
        if seat != self.deck.me or self.schedule.made(turn):
            return []
        choice = self.decisions.declaration(self.options())
        if choice is None:
            return []
        self.schedule.mark(turn)
        faces = choice.faces if isinstance(choice, Declare) else ()
        positions = self.own.positions_for(faces) if faces else []
        return self.own.show(positions) + self.deck.post(to_wire(Overcall(tuple(positions))))

    def _check_held(self, seat: int, positions: tuple[int, ...]) -> None:
        """A card shown before (a declaration while dealing) may since have been buried and
        taken: an overcall is only of cards the seat holds now."""
        deck = self.deck
        gone = [p for p in positions
                if deck.owner[p] != seat or p in deck.buried or p in deck.played]
        if gone:
            cards = [deck.cards[p] % 54 for p in gone if p in deck.cards]
            raise TableError(seat, f"overcalls for the kitty with cards it does not hold "
                                   f"({format_cards(cards) if cards else gone})")
