"""The auction variant's steps between peers (seed 001): bids in turn, the card-play for the
starter, and the trump named."""

from __future__ import annotations

from tractor.actions import Bid
from tractor.net.deck.engine import Deck
from tractor.net.table import messages as wire
from tractor.net.table.decisions import Decisions
from tractor.net.table.errors import TableError, judged
from tractor.net.table.inbox import Inbox
from tractor.net.table.positions import OwnCards, RevealedCards
from tractor.net.table.schedule import Schedule
from tractor.phases import Decision, Phase
from tractor.public import PublicHand


class Auction:
    """The schedule's steps BID, SHOW and NAME: the seat whose turn it is posts its
    move (this peer's asked of its player), and every peer applies it with the rules core."""

    def __init__(self, deck: Deck, public: PublicHand, schedule: Schedule, inbox: Inbox,
                 own: OwnCards, revealed: RevealedCards, decisions: Decisions) -> None:
        self.deck = deck
        self.public = public
        self.schedule = schedule
        self.inbox = inbox
        self.own = own
        self.revealed = revealed
        self.decisions = decisions

    def bid(self) -> list[bytes]:
        """Bids in turn from the dealer: each seat whose turn it is posts {"bid": points},
        0 for a pass, until every seat but the high bidder has passed."""
        public = self.public
        out: list[bytes] = []
        seat = public.to_act()
        assert seat is not None
        key = f"bid{len(public.bids) + len(public.out_of_auction)}"
        if seat == self.deck.me and not self.schedule.made(key):
            answer = self.decisions.bid(public.bid_options())
            if answer is None:
                return out
            if isinstance(answer, Bid) and not 0 <= answer.points <= wire.MAX_BID:
                # It cannot even be sent.
                raise TableError(self.deck.me, f"this peer's player bid {answer.points!r:.40}")
            self.schedule.mark(key)
            out += self.deck.post(wire.to_wire(wire.message_for(Decision.BID, answer, ())))
        if (taken := self.inbox.take(seat, wire.Bid)) is None:
            return out
        points = taken[0].points
        if points == 0:
            judged(seat, lambda: public.record_pass(seat))
        else:
            judged(seat, lambda: public.record_bid(seat, points))
        if public.phase == Phase.SHOW:
            self.schedule.phase = Phase.SHOW
        return out

    def show(self) -> list[bytes]:
        """The card-play for the starter: in turn from the dealer every seat shows one card
        through the deck and posts {"show": [position]}; the cards stay in the hands."""
        public = self.public
        out: list[bytes] = []
        seat = public.to_act()
        assert seat is not None
        key = f"show{len(public.shown)}"
        if seat == self.deck.me and not self.schedule.made(key):
            answer = self.decisions.shown_card()
            if answer is None:
                return out
            if len(answer.faces) != 1:  # a show message carries one card
                raise TableError(self.deck.me, f"this peer's player showed {answer.faces!r:.40}")
            self.schedule.mark(key)
            positions = self.own.positions_for(answer.faces)
            out += self.own.show(positions) + self.deck.post(
                wire.to_wire(wire.message_for(Decision.SHOW, answer, positions)))
        if (taken := self.inbox.take(seat, wire.Show)) is None:
            return out
        faces = self.revealed.faces(seat, taken[0].positions, "show", taken[1])  # one card
        judged(seat, lambda: public.record_show(seat, faces[0]))
        if public.phase == Phase.NAME:
            self.schedule.phase = Phase.NAME
        return out

    def name(self) -> list[bytes]:
        """The starter names trump: {"name": suit}, or None for no trump suit."""
        public = self.public
        out: list[bytes] = []
        seat = public.starter
        assert seat is not None
        if seat == self.deck.me and not self.schedule.made("name"):
            answer = self.decisions.trump_named()
            if answer is None:
                return out
            self.schedule.mark("name")
            out += self.deck.post(wire.to_wire(wire.message_for(Decision.NAME, answer, ())))
        if (taken := self.inbox.take(seat, wire.Name)) is None:
            return out
        suit = taken[0].suit
        judged(seat, lambda: public.record_trump_named(seat, suit))
        self.schedule.phase = Phase.TALON
        return out
