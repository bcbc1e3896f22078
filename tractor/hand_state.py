"""The state of one hand that its rules read and write, and where the hand stands: the
phase, whose turn it is, the seats' card counts, the trump once it is fixed.

`HandState` holds the fields and the questions every part of a hand's rules asks (whose
move, is this seat a defender, is it this seat's turn); the rules of each part live in
their own modules (`tractor.dealing`, `tractor.auction`, `tractor.playing`) as classes
built on it, and `tractor.public.PublicHand` is all of them together. The ``_move_*``
hooks say where cards go; the public hand counts them, `tractor.hand.Hand` moves the
real cards.
"""

from __future__ import annotations

from collections.abc import Sequence

from .formats import Format
from .friends import Sides
from .phases import (
    BID,
    CALL,
    DEAL,
    DECLARE,
    DONE,
    NAME,
    PLAY,
    SHOW,
    TALON,
    THEFT,
    Face,
    IllegalAction,
    Phase,
    Seat,
)
from .records import HandResult, Trick
from .rules import Rules, team_of
from .takeback import TakeBacks
from .trump import Ladder, Trump


class HandState:
    """The fields of one hand's public state and where it stands (see
    `tractor.public.PublicHand` for the arguments)."""

    def __init__(self, rules: Rules, levels: Sequence[str], first: Seat,
                 starter: Seat | None = None, declarers: int | None = None) -> None:
        self.rules = rules
        # Read at every move: kept as plain attributes (the rules are frozen), not worked
        # out from the rules each time.
        self.players = rules.players
        self._deal_size = rules.players * rules.hand_size
        self.levels = list(levels)
        self.first = first
        self.starter = starter
        self.declarers = declarers
        self.phase = DEAL  # both styles deal first; "auction" then bids
        self.sizes = [0] * rules.players  #: cards in each seat's hand
        self.drawn = 0
        # Declaring (reveal style).
        self.declaration: tuple[Seat, tuple[Face, ...]] | None = None
        self.declarations: list[tuple[Seat, tuple[Face, ...]]] = []
        self.window_turn = first
        self.window_passes = 0
        #: Nobody declared in a later hand: the talon is being turned over (seed 000).
        self.turning_talon = False
        self.talon_revealed: list[Face] = []
        #: Kitty theft: each overcall after a burial, (seat, faces), in order; the last
        #: overcaller holds the kitty (`exchanger`).
        self.thefts: list[tuple[Seat, tuple[Face, ...]]] = []
        # Auction style.
        self.bids: list[tuple[Seat, int]] = []  # (seat, points)
        #: Every bid and pass of the auction in turn, (seat, points), 0 for a pass (the
        #: screens' log; the observation keeps bids and passes apart, as before).
        self.auction_log: list[tuple[Seat, int]] = []
        self.out_of_auction: set[Seat] = set()
        self.auction_turn = first
        self.shown: list[tuple[Seat, Face]] = []
        # Trump and play.
        self.trump: Trump | None = None
        self.ladder: Ladder | None = None
        self.tricks: list[Trick] = []
        self.leader = starter if starter is not None else first
        self.current: list[tuple[Face, ...]] = []
        self.current_attempt: tuple[Face, ...] | None = None
        self.current_penalty = 0
        #: The lead a judged throw must be played as (the whole throw, or its forced part).
        self.pending_lead: tuple[Face, ...] | None = None
        self.lead_format: Format | None = None
        self.defender_points = 0
        self.penalties = 0
        self.result: HandResult | None = None
        # Find-a-friend (`tractor.friends`): the calls and who joined, from the call on;
        # each seat's trick points and failed throws' penalties, since the defenders'
        # points depend on sides the plays reveal.
        self.friend_mode = rules.mode == "friends"
        self.sides: Sides | None = None
        self.won = [0] * rules.players
        self.thrown = [0] * rules.players
        #: `Rules.takebacks`: the last play, and the take-backs made (`tractor.takeback`).
        self.takebacks = TakeBacks(rules.players)

    def _copy_lists_from(self, source: HandState) -> None:
        self.levels = list(source.levels)
        self.sizes = list(source.sizes)
        self.declarations = list(source.declarations)
        self.talon_revealed = list(source.talon_revealed)
        self.thefts = list(source.thefts)
        self.bids = list(source.bids)
        self.auction_log = list(source.auction_log)
        self.out_of_auction = set(source.out_of_auction)
        self.shown = list(source.shown)
        self.tricks = list(source.tricks)
        self.current = list(source.current)
        self.won = list(source.won)
        self.thrown = list(source.thrown)
        self.sides = source.sides.copy() if source.sides is not None else None
        self.takebacks = source.takebacks.copy()

    # --- where the hand stands ---------------------------------------------------------------

    def next_drawer(self) -> Seat:
        return (self.first + self.drawn) % self.players

    def deal_size(self) -> int:
        """Cards dealt to the seats (the rest is the talon)."""
        return self._deal_size

    def trump_rank(self) -> str:
        """Rank of the trumps-to-be: the declaring team's level (first hand: team 0's,
        both teams start equal); in find-a-friend the starter's (first hand: every player
        starts equal)."""
        if self.friend_mode:
            return self.levels[self.starter if self.starter is not None else self.first]
        return self.levels[self.declarers if self.declarers is not None else 0]

    def size_of(self, seat: Seat) -> int:
        return self.sizes[seat]

    @property
    def tricks_done(self) -> bool:
        """Every card is played (the result may still wait for the talon's points)."""
        # Between tricks every seat holds as many cards as the others.
        return self.phase in (PLAY, DONE) and not self.current and self.size_of(
            self.leader) == 0

    def to_act(self) -> Seat | None:
        """The seat whose move the hand waits for (None when none: turning the talon over,
        between the last trick and the score, or over)."""
        p = self.phase
        if p == PLAY:  # the moves of a hand are mostly plays and draws: asked first
            if self.current:
                return (self.leader + len(self.current)) % self.players
            # Between tricks every seat holds as many cards as the others.
            return None if self.size_of(self.leader) == 0 else self.leader % self.players
        if p == DEAL:
            return self.next_drawer()
        if p == DECLARE:
            return None if self.turning_talon else self.window_turn
        if p == TALON:
            return self.exchanger
        if p == THEFT:
            return self.window_turn
        if p == BID:
            return self.auction_turn
        if p == SHOW:
            return (self.first + len(self.shown)) % self.players
        if p in (NAME, CALL):
            return self.starter
        return None

    @property
    def exchanger(self) -> Seat | None:
        """The seat that holds the kitty: the starter, or the last seat that took it by an
        overcall (`Rules.kitty_theft`); it buries in TALON."""
        return self.thefts[-1][0] if self.thefts else self.starter

    def talon_turned(self) -> bool:
        """The defenders won the last trick: the talon is shown to everyone."""
        return self.result is not None and self.result.talon_turned

    def is_defender(self, seat: Seat) -> bool:
        """Not on the declaring side, as far as the table knows (in find-a-friend a friend
        not yet revealed counts as a defender until its called card is played)."""
        if self.friend_mode:
            return seat not in self.declaring_side()
        return team_of(seat) != self.declarers

    def declaring_side(self) -> tuple[Seat, ...]:
        """The seats known to declare: the declaring team's, or the starter and the friends
        revealed so far (empty before anybody declares)."""
        if self.friend_mode:
            if self.sides is not None:
                return self.sides.side
            return () if self.starter is None else (self.starter,)
        if self.declarers is None:
            return ()
        return tuple(s for s in range(self.players) if team_of(s) == self.declarers)

    def check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {seat!r:.20}")

    def _expect_turn(self, seat: Seat, phases: tuple[Phase, ...], what: str) -> None:
        self.check_seat(seat)
        if self.phase not in phases:
            raise IllegalAction(f"cannot {what} now: the hand is in the {self.phase} phase")
        act = self.to_act()
        if seat != act:
            raise IllegalAction(f"cannot {what}: it is seat {act}'s turn, not seat {seat}'s")

    def _set_trump(self, trump: Trump) -> None:
        """The trump is fixed: the starter takes the talon and will bury."""
        self.trump = trump
        self.ladder = trump.ladder(self.rules.tractor_across_rank,
                                   self.rules.rank_and_jokers_in_tractors)
        assert self.starter is not None
        self._move_talon(self.starter)
        self.leader = self.starter
        self.phase = TALON

    # --- where the cards go (the omniscient hand moves real cards) ---------------------------

    def _move_drawn(self, seat: Seat) -> None:
        self.sizes[seat] += 1

    def _move_dealt(self) -> None:
        """Every hand is full; the rest is the talon."""

    def _move_talon(self, seat: Seat) -> None:
        self.sizes[seat] += self.rules.talon_size

    def _move_buried(self, seat: Seat) -> None:
        self.sizes[seat] -= self.rules.talon_size

    def _move_stolen(self, seat: Seat) -> None:
        """Kitty theft: ``seat`` takes the buried cards into its hand."""
        self.sizes[seat] += self.rules.talon_size

    def _after_burial(self) -> None:
        """The kitty is buried: the starter calls its friends, or the play begins
        (`tractor.theft.TheftRules` opens the kitty-theft window first)."""
        self.phase = CALL if self.friend_mode else PLAY

    def _move_played(self, seat: Seat, faces: tuple[Face, ...]) -> None:
        if self.sizes[seat] < len(faces):
            raise IllegalAction(f"seat {seat} holds only {self.sizes[seat]} cards")
        self.sizes[seat] -= len(faces)

    def _tricks_over(self) -> None:
        """The last trick is in: the score waits for the buried points (`record_score`)."""

