"""Who decides for this peer's seat, and what it is asked.

The table asks its `Player` one `Decision` at a time (the rules core's, `tractor.phases`),
showing it a `SeatView`; the answer is one of the rules core's actions, of the kind the
decision takes (`tractor.phases.ANSWERS`), or `WAIT`: "ask me later" (a person decides in
their own time, an AI in another thread); the table then holds until `TableHand.decide`
brings the action.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final, Protocol

from tractor.actions import Bid, Bury, Call, Declare, NameTrump, Pass, Play, Show
from tractor.cards import SUITS
from tractor.follow import random_follow, random_lead
from tractor.formats import Format
from tractor.friends import callable_cards
from tractor.observation import Observation
from tractor.rules import Rules
from tractor.trump import Ladder


@dataclass(frozen=True)
class SeatView:
    """What a player is shown when asked for a decision."""

    seat: int
    hand: list[int]  #: faces
    ladder: Ladder | None
    lead: Format | None  #: the lead to follow (None when leading)
    declaration: tuple[int, tuple[int, ...]] | None
    rank: str
    #: Everything the seat may know, as `tractor.hand.Hand.observe` gives it.
    observation: Observation
    #: The hand's rules (how many friends to call and which cards may be called:
    #: `tractor.friends.callable_cards`); None only in a view a test makes by hand.
    rules: Rules | None = None


class Wait:
    """The type of `WAIT`."""

    def __repr__(self) -> str:
        return "WAIT"


#: A player's answer meaning "ask me later": a person decides in their own time; the
#: table holds (``TableHand.waiting``) until `TableHand.decide` brings the answer.
WAIT: Final = Wait()


class Player(Protocol):
    """Decides for this peer's seat; any method may return `WAIT` instead of an answer."""

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> Declare | Pass | Wait:
        """A `Declare` of one of ``options`` (the declarations open to the seat), or `Pass`."""
        ...

    def bury(self, view: SeatView, count: int) -> Bury | Wait:
        ...

    def play(self, view: SeatView) -> Play | Wait:
        ...

    # The auction variant (seed 001) asks three more decisions.

    def bid(self, view: SeatView, options: list[int]) -> Bid | Pass | Wait:
        """A `Bid` of one of ``options`` (points), or `Pass`."""
        ...

    def show(self, view: SeatView) -> Show | Wait:
        """One card of the hand to show in the card-play for the starter."""
        ...

    def name(self, view: SeatView) -> NameTrump | Wait:
        """The trump suit the starter names (None for no trump suit)."""
        ...

    # Find-a-friend (`Rules.mode` "friends") asks the starter one more, after its burial.

    def call(self, view: SeatView) -> Call | Wait:
        """The starter's friends, by card and copy: `Rules.friend_calls` different calls of
        cards the rules allow (`tractor.friends.callable_cards`)."""
        ...


class Undecided:
    """A player that answers every decision with `WAIT`: the answer comes later from
    elsewhere (a person at the screen: `cli.seat.human.HumanPlayer` overrides what it
    decides itself), or never (the seat of a watcher, which nobody holds)."""

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> Declare | Pass | Wait:
        return WAIT

    def bury(self, view: SeatView, count: int) -> Bury | Wait:
        return WAIT

    def play(self, view: SeatView) -> Play | Wait:
        return WAIT

    def bid(self, view: SeatView, options: list[int]) -> Bid | Pass | Wait:
        return WAIT

    def show(self, view: SeatView) -> Show | Wait:
        return WAIT

    def name(self, view: SeatView) -> NameTrump | Wait:
        return WAIT

    def call(self, view: SeatView) -> Call | Wait:
        return WAIT  # find-a-friend: a person's screen asks the starter for its calls


class RandomPlayer:
    """Random legal decisions (declares now and then)."""

    def __init__(self, seed: int = 0, declare_chance: float = 0.3) -> None:
        self.rng = random.Random(seed)
        self.declare_chance = declare_chance

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> Declare | Pass:
        if options and self.rng.random() < self.declare_chance:
            return Declare(view.seat, tuple(self.rng.choice(options)))
        return Pass(view.seat)

    def bury(self, view: SeatView, count: int) -> Bury:
        return Bury(view.seat, tuple(self.rng.sample(view.hand, count)))

    def play(self, view: SeatView) -> Play:
        assert view.ladder is not None
        if view.lead is None:
            return Play(view.seat, tuple(random_lead(view.hand, view.ladder, self.rng)))
        return Play(view.seat, tuple(random_follow(view.hand, view.lead, view.ladder, self.rng)))

    def bid(self, view: SeatView, options: list[int]) -> Bid | Pass:
        if not options or self.rng.random() < 0.5:
            return Pass(view.seat)
        return Bid(view.seat, self.rng.choice(options[:4]))

    def show(self, view: SeatView) -> Show:
        return Show(view.seat, (self.rng.choice(view.hand),))

    def name(self, view: SeatView) -> NameTrump:
        return NameTrump(view.seat, self.rng.choice([*SUITS, None]))

    def call(self, view: SeatView) -> Call:
        obs = view.observation
        assert view.rules is not None and obs.trump is not None  # a table's view, after trump
        options = callable_cards(view.rules, obs.trump, obs.trump_rank)
        return Call(view.seat, tuple(self.rng.sample(options, view.rules.friend_calls)))
