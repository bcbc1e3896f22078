"""A person at a peer-to-peer table: their decisions wait for the screen, and the deal may
come at their pace.

`HumanPlayer` is the table's `Player` for the person's seat: it answers `WAIT`, and the
`NetClient` brings the person's action (`GameSession.decide`). `DealPace` holds the
person's declaration windows so the cards come one a pace while they watch.
"""

from __future__ import annotations

from collections.abc import Callable

from twisted.internet.interfaces import IDelayedCall

from tractor.actions import Declare, Pass
from tractor.net.mesh.wire import PeerNode
from tractor.net.table.hand import TableHand
from tractor.net.table.player import WAIT, SeatView, Undecided, Wait
from tractor.net.table.session import GameSession
from tractor.phases import Decision, Phase


class HumanPlayer(Undecided):
    """The person's seat: decisions wait for the screen.

    ``deal_pace`` paces the deal so a person can follow it: every seat posts one window
    per card dealt and the next card waits for all of them, so holding this seat's window
    until ``deal_pace`` seconds after the last one deals the whole table one card a pace
    (or slower, if the peers are slower). A held window is `WAIT` to the table
    (``holding`` is its count of cards dealt); ``on_hold``, set by the `NetClient`, is
    told, and answers it with a pass once the pace is over. While the cards come at a
    pace the deal never stops for an offer: the person may choose a declaration at any
    moment (``chosen``), and this seat's next window posts it, as on a card table where
    one declares while the cards are dealt.

    With no pace (0: the deal runs as fast as the peers go, a second or two) the deal
    does not stop for an offer either: this seat's windows are passed at once, and no
    offer is made while the cards come (it would be gone before it could be read). In
    the final window after the last card (the last chance) the table waits for the
    person when the hand allows a declaration they have not let pass (``declined``); so
    it does at every window without a `DealPace` (``on_hold`` None)."""

    def __init__(self, deal_pace: float = 0.0) -> None:
        self.declined: set[tuple[int, ...]] = set()
        self._dealt = 0
        self.deal_pace = deal_pace
        self.holding: int | None = None
        self.on_hold: Callable[[], None] | None = None
        #: A declaration the person chose between two windows: the next one posts it.
        self.chosen: tuple[int, ...] | None = None
        #: The person reads the last hand's summary: the next deal waits for them (its
        #: first declaration would go by unseen), as a table waits for "next hand".
        self.reading = False

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> Declare | Pass | Wait:
        dealt = view.observation.cards_dealt
        if dealt < self._dealt:  # a new hand: what was let pass before may be asked again
            self.declined.clear()
            self.chosen = None
        self._dealt = dealt
        if self.reading:
            self.holding = None
            return WAIT
        if self.chosen is not None and self.chosen not in options:
            self.chosen = None  # another seat's declaration overcalled it
        if self.on_hold is not None and view.observation.phase == Phase.DEAL:
            if self.deal_pace <= 0:  # no pace: the deal runs through, the last chance asks
                self.holding = None
                return Pass(view.seat)
            if self.holding != dealt:  # the table asks again at every frame: hold once
                self.holding = dealt
                self.on_hold()  # the pace's end answers it (with ``chosen``, if any)
            return WAIT
        self.holding = None
        if view.observation.phase == Phase.THEFT:
            # Kitty theft: each window after a burial is a new question (a pair let pass
            # while the cards came may take the kitty now).
            return WAIT if options else Pass(view.seat)
        if self.chosen is not None:
            choice, self.chosen = self.chosen, None
            return Declare(view.seat, choice)
        if any(o not in self.declined for o in options):
            return WAIT  # the person decides
        return Pass(view.seat)


class DealPace:
    """The deal at the person's pace (`HumanPlayer.deal_pace`): each of the person's
    declaration windows is held, and passed (or answered with the declaration they
    chose meanwhile) a pace after the last one, on the node's clock. ``failed`` is told
    when answering a window brought a bad message to light, ``changed`` when the table
    moved on."""

    def __init__(self, node: PeerNode, session: GameSession, person: HumanPlayer,
                 failed: Callable[[Exception], None], changed: Callable[[], None]) -> None:
        self.node = node
        self.session = session
        self.person = person
        self.failed = failed
        self.changed = changed
        self._call: IDelayedCall | None = None
        #: When this seat's last paced window was answered: the next is held until a pace
        #: after it, so a card comes every pace however long the peers took between.
        self._window_at: float | None = None
        person.holding = None
        person.on_hold = self.hold

    def stop(self) -> None:
        """The table is left behind (the game goes on at another): its held window too."""
        if self._call is not None and self._call.active():
            self._call.cancel()

    def dealing(self) -> bool:
        """Whether the cards are being dealt at the person's pace now."""
        return self.person.deal_pace > 0 and self.session.current.public.phase == Phase.DEAL

    def hold(self) -> None:
        """The person's window of this card is held: pass it when the pace is over."""
        if self._call is not None and self._call.active():
            return
        wait = self.person.deal_pace
        if self._window_at is not None:
            wait = max(0.0, self._window_at + wait - self.node.clock.seconds())
        self._call = self.node.clock.callLater(wait, self._paced, self.session.current)

    def end_hold(self) -> None:
        """The person answers the window the pace holds: the pace ends with it."""
        self.stop()
        self._call = None
        self.person.holding = None
        self._window_at = self.node.clock.seconds()

    def _paced(self, table: TableHand) -> None:
        """The pace is over: the held window is passed (unless the table moved on)."""
        self._call = None
        person = self.person
        if person.holding is None or table is not self.session.current:
            return
        person.holding = None
        if table.waiting != Decision.DECLARE or self.node.halted is not None:
            return
        self._window_at = self.node.clock.seconds()
        choice, person.chosen = person.chosen, None
        self.answer_window(choice if choice in table.declaration_options() else None)
        self.changed()

    def deal_on(self) -> None:
        """The person is back from the summary: the deal that waited for them goes on at
        its pace, or at once with none (the last chance stops for a declaration they may
        make)."""
        table = self.session.current
        person = self.person
        if table.waiting != Decision.DECLARE or self.node.halted is not None:
            return
        if self.dealing():  # held for the pace; offers are made meanwhile
            person.holding = table.public.drawn
            self.hold()
            return
        if table.public.phase == Phase.DEAL:  # no pace: the deal runs through
            self.answer_window()
            return
        if any(o not in person.declined for o in table.declaration_options()):
            return  # the person decides: the screen asks
        self.answer_window()

    def answer_window(self, choice: tuple[int, ...] | None = None) -> None:
        """Answer this seat's declaration window (None: a pass; the deal goes on) and
        send the frames."""
        seat = self.session.seat
        try:
            frames = self.session.decide(Pass(seat) if choice is None else Declare(seat, choice))
        except Exception as exc:  # a peer's message that waited behind it was bad
            self.failed(exc)
            return
        self.node.send(frames)
