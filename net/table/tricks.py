"""The tricks of a hand between peers: plays in turn, throws and the claims against them.

The seat to play shows and plays its cards through the deck and posts {"play":
positions}. A throw is first shown and posted as {"throw": positions}; every other seat
then answers in turn with {"claim": [[component, positions]]}, showing the one component
of its hand that changes the forced lead (`tractor.trick.claim_to_make`), or an empty
claim, until the forced lead is settled; the thrower then plays the whole throw or the
forced component. Nobody shows more than the rules need, and the end-of-hand audit
checks every answer against the real hands (`PlayRecord`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tractor.actions import Play
from tractor.formats import THROW, Component, Format, classify_faces, tractors_in
from tractor.net.deck.audit import PlayRecord
from tractor.net.deck.engine import Deck
from tractor.net.table import messages as wire
from tractor.net.table.decisions import Decisions
from tractor.net.table.errors import TableError, judged
from tractor.net.table.inbox import Inbox
from tractor.net.table.positions import OwnCards, RevealedCards
from tractor.net.table.schedule import Schedule
from tractor.net.table.takebacks import TableTakeBacks
from tractor.phases import Decision, Phase
from tractor.public import PublicHand
from tractor.rules import Rules
from tractor.trick import beats_component, best_claim, claim_beats, claim_to_make, claim_turn
from tractor.trump import Ladder

Faces = tuple[int, ...]


@dataclass
class TrickRecord:
    """One trick as the table saw it: its plays, and a throw's claims and forced lead."""

    leader: int
    plays: list[Faces] = field(default_factory=list)
    at: list[Faces] = field(default_factory=list)  #: each play's deck positions
    #: Plays taken back, in order: (place in the trick, cards, (winner, points) when the
    #: play had finished the trick): the log shows them where they were made.
    taken: list[tuple[int, Faces, tuple[int, int] | None]] = field(default_factory=list)
    attempted: Faces | None = None  #: a throw announced (before the claims)
    attempted_at: Faces = ()  #: the throw's positions, as announced
    claims: dict[int, list[tuple[int, Faces]]] | None = None
    #: Against a throw: each seat asked so far, in turn, with the component it showed it
    #: beats (None: it showed nothing).
    answers: list[tuple[int, int | None]] = field(default_factory=list)
    forced: Faces | None = None
    winner: int = -1
    points: int = 0
    penalty: int = 0


#: This seat's play to a trick: the frames (None: its player answers later).
PlayMove = Callable[[TrickRecord], "list[bytes] | None"]
#: This seat's answer to a throw (its lead, and the best claim so far): the frames.
ClaimMove = Callable[[Format, "int | None"], "list[bytes]"]


class TrickPlay:
    """The schedule's step PLAY: every trick of the hand in turn, then AUDIT.

    This seat's own moves go through ``my_play`` and ``my_claim`` (the table's, so that a
    test's dishonest seat can replace them); `my_play` and `honest_claim` here are the
    honest ones."""

    def __init__(self, rules: Rules, deck: Deck, public: PublicHand, schedule: Schedule,
                 inbox: Inbox, own: OwnCards, revealed: RevealedCards, decisions: Decisions,
                 my_play: PlayMove, my_claim: ClaimMove,
                 played: Callable[[int, int], None] | None = None) -> None:
        self.rules = rules
        self.deck = deck
        self.public = public
        self.schedule = schedule
        self.inbox = inbox
        self.own = own
        self.revealed = revealed
        self.decisions = decisions
        self.play_mine = my_play
        self.claim_mine = my_claim
        #: Told (trick, play in the trick) the moment a play is applied (timing).
        self.on_played = played
        self.done: list[TrickRecord] = []  #: the finished tricks (their claims, throws)
        self.current: TrickRecord | None = None
        self.records: list[PlayRecord] = []  #: every play, for the audit
        #: Take-backs (`Rules.takebacks`): decided before the next seat's move is taken.
        self.takebacks = TableTakeBacks(rules, deck, public, schedule, inbox, revealed,
                                        decisions, self._unplay)

    @property
    def ladder(self) -> Ladder:
        assert self.public.ladder is not None  # the tricks begin once trump is known
        return self.public.ladder

    def begin(self, leader: int) -> None:
        self.current = TrickRecord(leader)

    def claiming(self) -> bool:
        """Whether the current trick waits for the claims against a throw."""
        trick = self.current
        return trick is not None and trick.attempted is not None and trick.forced is None \
            and not trick.plays

    def owed(self) -> tuple[int | None, str]:
        """The seat whose message the trick waits for now, and which kind."""
        if self.claiming():
            assert self.current is not None
            return self.claim_turn(self.current), "claim"
        return self.public.to_act(), "play"

    def step(self) -> list[bytes]:
        trick = self.current
        assert trick is not None
        out: list[bytes] = []
        if self.claiming():
            return out + self._claims(trick)
        out, hold = self.takebacks.step()
        if hold:
            return out
        trick = self.current
        assert trick is not None
        seat = self.public.to_act()
        assert seat is not None
        key = f"play{len(self.done)}.{len(trick.plays)}"
        if seat == self.deck.me and not self.schedule.made(key):
            moves = self.play_mine(trick)
            if moves is not None:
                self.schedule.mark(key)
                out += moves
        if (taken := self.inbox.take(seat, wire.Play, wire.Throw)) is None:
            return out
        msg, seq = taken
        if isinstance(msg, wire.Throw) and not trick.plays and trick.attempted is None:
            self._announced(trick, seat, msg, seq)
            return out + self._claims(trick)
        if not isinstance(msg, wire.Play):
            raise TableError(seat, f"expected a play, got {wire.describe(msg)}")
        self._played(trick, seat, msg, seq)
        return out

    def _announced(self, trick: TrickRecord, seat: int, msg: wire.Throw, seq: int) -> None:
        faces = self.revealed.faces(seat, msg.positions, "show", seq)
        fmt = judged(seat, lambda: self.public.lead_format_of(faces))
        if fmt.kind != THROW:
            raise TableError(seat, "announced a throw that is not one")
        trick.attempted = faces
        trick.attempted_at = msg.positions
        trick.claims = {}
        self.takebacks.throw_announced()

    def _played(self, trick: TrickRecord, seat: int, msg: wire.Play, seq: int) -> None:
        public = self.public
        faces = self.revealed.faces(seat, msg.positions, "play", seq)
        finished = len(public.tricks)
        judged(seat, lambda: public.record_play(seat, faces))
        if self.on_played is not None:
            self.on_played(len(self.done), len(trick.plays))
        self.takebacks.played(seat, (len(self.done), len(trick.plays)), faces)
        self.revealed.played(msg.positions)
        trick.plays.append(faces)
        trick.at.append(msg.positions)
        cards = tuple(self.deck.cards[p] for p in msg.positions)
        if len(trick.plays) == 1:
            claims = tuple((s, tuple(i for i, _ in c))
                           for s, c in sorted((trick.claims or {}).items()))
            self.records.append(PlayRecord(seat, cards, self._attempt_cards(trick), claims))
        else:
            self.records.append(PlayRecord(seat, cards))
        if len(public.tricks) > finished:
            self._finished(trick)

    def _attempt_cards(self, trick: TrickRecord) -> tuple[int, ...] | None:
        # By position: a card of the throw may have been shown by the table itself (a
        # talon card turned over), with no reveal of the thrower's.
        if trick.attempted is None:
            return None
        return tuple(self.deck.cards[p] for p in trick.attempted_at)

    def my_play(self, trick: TrickRecord) -> list[bytes] | None:
        """This seat's honest play (None: the player answers later): the forced lead after
        its throw, else its player's play (a throw is shown and announced first)."""
        if trick.attempted is not None and not trick.plays:
            play = Play(self.deck.me, trick.forced or trick.attempted)
        else:
            answer = self.decisions.play()
            if answer is None:
                return None
            play = answer
            if not trick.plays and classify_faces(list(play.faces), self.ladder).kind == THROW:
                positions = self.own.positions_for(play.faces)
                return self.own.show(positions) + self.deck.post(
                    wire.to_wire(wire.Throw(tuple(positions))))
        positions = self.own.positions_for(play.faces)
        # Cards of a play taken back are seen already: played again without a reveal.
        fresh = [p for p in positions if p not in self.revealed.returned]
        return (self.deck.reveal(fresh, "play") if fresh else []) + self.deck.post(
            wire.to_wire(wire.message_for(Decision.PLAY, play, positions)))

    def _unplay(self, seat: int) -> Faces:
        """A take-back of ``seat``'s last play: the trick as the table saw it before that
        play (reopened if the play finished it); returns the play's positions."""
        trick = self.current
        assert trick is not None
        finished: tuple[int, int] | None = None
        if not trick.plays:  # the play finished the trick: the winner had not led yet
            trick = self.done.pop()
            finished = (trick.winner, trick.points)
            trick.winner, trick.points = -1, 0
            self.current = trick
        trick.taken.append((len(trick.plays) - 1, trick.plays.pop(), finished))
        self.records.append(PlayRecord(seat, (), taken_back=True))
        return trick.at.pop()

    # --- claims against a throw --------------------------------------------------------------

    def lead_of(self, trick: TrickRecord) -> Format:
        assert trick.attempted is not None
        return classify_faces(list(trick.attempted), self.ladder)

    def claim_turn(self, trick: TrickRecord) -> int | None:
        return claim_turn(self.lead_of(trick), trick.answers, trick.leader,
                          self.rules.players, self.rules.throw_forced)

    def _claims(self, trick: TrickRecord) -> list[bytes]:
        """The other seats answer a throw in turn, each showing at most the one component
        of its hand that changes the forced lead (`tractor.trick.claim_to_make`), until the
        forced lead is settled (`claim_turn`)."""
        assert trick.attempted is not None and trick.claims is not None
        lead = self.lead_of(trick)
        out: list[bytes] = []
        while (seat := self.claim_turn(trick)) is not None:
            best = best_claim(lead, trick.answers)
            if seat == self.deck.me and self.schedule.once(f"claim{len(self.done)}"):
                out += self.claim_mine(lead, best)
            if (taken := self.inbox.take(seat, wire.Claim)) is None:
                return out
            trick.answers.append((seat, self._claimed(trick, lead, best, seat, *taken)))
        best = best_claim(lead, trick.answers)
        trick.forced = self.public.record_throw(trick.leader, trick.attempted,
                                                [] if best is None else [best])
        trick.penalty = self.public.current_penalty
        if trick.leader == self.deck.me and self.schedule.once(f"forced{len(self.done)}"):
            out += self.play_mine(trick) or []
        return out

    def _claimed(self, trick: TrickRecord, lead: Format, best: int | None, seat: int,
                 msg: wire.Claim, seq: int) -> int | None:
        """The component of the throw ``seat``'s claim shows it beats (None: none)."""
        assert trick.claims is not None
        index: int | None = None
        for index, positions in msg.items:  # at most one
            if index >= len(lead.components):
                raise TableError(seat, "a claim names a component of the throw")
            if best is not None and claim_to_make(lead, [index], best,
                                                  self.rules.throw_forced) is None:
                raise TableError(seat, "claimed a part of the throw that does not change "
                                       "the forced lead")
            faces = self.revealed.faces(seat, positions, "show", seq)
            if not claim_beats(lead.components[index], lead, faces, self.ladder):
                raise TableError(seat, "claimed to beat a throw with cards that do not")
            trick.claims[seat] = [(index, faces)]
        return index

    def honest_claim(self, lead: Format, best: int | None) -> list[bytes]:
        """An honest answer to a throw: the component `claim_to_make` names, shown with the
        lowest same-shape cards of this hand that beat it; or nothing."""
        index = claim_to_make(lead, self.parts_i_beat(lead), best, self.rules.throw_forced)
        if index is None:
            return self.deck.post(wire.to_wire(wire.Claim(())))
        return self.claim(lead, index)

    def parts_i_beat(self, lead: Format) -> list[int]:
        """The components of a throw this hand can beat."""
        suit = [f for f in self.own.faces() if self.ladder.esuit[f] == lead.esuit]
        return [i for i, comp in enumerate(lead.components)
                if beats_component(comp, suit, self.ladder)]

    def claim(self, lead: Format, index: int) -> list[bytes]:
        """Show the lowest same-shape cards of this hand that beat component ``index``."""
        ladder = self.ladder
        suit = [f for f in self.own.faces() if ladder.esuit[f] == lead.esuit]
        comp = lead.components[index]
        candidates = [c for c in _components_of_shape(suit, comp, ladder)
                      if beats_component(comp, list(c), ladder)]
        lowest = min(candidates, key=lambda c: max(ladder.order[f] for f in c))
        positions = self.own.positions_for(lowest)
        return self.own.show(positions) + self.deck.post(
            wire.to_wire(wire.Claim(((index, tuple(positions)),))))

    def _finished(self, trick: TrickRecord) -> None:
        done = self.public.tricks[-1]  # the rules core's judgement of the trick
        trick.winner, trick.points = done.winner, done.points
        self.done.append(trick)
        if self.public.tricks_done:
            self.schedule.phase = Phase.AUDIT
            self.current = None
        else:
            self.current = TrickRecord(done.winner)


def _components_of_shape(suit: list[int], comp: Component, ladder: Ladder) -> list[Faces]:
    """Every same-shape component (single, pair, tractor of the same length) in ``suit``."""
    if comp.kind == "single":
        return [(f,) for f in set(suit)]
    if comp.kind == "pair":
        return [(f, f) for f in set(suit) if suit.count(f) >= 2]
    return [tuple(t) for t in tractors_in(suit, ladder) if len(t) == len(comp.faces)]
