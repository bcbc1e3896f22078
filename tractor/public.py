"""The public life of one hand: every rule of a hand judged from what the table sees.

`PublicHand` is the one state machine of a hand's rules. It is fed the moves as they
become public (a card drawn, a declaration shown, a pass, a bid, a card shown in the
auction, the trump named, a talon card turned over, the burial, a throw and which of its
components were beaten, a play) and it judges them: whose turn it is, which declaration
stands and when the declaring closes, the trump, throw outcomes and their penalty, trick
winners, the score, and each seat's observation. It needs no hidden card: the omniscient
`tractor.hand.Hand` (the AI searches on it) is a `PublicHand` that also holds every card
and checks what only cards can tell (holding a card, following suit, whether a throw's
component can be beaten); the peers' table (`tractor.net.table`) feeds one from the deck
and the signed messages. So no rule, penalty or phase change is written twice.

>>> from tractor.rules import Rules
>>> p = PublicHand(Rules(), ["2", "2"], first=0, starter=0, declarers=0)
>>> for _ in range(100):
...     _ = p.record_draw()
>>> p.phase, p.to_act(), p.sizes
(<Phase.DECLARE: 'declare'>, 0, [25, 25, 25, 25])
>>> p.record_declaration(1, (0,))  # a 2, the trump rank, but out of turn
Traceback (most recent call last):
...
tractor.public.IllegalAction: it is seat 0's turn to declare or pass
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .cards import BLACK_JOKER, RANKS, RED_JOKER, SUITS, face_suit, format_cards, parse_faces
from .formats import THROW, Format, classify_faces
from .rules import Rules, team_of
from .scoring import points_of, score_outcome, talon_multiplier
from .trick import forced_component, winner_of
from .trump import Ladder, Trump

if TYPE_CHECKING:
    from .observation import Observation

Seat = int  #: 0 .. players-1, in playing order
Face = int  #: 0..53: a card regardless of which deck it comes from


class Phase(StrEnum):
    """Where a hand stands. Members equal their names as text (``Phase.DEAL == "deal"``)."""

    DEAL = "deal"  #: cards drawn one at a time; declarations at any moment (reveal style)
    DECLARE = "declare"  #: the final declare-or-pass window, then the talon turned over
    BID = "bid"  #: the auction (seed 001)
    SHOW = "show"  #: the auction's card-play that picks the starter
    NAME = "name"  #: the auction's starter names trump
    TALON = "talon"  #: the starter buries
    PLAY = "play"  #: tricks
    DONE = "done"
    REDEAL = "redeal"  #: a first hand nobody declared: deal again


DEAL, DECLARE, BID, SHOW, NAME, TALON, PLAY, DONE, REDEAL = tuple(Phase)


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why in plain words."""


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick. ``attempted`` is a failed throw's original lead (else None)."""

    leader: Seat
    plays: tuple[tuple[Face, ...], ...]  #: in playing order from the leader
    winner: Seat
    points: int
    attempted: tuple[Face, ...] | None = None
    penalty: int = 0

    def to_data(self) -> dict[str, Any]:
        return {
            "leader": self.leader,
            "plays": [format_cards(p) for p in self.plays],
            "winner": self.winner,
            "points": self.points,
            "attempted": format_cards(self.attempted) if self.attempted else None,
            "penalty": self.penalty,
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> Trick:
        """Read `to_data` output back."""
        return cls(d["leader"], tuple(tuple(parse_faces(p)) for p in d["plays"]), d["winner"],
                   d["points"], tuple(parse_faces(d["attempted"])) if d["attempted"] else None,
                   d["penalty"])


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended and what it means for the next one."""

    defender_points: int  #: card points, penalties and talon bonus included
    talon_points: int  #: points buried (public only when the talon is turned over)
    talon_bonus: int
    next_declarers: int  #: team
    levels_gained: int
    gaining_team: int
    next_starter: Seat
    #: The defenders won the last trick and turned the talon over (seed 000).
    talon_turned: bool = False

    def to_data(self) -> dict[str, Any]:
        """The public record: the buried points only when the talon was turned over."""
        return {
            "defender_points": self.defender_points,
            "talon_turned": self.talon_turned,
            "talon_points": self.talon_points if self.talon_turned else None,
            "talon_bonus": self.talon_bonus,
            "next_declarers": self.next_declarers,
            "levels_gained": self.levels_gained,
            "gaining_team": self.gaining_team,
            "next_starter": self.next_starter,
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> HandResult:
        """Read `to_data` output back; buried points it does not show read as 0."""
        return cls(d["defender_points"], d["talon_points"] or 0, d["talon_bonus"],
                   d["next_declarers"], d["levels_gained"], d["gaining_team"],
                   d["next_starter"], d["talon_turned"])

    def public(self) -> HandResult:
        """The result as every seat sees it: the buried points only when the talon was
        turned over (0 otherwise), as in `to_data`."""
        return self if self.talon_turned or not self.talon_points else replace(
            self, talon_points=0)


def throw_penalty_points(penalty: int, thrower_defends: bool) -> int:
    """What a failed throw's penalty does to the defenders' points. Seed 000: the thrower
    "transfers" 10 points per withdrawn card, so a defender's failed throw costs the
    defenders and a declarer's gives them the points.

    >>> throw_penalty_points(20, True), throw_penalty_points(20, False)
    (-20, 20)
    """
    return -penalty if thrower_defends else penalty


def declared_trump(faces: Sequence[Face], rank: str) -> Trump:
    """The trump a winning declaration makes: jokers make a hand of jokers only (no rank,
    no suit); rank cards make their suit trump with the rank.

    >>> print(declared_trump([53, 53], "2"), "/", declared_trump([13], "2"))
    jokers only / rank 2, suit H
    """
    return Trump(None, None) if faces[0] >= 52 else Trump(rank, face_suit(faces[0]))


def named_trump(suit: str | None, rank: str) -> Trump:
    """The trump the auction's starter names: a suit with the rank, or none (jokers
    only)."""
    return Trump(None, None) if suit is None else Trump(rank, suit)


def declaration_strength(faces: Sequence[Face], rank: str | None) -> int:
    """1 for one rank card, 2 for a pair of identical rank cards, 3 for a pair of
    identical jokers, 0 for anything else.

    >>> declaration_strength((0,), "2"), declaration_strength((0, 0), "2")
    (1, 2)
    >>> declaration_strength((53, 53), "2"), declaration_strength((1,), "2")
    (3, 0)
    """
    if len(faces) == 2 and faces[0] == faces[1] and faces[0] in (BLACK_JOKER, RED_JOKER):
        return 3
    if rank is None or not faces or faces[0] >= 52 or RANKS[faces[0] % 13] != rank:
        return 0
    if len(faces) == 1:
        return 1
    if len(faces) == 2 and faces[0] == faces[1]:
        return 2
    return 0


def declaration_options(held: Sequence[Face], rank: str,
                        standing: tuple[Face, ...] | None) -> list[tuple[Face, ...]]:
    """Every declaration ``held`` can make over the ``standing`` one (None: none yet), in
    face order, singles before pairs."""
    current = 0 if standing is None else declaration_strength(standing, rank)
    counts: dict[int, int] = {}
    for f in held:
        counts[f] = counts.get(f, 0) + 1
    out: list[tuple[Face, ...]] = []
    for f, c in sorted(counts.items()):
        for faces in ((f,), (f, f)) if c >= 2 else ((f,),):
            if declaration_strength(faces, rank) > current:
                out.append(faces)
    return out


def talon_trump_suit(revealed: Sequence[Face], rank: str) -> str | None:
    """The trump suit named by talon cards turned over in order when nobody declared
    (seed 000): the first card of the rank, else the highest-ranked card (the first of
    equals); jokers are skipped; no suited card names no suit."""
    best: int | None = None
    for f in revealed:
        if f >= 52:
            continue
        if RANKS[f % 13] == rank:
            return face_suit(f)
        if best is None or f % 13 > best % 13:
            best = f
    return face_suit(best) if best is not None else None


def hand_result(rules: Rules, card_points: int, talon_points: int, last_lead_cards: int,
                defenders_won_last: bool, declarers: int, starter: Seat) -> HandResult:
    """Score a finished hand: the talon bonus, the level change and the next starter
    (``card_points``: the defenders' points from tricks and throw penalties)."""
    bonus = 0
    if defenders_won_last:
        bonus = talon_points * talon_multiplier(last_lead_cards, rules.talon_multiplier)
    total = card_points + bonus
    side, gain = score_outcome(total, rules.decks, rules.level_step)
    if side == "declarers":
        team, nxt = declarers, starter + 2
    else:
        team, nxt = 1 - declarers, starter + 1
    return HandResult(total, talon_points, bonus, team, gain, team, nxt % rules.players,
                      talon_turned=defenders_won_last)


def show_order(face: Face) -> int:
    """Auction card-play order: jokers (red above black), then A high .. 2 low, suits equal."""
    return 100 + face if face >= 52 else face % 13


class PublicHand:
    """The public state of one hand and its rules (see the module docstring).

    ``levels`` are the two teams' levels; ``declarers`` is the declaring team and
    ``starter`` the starting seat (both None in the first hand of a revealing game:
    the first stable declaration decides them). ``first`` is the first seat to draw
    (the starter, the first drawer of the game, or the auction dealer).

    The ``record_*`` methods take one public move each, check what public information
    can check, and raise `IllegalAction` with the rules' reason (changing nothing) when
    the move is not allowed now.
    """

    def __init__(self, rules: Rules, levels: Sequence[str], first: Seat,
                 starter: Seat | None = None, declarers: int | None = None) -> None:
        self.rules = rules
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

    def copy_public(self) -> PublicHand:
        """An independent copy of the public state alone."""
        other = PublicHand.__new__(PublicHand)
        other.__dict__.update(self.__dict__)
        other._copy_lists_from(self)
        return other

    def _copy_lists_from(self, source: PublicHand) -> None:
        self.levels = list(source.levels)
        self.sizes = list(source.sizes)
        self.declarations = list(source.declarations)
        self.talon_revealed = list(source.talon_revealed)
        self.bids = list(source.bids)
        self.auction_log = list(source.auction_log)
        self.out_of_auction = set(source.out_of_auction)
        self.shown = list(source.shown)
        self.tricks = list(source.tricks)
        self.current = list(source.current)

    # --- where the hand stands ---------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    def next_drawer(self) -> Seat:
        return (self.first + self.drawn) % self.players

    def deal_size(self) -> int:
        return self.players * self.rules.hand_size

    def trump_rank(self) -> str:
        """Rank of the trumps-to-be: the declaring team's level (first hand: team 0's,
        both teams start equal)."""
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
        if p == DEAL:
            return self.next_drawer()
        if p == DECLARE:
            return None if self.turning_talon else self.window_turn
        if p == BID:
            return self.auction_turn
        if p == SHOW:
            return (self.first + len(self.shown)) % self.players
        if p in (NAME, TALON):
            return self.starter
        if p == PLAY and not self.tricks_done:
            return (self.leader + len(self.current)) % self.players
        return None

    def talon_turned(self) -> bool:
        """The defenders won the last trick: the talon is shown to everyone."""
        return self.result is not None and self.result.talon_turned

    def is_defender(self, seat: Seat) -> bool:
        return team_of(seat) != self.declarers

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

    # --- dealing and declaring ---------------------------------------------------------------

    def record_draw(self) -> Seat:
        """The next card is drawn, by the seat whose turn it is; returns that seat."""
        if self.phase != DEAL:
            raise IllegalAction(f"cannot draw now: the hand is in the {self.phase} phase")
        seat = self.next_drawer()
        self._move_drawn(seat)
        self.drawn += 1
        if self.drawn == self.deal_size():
            self._move_dealt()
            if self.rules.declaration == "reveal":
                self.phase = DECLARE
                self.window_turn = self.first
                self.window_passes = 0
            else:
                self.phase = BID
                self.auction_turn = self.first
        return seat

    def declaration_stands(self, faces: Sequence[Face]) -> bool:
        """Whether ``faces`` would overcall the standing declaration (or stand first)."""
        rank = self.trump_rank()
        current = 0 if self.declaration is None else declaration_strength(
            self.declaration[1], rank)
        return declaration_strength(faces, rank) > current

    def declaration_open(self) -> bool:
        """Whether any declaration may still be made (not after a pair of jokers)."""
        if self.rules.declaration != "reveal" or self.phase not in (DEAL, DECLARE) \
                or self.turning_talon:
            return False
        return self.declaration is None or declaration_strength(
            self.declaration[1], self.trump_rank()) < 3

    def record_declaration(self, seat: Seat, faces: tuple[Face, ...]) -> None:
        """``seat`` shows ``faces`` to declare trump."""
        self.check_seat(seat)
        if self.rules.declaration != "reveal":
            raise IllegalAction("trump is not declared by revealing cards in this variant")
        if self.phase not in (DEAL, DECLARE) or self.turning_talon:
            raise IllegalAction("trump can only be declared while the cards are dealt")
        if self.phase == DECLARE and seat != self.window_turn:
            raise IllegalAction(f"it is seat {self.window_turn}'s turn to declare or pass")
        rank = self.trump_rank()
        strength = declaration_strength(faces, rank)
        if strength == 0:
            raise IllegalAction(
                f"a declaration is one {rank}, a pair of identical {rank}s or a pair of "
                f"identical jokers, not {format_cards(faces, symbols=True)}")
        if self.declaration is not None:
            current = declaration_strength(self.declaration[1], rank)
            if current >= 3:
                raise IllegalAction("a pair of jokers cannot be overcalled")
            if strength <= current:
                need = "a pair of jokers" if current == 2 else "a pair or a pair of jokers"
                raise IllegalAction(f"only {need} can overcall "
                                    f"{format_cards(self.declaration[1], symbols=True)}")
        self.declaration = (seat, tuple(faces))
        self.declarations.append(self.declaration)
        if self.phase == DECLARE:
            self.window_passes = 0
            self.window_turn = (self.window_turn + 1) % self.players

    def record_pass(self, seat: Seat) -> None:
        """``seat`` passes: in the final declaring window, or in the auction."""
        if self.phase == DECLARE and not self.turning_talon:
            self._expect_turn(seat, (DECLARE,), "pass")
            self.window_passes += 1
            self.window_turn = (self.window_turn + 1) % self.players
            if self.window_passes >= self.players:
                self._close_declarations()
            return
        self._expect_turn(seat, (BID,), "pass")
        self.out_of_auction.add(seat)
        self.auction_log.append((seat, 0))
        self._next_bidder()

    def _close_declarations(self) -> None:
        if self.declaration is not None:
            seat, faces = self.declaration
            if self.starter is None:
                self.starter = seat
                self.declarers = team_of(seat)
            self._set_trump(declared_trump(faces, self.trump_rank()))
            return
        if self.starter is None:
            self.phase = REDEAL  # first hand, nobody declared: collect and deal again
            return
        self.turning_talon = True  # turn the talon over: `record_talon_card`
        if self.rules.talon_size == 0:
            self._turned_over()

    def record_talon_card(self, face: Face) -> None:
        """The next talon card is turned over for everyone (nobody declared, seed 000):
        until a card of the trump rank shows, else every card."""
        if not self.turning_talon:
            raise IllegalAction("the talon is turned over only when nobody declared")
        self.talon_revealed.append(face)
        if (face < 52 and RANKS[face % 13] == self.trump_rank()) or len(
                self.talon_revealed) == self.rules.talon_size:
            self._turned_over()

    def _turned_over(self) -> None:
        rank = self.trump_rank()
        self.turning_talon = False
        # A talon of jokers only (or no talon) names no suit: the rank alone is trump.
        self._set_trump(Trump(rank, talon_trump_suit(self.talon_revealed, rank)))

    def _set_trump(self, trump: Trump) -> None:
        self.trump = trump
        self.ladder = trump.ladder(self.rules.tractor_across_rank,
                                   self.rules.rank_and_jokers_in_tractors)
        assert self.starter is not None
        self._move_talon(self.starter)
        self.leader = self.starter
        self.phase = TALON

    # --- the auction (seed 001) ----------------------------------------------------------------

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

    # --- the talon and the tricks ------------------------------------------------------------

    def record_burial(self, seat: Seat) -> None:
        """The starter buries as many cards as the talon held (which ones is private)."""
        self._expect_turn(seat, (TALON,), "bury the talon")
        self._move_buried(seat)
        self.phase = PLAY

    def lead_format_of(self, faces: Sequence[Face]) -> Format:
        """The format of a lead as far as the public can tell: one suit, and a shape."""
        assert self.ladder is not None
        if not faces:
            raise IllegalAction("play at least one card")
        if self.ladder.suit_of_faces(list(faces)) is None:
            raise IllegalAction("a lead must be of one suit")
        try:
            return classify_faces(list(faces), self.ladder)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from exc

    def record_throw(self, seat: Seat, faces: Sequence[Face],
                     beaten: Sequence[int]) -> tuple[Face, ...]:
        """``seat`` leads the throw ``faces``; ``beaten`` are the indices of its components
        the forced part is chosen from under `Rules.throw_forced` (the core finds them in the
        hands, `tractor.trick.beaten_components`, the table by claims, `beaten_by_claims`).
        Returns the lead that stands (the whole throw, or its forced component), which
        `record_play` then expects; a failed throw's penalty is counted now."""
        self._expect_turn(seat, (PLAY,), "play")
        if self.current or self.pending_lead is not None:
            raise IllegalAction("only the lead of a trick can be a throw")
        fmt = self.lead_format_of(faces)
        if fmt.kind != THROW:
            raise IllegalAction("that lead is not a throw")
        if not all(type(i) is int and 0 <= i < len(fmt.components) for i in beaten):
            raise IllegalAction("a beaten component must be one of the throw's")
        self.current_attempt, self.current_penalty = None, 0
        stands = tuple(faces)
        if beaten:
            forced = forced_component([fmt.components[i] for i in sorted(set(beaten))])
            self.current_attempt = tuple(faces)
            withdrawn = len(faces) - len(forced.faces)
            self.current_penalty = withdrawn * self.rules.throw_penalty
            shift = throw_penalty_points(self.current_penalty, self.is_defender(seat))
            self.defender_points += shift
            self.penalties += shift
            stands = tuple(forced.faces)
        self.pending_lead = stands
        return stands

    def record_play(self, seat: Seat, faces: Sequence[Face]) -> None:
        """``seat`` plays ``faces`` to the trick. Public checks only: a lead of one suit
        (a throw judged first by `record_throw`), a follow of the lead's size; following
        suit needs the hand (`tractor.hand.Hand` checks it; between peers, the audit)."""
        self._expect_turn(seat, (PLAY,), "play")
        faces = tuple(faces)
        if not self.current:
            if self.pending_lead is not None:
                if sorted(faces) != sorted(self.pending_lead):
                    raise IllegalAction("after a throw, play the throw or its forced part")
                fmt = self.lead_format_of(faces)
            else:
                fmt = self.lead_format_of(faces)
                if fmt.kind == THROW:
                    raise IllegalAction("a throw must be announced for claims first")
                self.current_attempt, self.current_penalty = None, 0
            self.pending_lead = None
            self.lead_format = fmt
        else:
            assert self.lead_format is not None
            if len(faces) != self.lead_format.size:
                raise IllegalAction(f"play {self.lead_format.size} cards")
        self._move_played(seat, faces)
        self.current.append(faces)
        if len(self.current) == self.players:
            self._finish_trick()

    def _finish_trick(self) -> None:
        assert self.ladder is not None
        plays = self.current
        win = (self.leader + winner_of([list(p) for p in plays], self.ladder,
                                       throw_ruff=self.rules.throw_ruff)) % self.players
        pts = sum(points_of(p) for p in plays)
        trick = Trick(self.leader, tuple(plays), win, pts, self.current_attempt,
                      self.current_penalty)
        self.tricks.append(trick)
        if self.is_defender(win):
            self.defender_points += pts
        self.current = []
        self.current_attempt = None
        self.current_penalty = 0
        self.lead_format = None
        self.leader = win
        if self.tricks_done:
            self._tricks_over()

    def _tricks_over(self) -> None:
        """The last trick is in: the score waits for the buried points (`record_score`)."""

    def record_score(self, talon_points: int, offender: Seat | None = None) -> HandResult:
        """Score the hand once every trick is in, with the points the talon buried.
        ``offender``: the first seat an audit found breaking a rule, if any."""
        if not self.tricks_done or self.result is not None:
            raise IllegalAction("the hand is scored once, after its last trick")
        assert self.declarers is not None and self.starter is not None
        points, defenders_last = self.defender_points, self.is_defender(self.tricks[-1].winner)
        if offender is not None:
            # Choice (the seeds are silent): a broken rule found by the audit loses the hand
            # for the offender's team as badly as the scoring table allows.
            points = self.rules.total_points if not self.is_defender(offender) else 0
            defenders_last = False
        self.result = hand_result(self.rules, points, talon_points,
                                  len(self.tricks[-1].plays[0]), defenders_last,
                                  self.declarers, self.starter)
        self.defender_points = self.result.defender_points
        self.phase = DONE
        return self.result

    def record_forfeit(self, offender: Seat) -> HandResult:
        """End the hand before its time: ``offender`` stalled or left it (peer-to-peer
        play). **Choice** (the seeds are silent), as for a rule broken: the offender's team
        loses it as badly as the scoring table allows (every card point to the defenders if
        it declares, none if it defends), so walking out of a losing hand gains nothing.
        Only once a team declares; before that there is nothing to lose (`IllegalAction`).

        >>> from tractor.rules import Rules
        >>> h = PublicHand(Rules(), ("2", "2"), first=0, starter=0, declarers=0)
        >>> h.record_forfeit(1).gaining_team  # a defender left: the declarers gain
        0
        """
        if self.result is not None:
            raise IllegalAction("the hand is scored already")
        self.result = self.forfeit_result(offender)
        self.defender_points = self.result.defender_points
        self.phase = DONE
        return self.result

    def forfeit_result(self, offender: Seat) -> HandResult:
        """What `record_forfeit` scores, without recording it: also for a hand already
        scored (a verdict on it came after its last card, which a seat sent too late).

        >>> from tractor.rules import Rules
        >>> h = PublicHand(Rules(), ("2", "2"), first=0, starter=0, declarers=0)
        >>> h.forfeit_result(0).gaining_team  # a declarer left: the defenders gain
        1
        """
        if self.declarers is None or self.starter is None:
            raise IllegalAction("no team declares yet: the hand has nothing to lose")
        points = self.rules.total_points if not self.is_defender(offender) else 0
        return hand_result(self.rules, points, 0, 1, False, self.declarers, self.starter)

    # --- where the cards go (the omniscient hand moves real cards) ---------------------------

    def _move_drawn(self, seat: Seat) -> None:
        self.sizes[seat] += 1

    def _move_dealt(self) -> None:
        """Every hand is full; the rest is the talon."""

    def _move_talon(self, seat: Seat) -> None:
        self.sizes[seat] += self.rules.talon_size

    def _move_buried(self, seat: Seat) -> None:
        self.sizes[seat] -= self.rules.talon_size

    def _move_played(self, seat: Seat, faces: tuple[Face, ...]) -> None:
        if self.sizes[seat] < len(faces):
            raise IllegalAction(f"seat {seat} holds only {self.sizes[seat]} cards")
        self.sizes[seat] -= len(faces)

    # --- what a seat may know ----------------------------------------------------------------

    def observe_seat(self, seat: Seat, hand: Sequence[Face],
                     talon: Sequence[Face] | None = None,
                     buried: Sequence[Face] | None = None) -> Observation:
        """Exactly what ``seat`` may know: the public state, its own ``hand``, and the
        talon and burial when the seat knows them (the starter, or everyone once the talon
        is turned over at the end). The one place a `tractor.observation.Observation` is
        made: the rules core's `tractor.hand.Hand.observe` and the peers' table call it."""
        from .observation import Observation  # it reads this module's types

        self.check_seat(seat)
        phase = self.phase
        show_talon = seat == self.starter and phase in (TALON, PLAY, DONE)
        knows_burial = seat == self.starter or self.talon_turned()
        return Observation(
            seat=seat,
            phase=phase,
            to_act=self.to_act(),
            levels=tuple(self.levels),
            declarers=self.declarers,
            starter=self.starter,
            first=self.first,
            trump=self.trump,
            trump_rank=self.trump_rank(),
            hand=tuple(self.ladder.sort_faces(list(hand)) if self.ladder else sorted(hand)),
            hand_sizes=tuple(self.size_of(s) for s in range(self.players)),
            cards_dealt=self.drawn,
            declarations=tuple(self.declarations),
            window_passes=self.window_passes if phase == DECLARE else 0,
            talon_revealed=tuple(self.talon_revealed),
            talon=tuple(talon) if show_talon and talon is not None else None,
            buried=tuple(buried) if buried and knows_burial else None,
            bids=tuple(self.bids),
            passed_auction=tuple(sorted(self.out_of_auction)),
            shown=tuple(self.shown),
            tricks=tuple(self.tricks),
            leader=self.leader,
            current=tuple(self.current),
            current_attempt=self.current_attempt or None,
            defender_points=self.defender_points,
            penalties=self.penalties,
            result=self.result.public() if self.result else None,
        )

    @classmethod
    def from_observation(cls, rules: Rules, obs: Observation) -> PublicHand:
        """The public state of the hand as ``obs`` (any seat's observation under ``rules``)
        shows it, able to go on: every field the rules read is rebuilt (whose turn from
        ``to_act``, the lead's format from the current trick's lead, a failed throw's
        penalty from what it tried and what stands, the hand sizes). With an assignment of
        the hidden cards, `tractor.hand.Hand.from_public` makes a full hand of it, as
        OpenSpiel's resampling from an information state does.

        Not rebuilt: the moment on the peers' table between a throw judged from the claims
        and the thrower's play of what stands (no seat decides then); a hand observed there
        raises ValueError."""
        if len(obs.hand_sizes) != rules.players or len(obs.levels) != 2:
            raise ValueError("the observation is not of a hand under these rules")
        if obs.current_attempt and not obs.current:
            raise ValueError("after a judged throw the lead that stands is not public until "
                             "it is played")
        p = cls(rules, obs.levels, obs.first, obs.starter, obs.declarers)
        p.phase = obs.phase
        p.sizes = list(obs.hand_sizes)
        p.drawn = obs.cards_dealt
        p.declarations = list(obs.declarations)
        p.declaration = obs.declarations[-1] if obs.declarations else None
        if obs.phase == DECLARE:
            # The table turns the talon over card by card: nobody acts meanwhile.
            p.turning_talon = obs.to_act is None
            if obs.to_act is not None:
                p.window_turn = obs.to_act
            p.window_passes = obs.window_passes
        p.talon_revealed = list(obs.talon_revealed)
        p.bids = list(obs.bids)
        p.out_of_auction = set(obs.passed_auction)
        if obs.phase == BID and obs.to_act is not None:
            p.auction_turn = obs.to_act
        p.shown = list(obs.shown)
        if obs.trump is not None:
            p.trump = obs.trump
            p.ladder = obs.trump.ladder(rules.tractor_across_rank,
                                        rules.rank_and_jokers_in_tractors)
        p.tricks = list(obs.tricks)
        p.leader = obs.leader
        p.current = list(obs.current)
        p.current_attempt = obs.current_attempt
        if obs.current:
            assert p.ladder is not None
            lead = obs.current[0]
            p.lead_format = classify_faces(list(lead), p.ladder)
            if obs.current_attempt:
                p.current_penalty = (len(obs.current_attempt) - len(lead)) * rules.throw_penalty
        p.defender_points = obs.defender_points
        p.penalties = obs.penalties
        p.result = obs.result
        return p
