"""One hand of Tractor as a state machine: deal and declare, talon, 25 tricks, score.

`Hand` holds the whole (omniscient) state of one hand: the public state and its rules
are `tractor.public.PublicHand`'s, and `Hand` adds every card (the deck, each seat's
hand, the talon, the burial) and what only the cards can tell (holding a card, following
suit, which throw components another hand beats). ``legal_actions(seat)`` lists what a
seat may do now, ``apply(action)`` checks and performs one action (raising
`IllegalAction` with the rules' reason), and ``observe(seat)`` is exactly what that seat
may know (``observation(seat)``: the same as plain data). `tractor.game.Game` strings
hands together.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from itertools import chain
from typing import Any

from .actions import (
    Action,
    Bid,
    Bury,
    Call,
    Declare,
    Draw,
    NameTrump,
    Pass,
    Play,
    Show,
    TakeBack,
)
from .cards import SUITS, format_cards
from .dealing import declaration_strength, talon_trump_suit
from .follow import (
    counted,
    follow_error,
    lead_error,
    legal_follows,
    multisets,
    random_follow,
    random_lead,
)
from .formats import THROW, classify_faces, tractors_in
from .friends import callable_cards, legal_calls
from .observation import Observation
from .phases import (
    BID,
    CALL,
    DEAL,
    DECLARE,
    DONE,
    NAME,
    PLAY,
    REDEAL,
    SHOW,
    TALON,
    THEFT,
    IllegalAction,
    Phase,
)
from .public import PublicHand
from .records import HandResult, Trick, hand_result
from .rules import Rules
from .scoring import points_of
from .trick import beaten_components
from .trump import Trump

__all__ = [
    "BID", "CALL", "DEAL", "DECLARE", "DONE", "NAME", "PLAY", "REDEAL", "SHOW", "TALON", "Hand",
    "HandResult", "IllegalAction", "Phase", "PublicHand", "Trick", "declaration_strength",
    "hand_result", "talon_trump_suit",
]


class Hand(PublicHand):
    """The full state of one hand (see `PublicHand` for ``levels``, ``first``,
    ``starter`` and ``declarers``); ``deck`` is the order the cards are drawn in."""

    def __init__(self, rules: Rules, deck: Sequence[int], levels: Sequence[str],
                 first: int, starter: int | None = None, declarers: int | None = None) -> None:
        if sorted(deck) != [f for f in range(54) for _ in range(rules.decks)]:  # sorted already
            raise ValueError("the deck must hold every card of the rules' decks once")
        super().__init__(rules, levels, first, starter, declarers)
        self.deck = list(deck)
        self.hands: list[list[int]] = [[] for _ in range(rules.players)]
        self.talon: list[int] = []
        self.buried: list[int] = []
        self.kitty: list[int] = []  #: kitty theft: the buried cards the last thief took
        self.log: list[Action] = []
        self._to_bury: list[int] = []

    @classmethod
    def dealt(cls, rules: Rules, deck: Sequence[int], levels: Sequence[str], first: int,
              trump: Trump, starter: int, declarers: int | None) -> Hand:
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

    @classmethod
    def from_public(cls, public: PublicHand, hands: Sequence[Sequence[int]],
                    talon: Sequence[int], buried: Sequence[int],
                    deck: Sequence[int] | None = None) -> Hand:
        """A full hand from a public state and one assignment of every hidden card: each
        seat's ``hands`` (sized as ``public.sizes`` says), the ``talon`` as dealt and the
        ``buried`` cards (empty before the burial). ``deck`` (the draw order) defaults to
        the cards drawn so far, then the rest; it matters only for cards still to draw.
        Like OpenSpiel's resampling from an information state: an AI samples the hidden
        cards and searches on the core's own rules (``public`` from a seat's observation:
        `PublicHand.from_observation`)."""
        hand = cls.__new__(cls)
        hand.__dict__.update(public.__dict__)
        hand._copy_lists_from(public)
        hand.hands = [list(h) for h in hands]
        hand.talon = list(talon)
        hand.buried = list(buried)
        hand.kitty = []  # a thief's kitty is in its hand: nothing to tell apart in a search
        hand.log = []  # the action log is not public (draw order, burials): left empty
        hand._to_bury = []
        if deck is None:
            rest = [f for h in hands for f in h] + list(talon)
            deck = rest
        hand.deck = list(deck)
        if hand.result is not None:
            # The buried points are hidden from most seats: these buried cards tell them.
            hand.result = replace(hand.result, talon_points=points_of(hand.buried))
        return hand

    def force_play(self, seat: int, faces: Sequence[int]) -> None:
        """Record a play without checking that it follows (an audit going on past a broken
        rule). The cards must be in the seat's hand; the trick completes as usual."""
        if self.phase != PLAY or seat != self.to_act():
            raise IllegalAction(f"it is not seat {seat}'s turn to play")
        missing = list(faces)
        for f in self.hands[seat]:
            if f in missing:
                missing.remove(f)
        if missing:
            raise IllegalAction(f"seat {seat} does not hold {format_cards(missing)}")
        if not self.current and self.lead_format_of(faces).kind == THROW:
            self.record_throw(seat, faces, ())  # how the table judged it is the audit's
        self.record_play(seat, faces)
        self.log.append(Play(seat, tuple(faces)))

    def clone(self) -> Hand:
        """An independent copy, much faster than `copy.deepcopy` (for search)."""
        other = Hand.__new__(Hand)
        other.__dict__.update(self.__dict__)
        other._copy_lists_from(self)
        other.hands = [list(h) for h in self.hands]
        other.talon = list(self.talon)
        other.buried = list(self.buried)
        other.log = list(self.log)
        return other

    # --- the cards behind the public moves ------------------------------------------------------

    def size_of(self, seat: int) -> int:
        return len(self.hands[seat])

    def _move_drawn(self, seat: int) -> None:
        self.hands[seat].append(self.deck[self.drawn])

    def _move_dealt(self) -> None:
        self.talon = self.deck[self.drawn:]

    def _move_talon(self, seat: int) -> None:
        self.hands[seat].extend(self.talon)

    def _move_buried(self, seat: int) -> None:
        hand = self.hands[seat]
        for f in self._to_bury:
            hand.remove(f)
        self.buried, self._to_bury = self._to_bury, []

    def _move_stolen(self, seat: int) -> None:
        self.hands[seat].extend(self.buried)
        self.kitty, self.buried = self.buried, []

    def _move_played(self, seat: int, faces: tuple[int, ...]) -> None:
        hand = self.hands[seat]
        for f in faces:
            hand.remove(f)

    def _tricks_over(self) -> None:
        self.record_score(points_of(self.buried))

    def _save_cards(self, saved: dict[str, Any]) -> None:
        saved["hands"] = [list(h) for h in self.hands]

    # --- legal actions ----------------------------------------------------------------------

    def legal_declarations(self, seat: int) -> list[Declare]:
        return [Declare(seat, f) for f in self._declarable(seat)]

    def _declarable(self, seat: int) -> list[tuple[int, ...]]:
        """The cards of each declaration ``seat`` may make now."""
        self.check_seat(seat)
        return self.declarable(seat, self.hands[seat])

    def legal_actions(self, seat: int) -> Iterator[Action]:
        """Every action ``seat`` may take now, lazily (burying and discarding can have
        very many: take what you need); a `TakeBack` last, when the seat may take one."""
        self.check_seat(seat)
        if self.rules.takebacks:
            return chain(self._legal_actions(seat), self._takeback(seat))
        return self._legal_actions(seat)

    def _takeback(self, seat: int) -> Iterator[TakeBack]:
        if self.takeback_refusal(seat) is None:
            yield TakeBack(seat)

    def _legal_actions(self, seat: int) -> Iterator[Action]:
        p = self.phase
        act = self.to_act()
        if p == DEAL:
            if seat == act:
                yield Draw(seat)
            yield from self.legal_declarations(seat)
        elif p in (DECLARE, THEFT) and seat == act:
            yield Pass(seat)
            yield from self.legal_declarations(seat)
        elif p == BID and seat == act:
            yield Pass(seat)
            yield from (Bid(seat, pts) for pts in self.bid_options())
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
        elif p == CALL and seat == act:
            assert self.trump is not None
            for calls in legal_calls(self.rules, self.trump, self.levels[seat]):
                yield Call(seat, calls)
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
                    if not _pairs_only(combo) or classify_faces(combo, ladder).kind == THROW:
                        yield combo

    # --- apply --------------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Check and perform one action; raises `IllegalAction` with the reason."""
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(f"unknown action {action!r}")
        self.check_seat(action.seat)
        handler(self, action)
        self.log.append(action)

    def _holds(self, seat: int, faces: Sequence[int]) -> bool:
        left = list(self.hands[seat])
        for f in faces:
            if f not in left:
                return False
            left.remove(f)
        return True

    def _draw(self, a: Draw) -> None:
        self._expect_turn(a.seat, (DEAL,), "draw")
        self.record_draw()

    def _declare(self, a: Declare) -> None:
        if self.rules.declaration == "reveal" and self.phase in (DEAL, DECLARE, THEFT) and \
                self.is_declaration(a.faces) and \
                not self._holds(a.seat, a.faces):
            raise IllegalAction(f"you do not hold {format_cards(a.faces, symbols=True)}")
        if self.phase == THEFT:
            self.record_theft(a.seat, a.faces)
        else:
            self.record_declaration(a.seat, a.faces)

    def _pass(self, a: Pass) -> None:
        self.record_pass(a.seat)

    def _close_declarations(self) -> None:
        super()._close_declarations()
        # Nobody declared in a later hand: the talon is turned over here and now.
        for f in self.talon:
            if not self.turning_talon:
                break
            self.record_talon_card(f)

    def _bid(self, a: Bid) -> None:
        self.record_bid(a.seat, a.points)

    def _show(self, a: Show) -> None:
        self._expect_turn(a.seat, (SHOW,), "show a card")
        if len(a.faces) != 1 or a.faces[0] not in self.hands[a.seat]:
            raise IllegalAction("show exactly one card you hold")
        self.record_show(a.seat, a.faces[0])

    def _name(self, a: NameTrump) -> None:
        self.record_trump_named(a.seat, a.suit)

    def _call(self, a: Call) -> None:
        self.record_calls(a.seat, a.calls)

    def _take_back(self, a: TakeBack) -> None:
        self.record_takeback(a.seat)

    def _bury(self, a: Bury) -> None:
        self._expect_turn(a.seat, (TALON,), "bury the talon")
        if len(a.faces) != self.rules.talon_size:
            raise IllegalAction(f"bury exactly {self.rules.talon_size} cards")
        if not self._holds(a.seat, a.faces):
            raise IllegalAction(f"you do not hold {format_cards(a.faces, symbols=True)}")
        self._to_bury = list(a.faces)
        self.record_burial(a.seat)

    def _play(self, a: Play) -> None:
        self._expect_turn(a.seat, (PLAY,), "play")
        assert self.ladder is not None
        ladder = self.ladder
        hand = self.hands[a.seat]
        faces = list(a.faces)
        if self.current:
            assert self.lead_format is not None
            reason = follow_error(hand, self.lead_format, faces, ladder,
                                  self.rules.must_play_tractor)
            if reason:
                raise IllegalAction(reason)
            self._add_play(a.seat, a.faces)
            return
        reason = lead_error(hand, faces, ladder)
        if reason:
            raise IllegalAction(reason)
        fmt = classify_faces(faces, ladder)
        if fmt.kind != THROW:
            self._add_play(a.seat, a.faces, fmt)
            return
        others = [self.hands[(a.seat + k) % self.players] for k in range(1, self.players)]
        self.record_play(a.seat, self.record_throw(a.seat, faces, beaten_components(
            fmt, others, ladder, throw_forced=self.rules.throw_forced)))

    # --- random legal play (fast path for simulations and tests) ----------------------------

    def random_action(self, rng: random.Random, declare_chance: float = 0.3) -> Action:
        """A random legal action for the seat to act (declarations sometimes during the deal)."""
        seat = self.to_act()
        if seat is None:
            raise IllegalAction("the hand is over")
        p = self.phase
        if p == PLAY:
            return self._random_play(seat, rng)
        if p in (DEAL, DECLARE, THEFT):
            options = self._declarable(seat)
            if options and rng.random() < declare_chance:
                return Declare(seat, rng.choice(options))
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
        if p == CALL:
            assert self.trump is not None
            callable = callable_cards(self.rules, self.trump, self.levels[seat])
            return Call(seat, tuple(rng.sample(callable, self.rules.friend_calls)))
        # The talon: no other phase has a seat to act.
        return Bury(seat, tuple(rng.sample(self.hands[seat], self.rules.talon_size)))

    def _random_play(self, seat: int, rng: random.Random) -> Play:
        assert self.ladder is not None
        hand = self.hands[seat]
        if self.current:
            assert self.lead_format is not None
            return Play(seat, tuple(random_follow(hand, self.lead_format, self.ladder, rng,
                                                  self.rules.must_play_tractor)))
        return Play(seat, tuple(random_lead(hand, self.ladder, rng)))

    # --- what a seat may know -----------------------------------------------------------------

    def observe(self, seat: int) -> Observation:
        """Exactly what ``seat`` may know, typed (`tractor.observation.Observation`)."""
        self.check_seat(seat)
        return self.observe_seat(seat, self.hands[seat], self.talon, self.buried, self.kitty)

    def observation(self, seat: int) -> dict[str, Any]:
        """Exactly what ``seat`` may know, as plain data (`Observation.to_data`)."""
        return self.observe(seat).to_data()


_HANDLERS: dict[type, Any] = {
    Draw: Hand._draw, Declare: Hand._declare, Pass: Hand._pass, Bid: Hand._bid,
    Show: Hand._show, NameTrump: Hand._name, Bury: Hand._bury, Play: Hand._play,
    Call: Hand._call, TakeBack: Hand._take_back,
}


def _pairs_only(combo: list[int]) -> bool:
    """Whether every face of ``combo`` (each face's copies side by side, as `multisets`
    gives them) is there exactly twice. Only such cards can be one pair or one tractor:
    any other multiset of two or more cards is a throw, with no need to classify it."""
    evens = combo[0::2]
    return evens == combo[1::2] and len(set(evens)) == len(evens)
