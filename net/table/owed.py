"""What this peer waits for from each other seat now: what a stall deadline watches."""

from __future__ import annotations

from tractor.net.deck.engine import Deck
from tractor.net.deck.progress import DeckStep
from tractor.net.table.inbox import Inbox
from tractor.net.table.schedule import Schedule
from tractor.net.table.tricks import TrickPlay
from tractor.phases import Phase
from tractor.public import PublicHand


class Owed:
    """Seat -> the message this peer waits for from it now (its shuffle, a play ...).
    Keys the deck is owed have their own deadline (`Deck.tick`); this peer's own
    decisions are not listed."""

    def __init__(self, deck: Deck, public: PublicHand, schedule: Schedule, inbox: Inbox,
                 playing: TrickPlay) -> None:
        self.deck = deck
        self.public = public
        self.schedule = schedule
        self.inbox = inbox
        self.playing = playing

    def now(self) -> dict[int, str]:
        deck, me = self.deck, self.deck.me
        if deck.phase in (DeckStep.SHUFFLE, DeckStep.LOCK):  # its shuffle or its lock
            return {s: str(deck.phase) for s in deck.waiting_for() if s != me}
        empty = [s for s in range(deck.config.seats) if self.inbox.empty(s) and s != me]
        phase, public = self.schedule.phase, self.public
        opening = phase == Phase.DECLARE and public.turning_talon  # nobody declared
        if phase == Phase.SETUP or ((phase == Phase.TALON or opening)
                                    and not self.schedule.made("agreed talon")):
            return dict.fromkeys(empty, "agreement")
        if phase == Phase.DECLARE and not opening:
            return dict.fromkeys(empty, "declaration window")
        if phase in (Phase.BID, Phase.SHOW, Phase.NAME):
            seat = public.starter if phase == Phase.NAME else public.to_act()
            # What is owed, in words: the message's name (as plain text in a ballot).
            return {seat: str(phase)} if seat is not None and seat in empty else {}
        if phase == Phase.TALON:
            return self._burial(empty)
        if phase == Phase.THEFT:  # kitty theft: the seat whose turn it is in the window
            turn = public.window_turn  # a person's decision, with a declaration's deadline
            return {turn: "declaration window"} if turn in empty else {}
        if phase == Phase.CALL:  # find-a-friend: the starter's call, after its burial
            starter = public.starter
            return {starter: "call"} if starter is not None and starter in empty else {}
        if phase == Phase.PLAY and self.playing.current is not None:
            stuck = self.playing.takebacks.stuck
            if stuck is not None and stuck != me:
                return {stuck: "play"}
            seat, what = self.playing.owed()
            return {seat: what} if seat is not None and seat in empty else {}
        if phase == Phase.AUDIT:
            if deck.phase != DeckStep.DONE:
                return {s: "audit" for s in deck.waiting_for() if s != me}
            return {s: "verdict" for s in range(deck.config.seats)
                    if s not in deck.verdicts and s != me}
        return {}

    def _burial(self, empty: list[int]) -> dict[int, str]:
        """The starter owes its burial once the talon's keys reached it. With kitty theft,
        a thief owes its requests for the buried cards, then the seat that buried them its
        answers, then the thief its own burial (`net.table.theft`)."""
        deck, n, me = self.deck, self.deck.config.seats, self.deck.me
        theft = deck.kitty.pending
        if theft is not None:
            seat, what = ((theft.thief, "kitty request") if theft.asked is None
                          else (theft.burier, "kitty answer"))
            return {seat: what} if seat != me else {}
        talon = range(deck.config.dealt, deck.config.size)
        ready = all(len(deck.keys[p]) >= n - 1 for p in talon)
        exchanger = self.public.exchanger
        if ready and not deck.buried and exchanger is not None and exchanger in empty:
            return {exchanger: "burial"}
        return {}
