"""The auction (seed 001): bids in turn until one stands, the card-play that picks the
starter among the high bidder's team, and the trump the starter names.

The pure rules (`named_trump`, `show_order`) and `AuctionRules`, the part of
`tractor.public.PublicHand` that records those moves.

>>> [show_order(f) for f in (53, 52, 12, 0)]  # red joker, black joker, an ace, a two
[153, 152, 12, 0]
"""

from __future__ import annotations

from .cards import SUITS
from .hand_state import HandState
from .phases import BID, NAME, SHOW, Face, IllegalAction, Seat
from .rules import team_of
from .trump import Trump


def named_trump(suit: str | None, rank: str) -> Trump:
    """The trump the auction's starter names: a suit with the rank, or none (jokers
    only)."""
    return Trump(None, None) if suit is None else Trump(rank, suit)



def show_order(face: Face) -> int:
    """Auction card-play order: jokers (red above black), then A high .. 2 low, suits equal."""
    return 100 + face if face >= 52 else face % 13


class AuctionRules(HandState):
    """The auction's moves of a hand (see the module docstring)."""

    def high_bid(self) -> int:
        return max((p for _, p in self.bids), default=0)

    def bid_options(self) -> list[int]:
        """The bids open now: multiples of 5 above the high bid, up to the total points."""
        low = self.high_bid() + 5
        return [p for p in range(low - low % 5, self.rules.total_points + 1, 5) if p >= low]

    def bid_refusal(self, points: object, passing: bool = False) -> str | None:
        """Why ``points`` is no bid now (None: it is one; with ``passing``, 0 is a pass)."""
        if passing and points == 0 and type(points) is int:
            return None
        high = self.high_bid()
        if type(points) is not int or points % 5 or not high < points <= self.rules.total_points:
            return (f"a bid must be a multiple of 5 above {high}, at most "
                    f"{self.rules.total_points}" + (", or a pass" if passing else ""))
        return None

    @staticmethod
    def trump_refusal(suit: object) -> str | None:
        """Why ``suit`` is not a trump suit the starter may name (None: it is one)."""
        if suit is not None and suit not in SUITS:
            return f"a trump suit is one of {', '.join(SUITS)}, or none"
        return None

    def record_bid(self, seat: Seat, points: int) -> None:
        self._expect_turn(seat, (BID,), "bid")
        reason = self.bid_refusal(points)
        if reason:
            raise IllegalAction(reason)
        self.bids.append((seat, points))
        self.auction_log.append((seat, points))
        self._next_bidder()

    def _pass_auction(self, seat: Seat) -> None:
        """``seat`` passes in the auction and bids no more."""
        self._expect_turn(seat, (BID,), "pass")
        self.out_of_auction.add(seat)
        self.auction_log.append((seat, 0))
        self._next_bidder()

    def _next_bidder(self) -> None:
        # The auction ends when every seat but the high bidder has passed (or all passed).
        n = self.players
        high_seat = self.bids[-1][0] if self.bids else None
        waiting = [s for s in range(n) if s not in self.out_of_auction and s != high_seat]
        if not waiting:
            winner = high_seat if high_seat is not None else self.first
            self.declarers = team_of(winner)
            self.phase = SHOW
            return
        seat = (self.auction_turn + 1) % n
        while seat not in waiting:
            seat = (seat + 1) % n
        self.auction_turn = seat

    def record_show(self, seat: Seat, face: Face) -> None:
        """``seat`` shows one card in the auction's card-play (it stays in the hand)."""
        self._expect_turn(seat, (SHOW,), "show a card")
        if type(face) is not int or not 0 <= face < 54:
            raise IllegalAction("show exactly one card you hold")
        self.shown.append((seat, face))
        if len(self.shown) == self.players:
            best = max((s for s in self.shown if team_of(s[0]) == self.declarers),
                       key=lambda s: show_order(s[1]))  # max keeps the first of equals
            self.starter = best[0]
            self.leader = self.starter
            self.phase = NAME

    def record_trump_named(self, seat: Seat, suit: str | None) -> None:
        """The auction's starter names the trump suit (None: no trump)."""
        self._expect_turn(seat, (NAME,), "name the trump suit")
        reason = self.trump_refusal(suit)
        if reason:
            raise IllegalAction(reason)
        self._set_trump(named_trump(suit, self.trump_rank()))
