"""Find-a-friend between peers (`Rules.mode` "friends"): the starter's call, after its
burial and before the first trick (`net.table.hand` gives the whole schedule).

The starter posts ``{"call": [[face, copy], ...]}``, signed and chained like any move; every
peer judges it with the rules core (`PublicHand.record_calls`: how many calls, of which
cards), so a call the rules refuse is the starter's `TableError`, as a refused play is. The
call is public; which seat holds a called card is not: a seat joins the starter's side
when it plays one, and the rules core sees that in the plays (`PublicHand.record_play`).
"""

from __future__ import annotations

from collections.abc import Callable

from tractor.net.deck.engine import Deck
from tractor.net.table import messages as wire
from tractor.net.table.decisions import Decisions
from tractor.net.table.errors import judged
from tractor.net.table.inbox import Inbox
from tractor.net.table.schedule import Schedule
from tractor.phases import Decision, Phase
from tractor.public import PublicHand


class Calling:
    """The schedule's step CALL: the starter posts its calls (this peer's asked of its
    player), every peer applies them with the rules core, then the first trick begins
    (``first_trick(starter)``)."""

    def __init__(self, deck: Deck, public: PublicHand, schedule: Schedule, inbox: Inbox,
                 decisions: Decisions, first_trick: Callable[[int], None]) -> None:
        self.deck = deck
        self.public = public
        self.schedule = schedule
        self.inbox = inbox
        self.decisions = decisions
        self.first_trick = first_trick

    def step(self) -> list[bytes]:
        public = self.public
        starter = public.starter
        assert starter is not None  # the starter buried before it calls
        out: list[bytes] = []
        if starter == self.deck.me and not self.schedule.made("call"):
            answer = self.decisions.friend_call()
            if answer is None:
                return out
            self.schedule.mark("call")
            out += self.deck.post(wire.to_wire(wire.message_for(Decision.CALL, answer, ())))
        if (taken := self.inbox.take(starter, wire.Call)) is None:
            return out
        calls = taken[0].calls
        judged(starter, lambda: public.record_calls(starter, calls))
        self.schedule.phase = Phase.PLAY
        self.first_trick(starter)
        return out
