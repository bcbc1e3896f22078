"""The end of a hand between peers: every key released, every peer replays the hand with
the rules core and signs its verdict; the result counts only if every verdict agrees."""

from __future__ import annotations

from collections.abc import Callable

from tractor.dealing import declared_trump
from tractor.net.deck.audit import PlayRecord, Thefts, Violation, audit_hand
from tractor.net.deck.engine import Deck
from tractor.net.deck.errors import carrying
from tractor.net.deck.progress import DeckStep
from tractor.net.table.errors import TableError
from tractor.net.table.schedule import Schedule
from tractor.net.table.setup import HandSetup
from tractor.phases import Phase
from tractor.public import PublicHand
from tractor.scoring import points_of


class HandAudit:
    """The schedule's step AUDIT, then DONE with the hand scored."""

    def __init__(self, setup: HandSetup, deck: Deck, public: PublicHand, schedule: Schedule,
                 records: list[PlayRecord], now: Callable[[], float]) -> None:
        self.setup = setup
        self.deck = deck
        self.public = public
        self.schedule = schedule
        self.records = records  #: every play of the hand (`TrickPlay.records`)
        self.now = now
        #: The rules this peer's replay found broken (None: not replayed yet).
        self.violations: list[Violation] | None = None

    def step(self) -> list[bytes]:
        deck = self.deck
        out = deck.audit(self.now()) if self.schedule.once("audit") else []
        if deck.phase != DeckStep.DONE:
            return out
        with carrying(out):  # this peer's verdict goes out even if another's differs
            if self.violations is None:
                self.violations = self._replay()
                out += deck.verdict([(v.seat, v.trick, v.reason) for v in self.violations])
            if len(deck.verdicts) < deck.config.seats:
                return out
            mine = [v.to_data() for v in self.violations]
            for seat, verdict in deck.verdicts.items():
                if verdict["violations"] != mine:
                    raise TableError(seat, "its audit verdict differs from this peer's")
        self._score(self.violations)
        self.schedule.phase = Phase.DONE
        return out

    def _replay(self) -> list[Violation]:
        public, setup = self.public, self.setup
        assert public.trump is not None and public.starter is not None
        # A declaring team, or in find-a-friend the starter's calls (no team).
        assert (public.declarers is None) == (public.sides is not None)
        calls = public.sides.calls if public.sides is not None else None
        trump, thefts = public.trump, None
        if public.thefts:  # kitty theft: replayed from the declaration at the first burial
            standing = public.declarations[len(public.declarations) - len(public.thefts) - 1]
            trump = declared_trump(standing[1], public.trump_rank())
            thefts = Thefts(standing, tuple(public.thefts),
                            tuple(tuple(b) for b in self.deck.burials))
        return audit_hand(setup.rules, self.deck.deck_order(), setup.levels, setup.first,
                          trump, public.starter, public.declarers, self.deck.buried,
                          self.records, calls, thefts)

    def _score(self, violations: list[Violation]) -> None:
        order = self.deck.deck_order()
        offender = violations[0].seat if violations else None
        self.public.record_score(points_of(order[p] % 54 for p in self.deck.buried), offender)
