"""An AI strategy seated at a peer-to-peer table.

`StrategyPlayer` is the `tractor.net.table.player.Player` of an AI peer: at each decision it
rebuilds what its seat knows from the table's observation alone (the same typed
`tractor.observation.Observation` the rules core's ``Hand.observe`` gives), samples one
world consistent with it, and asks
the strategy, which reads only its own seat's part of that world. So an AI peer is an
ordinary peer on the wire and gets no private information.

Given an executor (`tractor.ai.hosting.executors`), it decides off the reactor, the way a person
does: it answers the table `WAIT`, works the decision out in the executor, and brings the
answer back with `GameSession.decide`, then sends the frames (`serve`). Without one it
answers at once, inside the table's call (in-memory tests, a person's hint).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import Protocol

from twisted.internet.defer import CancelledError
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from tractor.actions import (
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
from tractor.ai.hosting.executors import Executor
from tractor.ai.hosting.takeback_wait import TAKEBACK_GRACE
from tractor.ai.players.base import Strategy
from tractor.ai.players.worlds import Knowledge
from tractor.hand import Hand
from tractor.net.table.hand import TableHand
from tractor.net.table.move_check import refusal
from tractor.net.table.player import WAIT, RandomPlayer, SeatView, Wait
from tractor.net.table.session import GameSession
from tractor.observation import Observation
from tractor.phases import Answer, Decision, IllegalAction, Phase
from tractor.rules import Rules


class ServedNode(Protocol):
    """What `StrategyPlayer.serve` needs of the peer it decides for (a `PeerNode`; its
    ``clock`` is read only at a table with take-backs and people: `TAKEBACK_GRACE`)."""

    session: GameSession | None
    halted: Exception | None
    on_change: Callable[[], None] | None
    clock: IReactorTime

    def send(self, frames: list[bytes]) -> None:
        ...

    def move_failed(self, exc: Exception, what: str) -> None:
        ...


@dataclass(frozen=True, eq=False)
class _Ticket:
    """One decision the table waits for: which table asked, what, and with what view. An
    answer counts only while all of it still holds (`StrategyPlayer._wanted`)."""

    node: ServedNode
    session: GameSession
    table: TableHand
    kind: Decision
    view: SeatView
    bids: list[int]  #: the bids open, for a bid
    since: float = 0.0  #: when this seat began to work it out (`TAKEBACK_GRACE`)

    def same(self, other: _Ticket) -> bool:
        return (self.node is other.node and self.session is other.session
                and self.table is other.table and self.kind == other.kind
                and self.view == other.view)


class StrategyPlayer:
    """Decisions of ``strategy`` for one seat, from the seat's observation only.

    With an ``executor``, the table is answered `WAIT` and the decision is worked out
    there; `serve` must then be given the peer (its `PeerNode`) to bring answers to."""

    log = Logger()

    def __init__(self, strategy: Strategy, rules: Rules, seed: int = 0,
                 executor: Executor | None = None, people: Collection[int] = (),
                 takeback_wait: float = TAKEBACK_GRACE) -> None:
        self.strategy = strategy
        #: The rules the strategy's worlds are played under: an AI never takes back, and
        #: with take-backs on the rules core would save the state at every simulated play
        #: (about 10 µs each). Every other rule is the table's.
        self.rules = replace(rules, takebacks=False)
        #: The seats a person plays: one may take its play back (`TAKEBACK_GRACE`).
        self.people = frozenset(people) if rules.takebacks and takeback_wait > 0 \
            else frozenset()
        self.takeback_wait = takeback_wait
        self.rng = random.Random(seed)
        self._fallback = RandomPlayer(seed)
        self.executor = executor
        if executor is not None and hasattr(strategy, "interrupt"):
            strategy.interrupt = executor.interrupt  # a search ends when the process does
        self._node: ServedNode | None = None
        #: The decision being worked out (one at a time: the strategy and ``rng`` are not
        #: shared between threads).
        self._thinking: _Ticket | None = None

    def world(self, observation: Observation) -> Hand:
        """One world consistent with what the seat knows."""
        return Knowledge.from_observation(self.rules, observation).sample(self.rng)

    def action(self, observation: Observation) -> Action:
        """What the strategy does now for the observing seat (a hint for a person, too)."""
        if observation.phase == Phase.THEFT:
            # The kitty-theft window needs no sampled world (the seat's own cards and the
            # declaration standing), and the sampler cannot rebuild a deal mid-window.
            return self.strategy.decide(observation, self.rules)
        world = self.world(observation)
        seat = observation.seat
        if world.phase in (Phase.DEAL, Phase.DECLARE):
            return self.strategy.declare(world, seat) or (
                Draw(seat) if world.phase == Phase.DEAL else Pass(seat))
        return self.strategy.act(world, seat)

    # --- the table's Player -------------------------------------------------------------------

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> Declare | Pass | Wait:
        if not options:
            return Pass(view.seat)
        answer = self._answer(Decision.DECLARE, view)
        assert isinstance(answer, Declare | Pass | Wait)  # `_settle` answers in kind
        return answer

    def bury(self, view: SeatView, count: int) -> Bury | Wait:
        answer = self._answer(Decision.BURY, view)
        assert isinstance(answer, Bury | Wait)
        return answer

    def play(self, view: SeatView) -> Play | Wait:
        answer = self._answer(Decision.PLAY, view)
        assert isinstance(answer, Play | Wait)
        return answer

    def bid(self, view: SeatView, options: list[int]) -> Bid | Pass | Wait:
        answer = self._answer(Decision.BID, view, options)
        assert isinstance(answer, Bid | Pass | Wait)
        return answer

    def show(self, view: SeatView) -> Show | Wait:
        answer = self._answer(Decision.SHOW, view)
        assert isinstance(answer, Show | Wait)
        return answer

    def name(self, view: SeatView) -> NameTrump | Wait:
        answer = self._answer(Decision.NAME, view)
        assert isinstance(answer, NameTrump | Wait)
        return answer

    def call(self, view: SeatView) -> Call | Wait:
        answer = self._answer(Decision.CALL, view)
        assert isinstance(answer, Call | Wait)
        return answer

    def _answer(self, kind: Decision, view: SeatView, bids: list[int] | None = None
                ) -> Answer | Wait:
        if self.executor is not None:
            return WAIT  # worked out off the reactor; `serve` brings the answer
        return self._settle(kind, view, bids or [], self._attempt(kind, view))

    # --- deciding -------------------------------------------------------------------------------

    def _propose(self, kind: Decision, view: SeatView) -> Action | None:
        """The strategy's proposal for one decision: the slow part, and the only part that
        may run in a worker thread (it reads only ``view`` and this player's own state)."""
        if kind is Decision.DECLARE and view.observation.phase != Phase.THEFT:
            return self.strategy.declare(self.world(view.observation), view.seat)
        if kind is Decision.CALL:
            # The calls need no sampled world: the starter's own cards and the public state.
            return self.strategy.decide(view.observation, self.rules)
        return self.action(view.observation)

    def _attempt(self, kind: Decision, view: SeatView) -> Action | Failure | None:
        try:
            return self._propose(kind, view)
        except Exception:
            # An edge: the strategy raises nothing on purpose, so this is its bug, and it
            # must not stall the table. Carried as a Failure (with its traceback), logged
            # by `_settle`, which then decides simply, as for the executor's answers.
            return Failure()

    def _settle(self, kind: Decision, view: SeatView, bids: list[int],
                proposal: Action | Failure | None) -> Answer:
        """The answer for the table: the strategy's proposal when the rules core allows it
        (`refusal`), else a random legal decision (and a strategy that failed is logged)."""
        if isinstance(proposal, Failure):
            self._complain(proposal)
            proposal = None
        if proposal is not None and refusal(self.rules, view, kind, proposal) is None:
            # No decision is answered by a draw, nor by a take-back (`refusal` said so:
            # an AI seat never takes back).
            assert not isinstance(proposal, Draw | TakeBack)
            return proposal
        if kind is Decision.DECLARE:
            return Pass(view.seat)
        if kind is Decision.BID:
            return self._fallback.bid(view, bids)
        if kind is Decision.SHOW:
            return self._fallback.show(view)
        if kind is Decision.NAME:
            return self._fallback.name(view)
        if kind is Decision.BURY:
            return self._fallback.bury(view, self.rules.talon_size)
        if kind is Decision.CALL:
            return self._fallback.call(view)
        return self._fallback.play(view)

    def _complain(self, failure: Failure) -> None:
        self.log.failure("the {name} strategy failed; deciding at random this once",
                         failure=failure, name=getattr(self.strategy, "name", "?"))

    # --- off the reactor ------------------------------------------------------------------------

    def serve(self, node: ServedNode) -> None:
        """Answer, in the executor, every decision ``node``'s table waits for: the one it
        may wait for now, and each one after a change (``node.on_change``). Calling it
        again with another node (the game went on at a new table) leaves the old one."""
        if self.executor is None:
            raise RuntimeError("a StrategyPlayer without an executor answers at once")
        self._node = node
        before = node.on_change
        if before is None:
            node.on_change = self._look
        else:
            def both() -> None:
                before()
                self._look()
            node.on_change = both
        self._look()

    def _wanted_now(self) -> _Ticket | None:
        """The decision the served table waits for now, if any."""
        node = self._node
        if node is None or node.halted is not None or node.session is None:
            return None
        session = node.session
        table = session.current
        kind = table.waiting
        if kind is None:
            return None
        bids = table.public.bid_options() if kind is Decision.BID else []
        return _Ticket(node, session, table, kind, table.view(), bids)

    def _look(self) -> None:
        """Start working out the decision the table waits for (one at a time)."""
        if self._thinking is not None:
            return  # when it ends, `_finished` looks again
        ticket = self._wanted_now()
        if ticket is None:
            return
        assert self.executor is not None
        if self.people and ticket.kind is Decision.PLAY:
            ticket = replace(ticket, since=ticket.node.clock.seconds())
        self._thinking = ticket
        kind, view = ticket.kind, ticket.view
        d = self.executor.run(lambda: self._propose(kind, view))
        d.addBoth(self._finished, ticket)

    def _wanted(self, ticket: _Ticket) -> bool:
        """Is the table still waiting for exactly this decision? Not when the hand moved on,
        the table halted, the session went on at a new table or was resumed anew."""
        now = self._wanted_now()
        return now is not None and now.same(ticket)

    def _finished(self, proposal: Action | Failure | None, ticket: _Ticket) -> None:
        wait = self._grace(ticket)
        if wait > 0 and not isinstance(proposal, Failure):
            # Still this decision meanwhile (one at a time); a take-back makes it unwanted.
            ticket.node.clock.callLater(wait, self._finished_now, proposal, ticket)
            return
        self._finished_now(proposal, ticket)

    def _grace(self, ticket: _Ticket) -> float:
        """Seconds left before this seat may play after a person's play that may still be
        taken back (0: none)."""
        if not self.people or ticket.kind is not Decision.PLAY:
            return 0.0
        last = ticket.table.public.takebacks.last
        if last is None or last.saved is None or last.seat not in self.people:
            return 0.0
        return max(0.0, ticket.since + self.takeback_wait - ticket.node.clock.seconds())

    def _finished_now(self, proposal: Action | Failure | None, ticket: _Ticket) -> None:
        self._thinking = None
        if isinstance(proposal, Failure) and proposal.check(CancelledError):
            return  # the executor stopped: nobody waits for this any more
        try:
            if self._wanted(ticket):
                self._deliver(ticket, self._settle(ticket.kind, ticket.view, ticket.bids,
                                                   proposal))
            else:
                if isinstance(proposal, Failure):
                    self._complain(proposal)  # a bug is a bug, wanted or not
                self.log.debug("dropped an answer to a {kind} decision the table no longer "
                               "waits for", kind=ticket.kind)
        finally:
            self._look()

    def _deliver(self, ticket: _Ticket, answer: Answer) -> None:
        """Hand the answer to the table as a person's is handed, and send the frames."""
        node, session = ticket.node, ticket.session
        try:
            try:
                frames = session.decide(answer)
            except IllegalAction as exc:
                # The table refused what the player's own checks allowed: decide simply.
                self.log.warn("the table refused the AI's {kind} ({why}); deciding at random",
                              kind=ticket.kind, why=str(exc))
                frames = session.decide(self._settle(ticket.kind, ticket.view, ticket.bids,
                                                     None))
        except Exception as exc:
            # An edge: a callback of the executor's Deferred, where an exception would be
            # lost and the table left waiting. A peer's message that was waiting behind
            # this decision breaks the protocol (the node sends what was made before it,
            # the evidence, and halts, as for a person's move), or the table failed here
            # (a bug: `move_failed` logs it with its traceback and halts).
            node.move_failed(exc, f"the AI's {ticket.kind}")
            return
        node.send(frames)
