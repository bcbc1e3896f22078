"""One hand of Tractor as a state machine: deal and declare, talon, 25 tricks, score.

`Hand` holds the whole (omniscient) state of one hand. ``legal_actions(seat)``
lists what a seat may do now, ``apply(action)`` checks and performs one action
(raising `IllegalAction` with the rules' reason), and ``observation(seat)`` is
exactly what that seat may know. `tractor.game.Game` strings hands together.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action, Bid, Bury, Declare, Draw, NameTrump, Pass, Play, Show
from .cards import BLACK_JOKER, RANKS, RED_JOKER, SUITS, face_suit, format_cards
from .follow import (
    counted,
    follow_error,
    lead_error,
    legal_follows,
    multisets,
    random_follow,
    random_lead,
)
from .formats import THROW, Format, classify_faces, tractors_in
from .rules import Rules, team_of
from .scoring import points_of, score_outcome, talon_multiplier
from .trick import failed_components, forced_component, winner_of
from .trump import Ladder, Trump

DEAL, DECLARE, BID, SHOW, NAME, TALON, PLAY, DONE, REDEAL = (
    "deal", "declare", "bid", "show", "name", "talon", "play", "done", "redeal")


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why in plain words."""


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick. ``attempted`` is a failed throw's original lead (else None)."""

    leader: int
    plays: tuple[tuple[int, ...], ...]  #: in playing order from the leader
    winner: int
    points: int
    attempted: tuple[int, ...] | None = None
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


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended and what it means for the next one."""

    defender_points: int  #: card points, penalties and talon bonus included
    talon_points: int  #: points buried (public only when the talon is turned over)
    talon_bonus: int
    next_declarers: int  #: team
    levels_gained: int
    gaining_team: int
    next_starter: int
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


def declaration_strength(faces: Sequence[int], rank: str | None) -> int:
    """1 for one rank card, 2 for a pair of identical rank cards, 3 for a pair of
    identical jokers, 0 for anything else."""
    if len(faces) == 2 and faces[0] == faces[1] and faces[0] in (BLACK_JOKER, RED_JOKER):
        return 3
    if rank is None or not faces or faces[0] >= 52 or RANKS[faces[0] % 13] != rank:
        return 0
    if len(faces) == 1:
        return 1
    if len(faces) == 2 and faces[0] == faces[1]:
        return 2
    return 0


def talon_trump_suit(revealed: Sequence[int], rank: str) -> str | None:
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
                defenders_won_last: bool, declarers: int, starter: int) -> HandResult:
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


def _show_order(face: int) -> int:
    """Auction card-play order: jokers (red above black), then A high .. 2 low, suits equal."""
    return 100 + face if face >= 52 else face % 13


class Hand:
    """The full state of one hand.

    ``levels`` are the two teams' levels; ``declarers`` is the declaring team and
    ``starter`` the starting seat (both None in the first hand of a revealing game:
    the first stable declaration decides them). ``first`` is the first seat to draw
    (the starter, the first drawer of the game, or the auction dealer).
    """

    def __init__(self, rules: Rules, deck: Sequence[int], levels: Sequence[str],
                 first: int, starter: int | None = None, declarers: int | None = None) -> None:
        if sorted(deck) != sorted(f for f in range(54) for _ in range(rules.decks)):
            raise ValueError("the deck must hold every card of the rules' decks once")
        self.rules = rules
        self.deck = list(deck)
        self.levels = list(levels)
        self.first = first
        self.starter = starter
        self.declarers = declarers
        self.phase = DEAL  # both styles deal first; "auction" then bids
        n = rules.players
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.drawn = 0
        # Declaring (reveal style).
        self.declaration: tuple[int, tuple[int, ...]] | None = None
        self.declarations: list[tuple[int, tuple[int, ...]]] = []
        self.window_turn = first
        self.window_passes = 0
        self.talon_revealed: list[int] = []
        # Auction style.
        self.bids: list[tuple[int, int]] = []  # (seat, points); 0 points = pass
        self.out_of_auction: set[int] = set()
        self.auction_turn = first
        self.shown: list[tuple[int, int]] = []
        # Trump and play.
        self.trump: Trump | None = None
        self.ladder: Ladder | None = None
        self.talon: list[int] = []
        self.buried: list[int] = []
        self.tricks: list[Trick] = []
        self.leader = starter if starter is not None else first
        self.current: list[tuple[int, ...]] = []
        self.current_attempt: tuple[int, ...] | None = None
        self.current_penalty = 0
        self.lead_format: Format | None = None
        self.defender_points = 0
        self.penalties = 0
        self.result: HandResult | None = None
        self.log: list[Action] = []

    @classmethod
    def dealt(cls, rules: Rules, deck: Sequence[int], levels: Sequence[str], first: int,
              trump: Trump, starter: int, declarers: int) -> Hand:
        """A hand with every card drawn and the trump fixed, at the talon exchange: for audits
        (the deck is known afterwards) and for search (a sampled deal)."""
        hand = cls(rules, deck, levels, first, starter, declarers)
        size = hand.deal_size()
        for i in range(size):
            hand.hands[(first + i) % hand.players].append(hand.deck[i])
        hand.drawn = size
        hand.talon = hand.deck[size:]
        hand._set_trump(trump)
        return hand

    def force_play(self, seat: int, faces: Sequence[int]) -> None:
        """Record a play without checking it (an audit going on past a broken rule).
        The cards must be in the seat's hand; the trick completes as usual."""
        if self.phase != PLAY or seat != self.to_act():
            raise IllegalAction(f"it is not seat {seat}'s turn to play")
        hand = self.hands[seat]
        missing = list(faces)
        for f in hand:
            if f in missing:
                missing.remove(f)
        if missing:
            raise IllegalAction(f"seat {seat} does not hold {format_cards(missing)}")
        if not self.current:
            assert self.ladder is not None
            try:
                self.lead_format = classify_faces(list(faces), self.ladder)
            except ValueError as exc:
                raise IllegalAction(str(exc)) from exc
            self.current_attempt, self.current_penalty = None, 0
        for f in faces:
            hand.remove(f)
        self.current.append(tuple(faces))
        self.log.append(Play(seat, tuple(faces)))
        if len(self.current) == self.players:
            self._finish_trick()

    def clone(self) -> Hand:
        """An independent copy, much faster than `copy.deepcopy` (for search)."""
        other = Hand.__new__(Hand)
        other.__dict__.update(self.__dict__)
        other.levels = list(self.levels)
        other.hands = [list(h) for h in self.hands]
        other.declarations = list(self.declarations)
        other.talon_revealed = list(self.talon_revealed)
        other.bids = list(self.bids)
        other.out_of_auction = set(self.out_of_auction)
        other.shown = list(self.shown)
        other.talon = list(self.talon)
        other.buried = list(self.buried)
        other.tricks = list(self.tricks)
        other.current = list(self.current)
        other.log = list(self.log)
        return other

    # --- helpers ----------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    def next_drawer(self) -> int:
        return (self.first + self.drawn) % self.players

    def deal_size(self) -> int:
        return self.players * self.rules.hand_size

    def trump_rank(self) -> str:
        """Rank of the trumps-to-be: the declaring team's level (first hand: team 0's,
        both teams start equal)."""
        return self.levels[self.declarers if self.declarers is not None else 0]

    def to_act(self) -> int | None:
        """The seat whose move the hand waits for (None when the hand is over)."""
        p = self.phase
        if p == DEAL:
            return self.next_drawer()
        if p == DECLARE:
            return self.window_turn
        if p == BID:
            return self.auction_turn
        if p == SHOW:
            return (self.first + len(self.shown)) % self.players
        if p in (NAME, TALON):
            return self.starter
        if p == PLAY:
            return (self.leader + len(self.current)) % self.players
        return None

    def _talon_turned(self) -> bool:
        return self.result is not None and self.result.talon_turned

    def is_defender(self, seat: int) -> bool:
        return team_of(seat) != self.declarers

    # --- legal actions ----------------------------------------------------------------------

    def _check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {seat!r:.20}")

    def legal_declarations(self, seat: int) -> list[Declare]:
        self._check_seat(seat)
        if self.rules.declaration != "reveal" or self.phase not in (DEAL, DECLARE):
            return []
        current = 0 if self.declaration is None else declaration_strength(
            self.declaration[1], self.trump_rank())
        if current >= 3:
            return []
        rank = self.trump_rank()
        hand = self.hands[seat]
        counts: dict[int, int] = {}
        for f in hand:
            counts[f] = counts.get(f, 0) + 1
        out: list[Declare] = []
        for f in sorted(counts):
            if f >= 52:
                if counts[f] >= 2:
                    out.append(Declare(seat, (f, f)))
            elif RANKS[f % 13] == rank:
                if current < 1:
                    out.append(Declare(seat, (f,)))
                if current < 2 and counts[f] >= 2:
                    out.append(Declare(seat, (f, f)))
        return out

    def legal_actions(self, seat: int) -> Iterator[Action]:
        """Every action ``seat`` may take now, lazily (burying and discarding can have
        very many: take what you need)."""
        self._check_seat(seat)
        return self._legal_actions(seat)

    def _legal_actions(self, seat: int) -> Iterator[Action]:
        p = self.phase
        act = self.to_act()
        if p == DEAL:
            if seat == act:
                yield Draw(seat)
            yield from self.legal_declarations(seat)
        elif p == DECLARE and seat == act:
            yield Pass(seat)
            yield from self.legal_declarations(seat)
        elif p == BID and seat == act:
            yield Pass(seat)
            low = self.high_bid() + 5
            for pts in range(low - low % 5, self.rules.total_points + 1, 5):
                if pts >= low:
                    yield Bid(seat, pts)
        elif p == SHOW and seat == act:
            for f in sorted(set(self.hands[seat])):
                yield Show(seat, (f,))
        elif p == NAME and seat == act:
            for s in SUITS:
                yield NameTrump(seat, s)
            yield NameTrump(seat, None)
        elif p == TALON and seat == act:
            assert self.ladder is not None
            for combo in multisets(counted(self.hands[seat], self.ladder), self.rules.talon_size):
                yield Bury(seat, tuple(combo))
        elif p == PLAY and seat == act:
            assert self.ladder is not None
            if not self.current:
                yield from (Play(seat, tuple(c)) for c in self._leads(seat))
            else:
                assert self.lead_format is not None
                for c in legal_follows(self.hands[seat], self.lead_format, self.ladder,
                                       self.rules.must_play_tractor):
                    yield Play(seat, tuple(c))

    def _leads(self, seat: int) -> Iterator[list[int]]:
        """Singles, pairs and tractors first, then every other lead (throws), per suit."""
        assert self.ladder is not None
        ladder = self.ladder
        hand = self.hands[seat]
        by_suit: dict[int, list[int]] = {}
        for f in hand:
            by_suit.setdefault(ladder.esuit[f], []).append(f)
        simple: list[list[int]] = []
        for faces in by_suit.values():
            counts: dict[int, int] = {}
            for f in faces:
                counts[f] = counts.get(f, 0) + 1
            simple += [[f] for f in counts]
            simple += [[f, f] for f, c in counts.items() if c >= 2]
            simple += tractors_in(faces, ladder)
        yield from simple
        for faces in by_suit.values():
            options = counted(faces, ladder)
            for k in range(2, len(faces) + 1):
                for combo in multisets(options, k):
                    if classify_faces(combo, ladder).kind == THROW:
                        yield combo

    def high_bid(self) -> int:
        return max((p for _, p in self.bids), default=0)

    # --- apply --------------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Check and perform one action; raises `IllegalAction` with the reason."""
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(f"unknown action {action!r}")
        self._check_seat(action.seat)
        handler(self, action)
        self.log.append(action)

    def _expect_turn(self, seat: int, phases: tuple[str, ...], what: str) -> None:
        if self.phase not in phases:
            raise IllegalAction(f"cannot {what} now: the hand is in the {self.phase} phase")
        act = self.to_act()
        if seat != act:
            raise IllegalAction(f"cannot {what}: it is seat {act}'s turn, not seat {seat}'s")

    def _draw(self, a: Draw) -> None:
        self._expect_turn(a.seat, (DEAL,), "draw")
        self.hands[a.seat].append(self.deck[self.drawn])
        self.drawn += 1
        if self.drawn == self.deal_size():
            self.talon = self.deck[self.drawn:]
            if self.rules.declaration == "reveal":
                self.phase = DECLARE
                self.window_turn = self.first
                self.window_passes = 0
            else:
                self.phase = BID
                self.auction_turn = self.first

    def _declare(self, a: Declare) -> None:
        if self.rules.declaration != "reveal":
            raise IllegalAction("trump is not declared by revealing cards in this variant")
        if self.phase not in (DEAL, DECLARE):
            raise IllegalAction("trump can only be declared while the cards are dealt")
        if self.phase == DECLARE and a.seat != self.window_turn:
            raise IllegalAction(f"it is seat {self.window_turn}'s turn to declare or pass")
        rank = self.trump_rank()
        strength = declaration_strength(a.faces, rank)
        if strength == 0:
            raise IllegalAction(
                f"a declaration is one {rank}, a pair of identical {rank}s or a pair of "
                f"identical jokers, not {format_cards(a.faces, symbols=True)}")
        missing = list(a.faces)
        for f in self.hands[a.seat]:
            if f in missing:
                missing.remove(f)
        if missing:
            raise IllegalAction(f"you do not hold {format_cards(a.faces, symbols=True)}")
        if self.declaration is not None:
            current = declaration_strength(self.declaration[1], rank)
            if current >= 3:
                raise IllegalAction("a pair of jokers cannot be overcalled")
            if strength <= current:
                need = "a pair of jokers" if current == 2 else "a pair or a pair of jokers"
                raise IllegalAction(f"only {need} can overcall "
                                    f"{format_cards(self.declaration[1], symbols=True)}")
        self.declaration = (a.seat, a.faces)
        self.declarations.append(self.declaration)
        if self.phase == DECLARE:
            self.window_passes = 0
            self.window_turn = (self.window_turn + 1) % self.players

    def _pass(self, a: Pass) -> None:
        if self.phase == DECLARE:
            self._expect_turn(a.seat, (DECLARE,), "pass")
            self.window_passes += 1
            self.window_turn = (self.window_turn + 1) % self.players
            if self.window_passes >= self.players:
                self._close_declarations()
            return
        self._expect_turn(a.seat, (BID,), "pass")
        self.out_of_auction.add(a.seat)
        self._next_bidder()

    def _close_declarations(self) -> None:
        rank = self.trump_rank()
        if self.declaration is not None:
            seat, faces = self.declaration
            if self.starter is None:
                self.starter = seat
                self.declarers = team_of(seat)
                rank = self.trump_rank()
            if faces[0] >= 52:
                self._set_trump(Trump(None, None))
            else:
                self._set_trump(Trump(rank, face_suit(faces[0])))
            return
        if self.starter is None:
            self.phase = REDEAL  # first hand, nobody declared: collect and deal again
            return
        # Turn the talon over until a rank card shows; else the highest card's suit.
        for f in self.talon:
            self.talon_revealed.append(f)
            if f < 52 and RANKS[f % 13] == rank:
                break
        # A talon of jokers only (or no talon) names no suit: the rank alone is trump.
        self._set_trump(Trump(rank, talon_trump_suit(self.talon_revealed, rank)))

    def _set_trump(self, trump: Trump) -> None:
        self.trump = trump
        self.ladder = trump.ladder(self.rules.tractor_across_rank,
                                   self.rules.rank_and_jokers_in_tractors)
        assert self.starter is not None
        self.hands[self.starter].extend(self.talon)
        self.leader = self.starter
        self.phase = TALON

    def _bid(self, a: Bid) -> None:
        self._expect_turn(a.seat, (BID,), "bid")
        high = self.high_bid()
        if a.points % 5 or not high < a.points <= self.rules.total_points:
            raise IllegalAction(f"a bid must be a multiple of 5 above {high}, "
                                f"at most {self.rules.total_points}")
        self.bids.append((a.seat, a.points))
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

    def _show(self, a: Show) -> None:
        self._expect_turn(a.seat, (SHOW,), "show a card")
        if len(a.faces) != 1 or a.faces[0] not in self.hands[a.seat]:
            raise IllegalAction("show exactly one card you hold")
        self.shown.append((a.seat, a.faces[0]))
        if len(self.shown) == self.players:
            best = max((s for s in self.shown if team_of(s[0]) == self.declarers),
                       key=lambda s: _show_order(s[1]))  # max keeps the first of equals
            self.starter = best[0]
            self.leader = self.starter
            self.phase = NAME

    def _name(self, a: NameTrump) -> None:
        self._expect_turn(a.seat, (NAME,), "name the trump suit")
        if a.suit is None:
            self._set_trump(Trump(None, None))
        else:
            self._set_trump(Trump(self.trump_rank(), a.suit))

    def _bury(self, a: Bury) -> None:
        self._expect_turn(a.seat, (TALON,), "bury the talon")
        if len(a.faces) != self.rules.talon_size:
            raise IllegalAction(f"bury exactly {self.rules.talon_size} cards")
        hand = self.hands[a.seat]
        left = list(hand)
        for f in a.faces:
            if f not in left:
                raise IllegalAction(f"you do not hold {format_cards(a.faces, symbols=True)}")
            left.remove(f)
        self.hands[a.seat] = left
        self.buried = list(a.faces)
        self.phase = PLAY

    def _play(self, a: Play) -> None:
        self._expect_turn(a.seat, (PLAY,), "play")
        assert self.ladder is not None
        ladder = self.ladder
        hand = self.hands[a.seat]
        faces = list(a.faces)
        if not self.current:
            reason = lead_error(hand, faces, ladder)
            if reason:
                raise IllegalAction(reason)
            fmt = classify_faces(faces, ladder)
            self.current_attempt = None
            self.current_penalty = 0
            if fmt.kind == THROW:
                others = [self.hands[(a.seat + k) % self.players] for k in range(1, self.players)]
                failed = failed_components(fmt, others, ladder,
                                           throw_forced=self.rules.throw_forced)
                if failed:
                    forced = forced_component(failed)
                    self.current_attempt = a.faces
                    withdrawn = len(faces) - len(forced.faces)
                    self.current_penalty = withdrawn * self.rules.throw_penalty
                    # Seed 000: the thrower "transfers" 10 points per withdrawn card.
                    sign = -1 if self.is_defender(a.seat) else 1
                    self.defender_points += sign * self.current_penalty
                    self.penalties += sign * self.current_penalty
                    faces = list(forced.faces)
                    fmt = classify_faces(faces, ladder)
            self.lead_format = fmt
        else:
            assert self.lead_format is not None
            reason = follow_error(hand, self.lead_format, faces, ladder,
                                  self.rules.must_play_tractor)
            if reason:
                raise IllegalAction(reason)
        for f in faces:
            hand.remove(f)
        self.current.append(tuple(faces))
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
        self.leader = win
        if not self.hands[win]:
            self._score(trick)

    def _score(self, last: Trick) -> None:
        assert self.declarers is not None and self.starter is not None
        self.result = hand_result(self.rules, self.defender_points, points_of(self.buried),
                                  len(last.plays[0]), self.is_defender(last.winner),
                                  self.declarers, self.starter)
        self.defender_points = self.result.defender_points
        self.phase = DONE

    # --- random legal play (fast path for simulations and tests) ----------------------------

    def random_action(self, rng: random.Random, declare_chance: float = 0.3) -> Action:
        """A random legal action for the seat to act (declarations sometimes during the deal)."""
        seat = self.to_act()
        if seat is None:
            raise IllegalAction("the hand is over")
        p = self.phase
        if p in (DEAL, DECLARE):
            decl = self.legal_declarations(seat)
            if decl and rng.random() < declare_chance:
                return rng.choice(decl)
            return Draw(seat) if p == DEAL else Pass(seat)
        if p == BID:
            high = self.high_bid()
            if high + 5 > self.rules.total_points or rng.random() < 0.5:
                return Pass(seat)
            return Bid(seat, min(self.rules.total_points, high + 5 * rng.randint(1, 4)))
        if p == SHOW:
            return Show(seat, (rng.choice(self.hands[seat]),))
        if p == NAME:
            return NameTrump(seat, rng.choice([*SUITS, None]))
        if p == TALON:
            return Bury(seat, tuple(rng.sample(self.hands[seat], self.rules.talon_size)))
        assert self.ladder is not None
        hand = self.hands[seat]
        if self.current:
            assert self.lead_format is not None
            return Play(seat, tuple(random_follow(hand, self.lead_format, self.ladder, rng,
                                                  self.rules.must_play_tractor)))
        return Play(seat, tuple(random_lead(hand, self.ladder, rng)))

    # --- what a seat may know -----------------------------------------------------------------

    def observation(self, seat: int) -> dict[str, Any]:
        """Exactly what ``seat`` may know, as plain data."""
        self._check_seat(seat)
        show_talon = seat == self.starter and self.phase in (TALON, PLAY, DONE)
        return {
            "seat": seat,
            "phase": self.phase,
            "to_act": self.to_act(),
            "levels": list(self.levels),
            "declarers": self.declarers,
            "starter": self.starter,
            "first": self.first,
            "trump": self.trump.to_data() if self.trump else None,
            "trump_rank": self.trump_rank(),
            "hand": format_cards(self.ladder.sort_faces(self.hands[seat]) if self.ladder
                                 else sorted(self.hands[seat])),
            "hand_sizes": [len(h) for h in self.hands],
            "cards_dealt": self.drawn,
            "declarations": [[s, format_cards(f)] for s, f in self.declarations],
            "window_passes": self.window_passes if self.phase == DECLARE else 0,
            "talon_revealed": format_cards(self.talon_revealed),
            "talon": format_cards(self.talon) if show_talon else None,
            "buried": (format_cards(self.buried)
                       if self.buried and (seat == self.starter or self._talon_turned())
                       else None),
            "bids": [list(b) for b in self.bids],
            "passed_auction": sorted(self.out_of_auction),
            "shown": [[s, format_cards([f])] for s, f in self.shown],
            "tricks": [t.to_data() for t in self.tricks],
            "leader": self.leader,
            "current": [format_cards(p) for p in self.current],
            "current_attempt": (format_cards(self.current_attempt)
                                if self.current_attempt else None),
            "defender_points": self.defender_points,
            "penalties": self.penalties,
            "result": self.result.to_data() if self.result else None,
        }


_HANDLERS: dict[type, Any] = {
    Draw: Hand._draw, Declare: Hand._declare, Pass: Hand._pass, Bid: Hand._bid,
    Show: Hand._show, NameTrump: Hand._name, Bury: Hand._bury, Play: Hand._play,
}
