"""An AI strategy seated at a peer-to-peer table.

`StrategyPlayer` is the `tractor.net.table.hand.Player` of an AI peer: at each decision it
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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from twisted.internet.defer import CancelledError
from twisted.logger import Logger
from twisted.python.failure import Failure

from tractor.actions import Action, Bid, Bury, Declare, Draw, NameTrump, Pass, Play, Show
from tractor.ai.hosting.executors import Executor
from tractor.ai.players.base import Strategy
from tractor.ai.players.worlds import Knowledge
from tractor.follow import follow_error, lead_error
from tractor.hand import Hand, IllegalAction
from tractor.net.table.hand import WAIT, RandomPlayer, SeatView, TableHand
from tractor.net.table.session import GameSession
from tractor.observation import Observation
from tractor.rules import Rules


def _legal(view: SeatView, faces: list[int], must_play_tractor: bool) -> bool:
    """The rules core's check of a play from the seat's own hand (a strategy's bug must not
    become a broken rule at the table)."""
    if view.ladder is None or not _held(view, faces):
        return False
    if view.lead is None:
        return lead_error(view.hand, faces, view.ladder) is None
    return follow_error(view.hand, view.lead, faces, view.ladder, must_play_tractor) is None


def _held(view: SeatView, faces: list[int]) -> bool:
    held = list(view.hand)
    for f in faces:
        if f not in held:
            return False
        held.remove(f)
    return True


class ServedNode(Protocol):
    """What `StrategyPlayer.serve` needs of the peer it decides for (a `PeerNode`)."""

    session: GameSession | None
    halted: Exception | None
    on_change: Callable[[], None] | None

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
    kind: str
    view: SeatView
    args: tuple[Any, ...]

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
                 executor: Executor | None = None) -> None:
        self.strategy = strategy
        self.rules = rules
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
        world = self.world(observation)
        seat = observation.seat
        if world.phase in ("deal", "declare"):
            return self.strategy.declare(world, seat) or (
                Draw(seat) if world.phase == "deal" else Pass(seat))
        return self.strategy.act(world, seat)

    # --- the table's Player -------------------------------------------------------------------

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> tuple[int, ...] | None:
        if not options:
            return None
        return self._answer("declare", view, (options,))

    def bury(self, view: SeatView, count: int) -> list[int]:
        return self._answer("bury", view, (count,))

    def play(self, view: SeatView) -> list[int]:
        return self._answer("play", view, ())

    def bid(self, view: SeatView, options: list[int]) -> int:
        return self._answer("bid", view, (options,))

    def show(self, view: SeatView) -> int:
        return self._answer("show", view, ())

    def name(self, view: SeatView) -> str | None:
        return self._answer("name", view, ())

    def _answer(self, kind: str, view: SeatView, args: tuple[Any, ...]) -> Any:
        if self.executor is not None:
            return WAIT  # worked out off the reactor; `serve` brings the answer
        return self._settle(kind, view, args, self._attempt(kind, view))

    # --- deciding -------------------------------------------------------------------------------

    def _propose(self, kind: str, view: SeatView) -> Action | None:
        """The strategy's proposal for one decision: the slow part, and the only part that
        may run in a worker thread (it reads only ``view`` and this player's own state)."""
        if kind == "declare":
            return self.strategy.declare(self.world(view.observation), view.seat)
        return self.action(view.observation)

    def _attempt(self, kind: str, view: SeatView) -> Action | Failure | None:
        try:
            return self._propose(kind, view)
        except Exception:  # a strategy bug must not stall a table: `_settle` decides simply
            return Failure()

    def _settle(self, kind: str, view: SeatView, args: tuple[Any, ...],
                proposal: Action | Failure | None) -> Any:
        """The answer for the table: the strategy's proposal when the rules allow it, else
        a random legal decision (and a strategy that failed is logged)."""
        if isinstance(proposal, Failure):
            self._complain(proposal)
            proposal = None
        if kind == "declare":
            if isinstance(proposal, Declare) and tuple(proposal.faces) in args[0]:
                return tuple(proposal.faces)
            return None
        if kind == "bid":
            if isinstance(proposal, Bid) and proposal.points in args[0]:
                return proposal.points
            return 0 if isinstance(proposal, Pass) else self._fallback.bid(view, args[0])
        if kind == "show":
            if isinstance(proposal, Show) and len(proposal.faces) == 1 and _held(
                    view, list(proposal.faces)):
                return proposal.faces[0]
            return self._fallback.show(view)
        if kind == "name":
            if isinstance(proposal, NameTrump):
                return proposal.suit
            return self._fallback.name(view)
        if kind == "bury":
            count = args[0]
            if isinstance(proposal, Bury) and len(proposal.faces) == count and _held(
                    view, list(proposal.faces)):
                return list(proposal.faces)
            return self._fallback.bury(view, count)
        if isinstance(proposal, Play) and _legal(view, list(proposal.faces),
                                                 self.rules.must_play_tractor):
            return list(proposal.faces)
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
        args: tuple[Any, ...] = ()
        if kind == "declare":
            args = (table.declaration_options(),)
        elif kind == "bury":
            args = (table.rules.talon_size,)
        elif kind == "bid":
            args = (table.public.bid_options(),)
        return _Ticket(node, session, table, kind, table.view(), args)

    def _look(self) -> None:
        """Start working out the decision the table waits for (one at a time)."""
        if self._thinking is not None:
            return  # when it ends, `_finished` looks again
        ticket = self._wanted_now()
        if ticket is None:
            return
        assert self.executor is not None
        self._thinking = ticket
        kind, view = ticket.kind, ticket.view
        d = self.executor.run(lambda: self._propose(kind, view))
        d.addBoth(self._finished, ticket)

    def _wanted(self, ticket: _Ticket) -> bool:
        """Is the table still waiting for exactly this decision? Not when the hand moved on,
        the table halted, the session went on at a new table or was resumed anew."""
        now = self._wanted_now()
        return now is not None and now.same(ticket)

    def _finished(self, proposal: Any, ticket: _Ticket) -> None:
        self._thinking = None
        if isinstance(proposal, Failure) and proposal.check(CancelledError):
            return  # the executor stopped: nobody waits for this any more
        try:
            if self._wanted(ticket):
                self._deliver(ticket, self._settle(ticket.kind, ticket.view, ticket.args,
                                                   proposal))
            else:
                if isinstance(proposal, Failure):
                    self._complain(proposal)  # a bug is a bug, wanted or not
                self.log.debug("dropped an answer to a {kind} decision the table no longer "
                               "waits for", kind=ticket.kind)
        finally:
            self._look()

    def _deliver(self, ticket: _Ticket, answer: Any) -> None:
        """Hand the answer to the table as a person's is handed, and send the frames."""
        node, session = ticket.node, ticket.session
        try:
            try:
                frames = session.decide(answer)
            except IllegalAction as exc:
                # The table refused what the player's own checks allowed: decide simply.
                self.log.warn("the table refused the AI's {kind} ({why}); deciding at random",
                              kind=ticket.kind, why=str(exc))
                frames = session.decide(self._settle(ticket.kind, ticket.view, ticket.args,
                                                     None))
        except Exception as exc:
            # A peer's message that was waiting behind this decision breaks the protocol
            # (the node sends what was made before it, the evidence, and halts, as for a
            # person's move), or the table failed here.
            node.move_failed(exc, f"the AI's {ticket.kind}")
            return
        node.send(frames)
