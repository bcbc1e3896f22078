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

`PublicHand` is made of one part per stage of a hand, each in its own module on the
shared state of `tractor.hand_state.HandState`: the deal and declaring
(`tractor.dealing`), the auction (`tractor.auction`), the burial, tricks and score
(`tractor.playing`). The values a hand leaves behind are in `tractor.records`, its phases
and `IllegalAction` in `tractor.phases`; this module gives every one of those names too.

>>> from tractor.rules import Rules
>>> p = PublicHand(Rules(), ["2", "2"], first=0, starter=0, declarers=0)
>>> for _ in range(100):
...     _ = p.record_draw()
>>> p.phase, p.to_act(), p.sizes
(<Phase.DECLARE: 'declare'>, 0, [25, 25, 25, 25])
>>> p.record_declaration(1, (0,))  # a 2, the trump rank, but out of turn
Traceback (most recent call last):
...
tractor.phases.IllegalAction: it is seat 0's turn to declare or pass
"""

from __future__ import annotations

from collections.abc import Sequence

from .auction import AuctionRules, named_trump, show_order
from .dealing import (
    DealingRules,
    declaration_options,
    declaration_strength,
    declared_trump,
    talon_trump_suit,
)
from .formats import classify_faces
from .friends import Sides
from .observation import Observation
from .phases import (
    BID,
    DEAL,
    DECLARE,
    DONE,
    NAME,
    PLAY,
    REDEAL,
    SHOW,
    TALON,
    THEFT,
    Face,
    IllegalAction,
    Phase,
    Seat,
)
from .playing import PlayRules
from .records import HandResult, Trick, hand_result, throw_penalty_points
from .rules import Rules
from .theft import TheftRules

__all__ = [
    "BID", "DEAL", "DECLARE", "DONE", "NAME", "PLAY", "REDEAL", "SHOW", "TALON", "Face",
    "HandResult", "IllegalAction", "Phase", "PublicHand", "Seat", "Trick",
    "declaration_options", "declaration_strength", "declared_trump", "hand_result",
    "named_trump", "show_order", "talon_trump_suit", "throw_penalty_points",
]


class PublicHand(DealingRules, AuctionRules, PlayRules, TheftRules):
    """The public state of one hand and its rules (see the module docstring).

    ``levels`` are the two teams' levels; ``declarers`` is the declaring team and
    ``starter`` the starting seat (both None in the first hand of a revealing game:
    the first stable declaration decides them). ``first`` is the first seat to draw
    (the starter, the first drawer of the game, or the auction dealer).

    The ``record_*`` methods take one public move each, check what public information
    can check, and raise `IllegalAction` with the rules' reason (changing nothing) when
    the move is not allowed now.
    """

    def copy_public(self) -> PublicHand:
        """An independent copy of the public state alone."""
        other = PublicHand.__new__(PublicHand)
        other.__dict__.update(self.__dict__)
        other._copy_lists_from(self)
        return other

    def record_pass(self, seat: Seat) -> None:
        """``seat`` passes: in the final declaring window, the kitty-theft window, or in
        the auction."""
        if self.phase == DECLARE and not self.turning_talon:
            self._pass_window(seat)
        elif self.phase == THEFT:
            self._pass_theft(seat)
        else:
            self._pass_auction(seat)

    # --- what a seat may know ----------------------------------------------------------------

    def observe_seat(self, seat: Seat, hand: Sequence[Face],
                     talon: Sequence[Face] | None = None,
                     buried: Sequence[Face] | None = None,
                     kitty: Sequence[Face] | None = None) -> Observation:
        """Exactly what ``seat`` may know: the public state, its own ``hand``, and the
        talon and burial when the seat knows them (the starter, or everyone once the talon
        is turned over at the end); with kitty theft, the ``kitty`` the last thief took,
        to that thief while it buries. The one place a `tractor.observation.Observation`
        is made: the rules core's `tractor.hand.Hand.observe` and the peers' table call
        it."""
        self.check_seat(seat)
        phase = self.phase
        show_talon = seat == self.starter and phase in (TALON, THEFT, PLAY, DONE)
        # With kitty theft the buried cards are the last exchanger's (the starter's without).
        knows_burial = seat == self.exchanger or self.talon_turned() or (
            phase == DONE and self.rules.show_talon)
        burying_kitty = phase == TALON and bool(self.thefts) and seat == self.exchanger
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
            window_passes=self.window_passes if phase in (DECLARE, THEFT) else 0,
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
            calls=self.sides.calls if self.sides is not None else (),
            friends=self.sides.friends if self.sides is not None else (),
            thefts=tuple(self.thefts),
            kitty=tuple(kitty) if kitty and burying_kitty else None,
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
        if len(obs.hand_sizes) != rules.players or len(obs.levels) != rules.level_count:
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
        if obs.phase == THEFT and obs.to_act is not None:
            p.window_turn = obs.to_act
            p.window_passes = obs.window_passes
        p.thefts = list(obs.thefts)
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
                p.current_penalty = rules.throw_penalty_for(len(obs.current_attempt) - len(lead))
        p.defender_points = obs.defender_points
        p.penalties = obs.penalties
        p.result = obs.result
        if obs.calls:
            p._replay_calls(obs)
        return p

    def _replay_calls(self, obs: Observation) -> None:
        """Find-a-friend: the calls, who joined, and each seat's trick points and failed
        throws, from the plays an observation shows (they are all public)."""
        assert self.starter is not None
        sides = Sides(self.rules, self.starter, obs.calls)
        for trick in obs.tricks:
            for k, faces in enumerate(trick.plays):
                sides.on_play((trick.leader + k) % self.players, faces)
            self.won[trick.winner] += trick.points
            self.thrown[trick.leader] += trick.penalty
        for k, faces in enumerate(obs.current):
            sides.on_play((obs.leader + k) % self.players, faces)
        self.thrown[obs.leader] += self.current_penalty
        self.sides = sides
