"""What a frame from a link does to this peer: the session takes it (or refuses it, and the
link that brought it is dropped), the relay keeps it for the seats that may lack it, and a
validly signed frame that breaks the protocol halts the table on its evidence, the
referee's verdict too (`net.referee.judging`). A peer that sees signs of a split transcript waits
for the proof of who equivocated before it halts.

No sockets here: the session, the relay and the referee's side (`Judging`) are given; the
node (`wire.PeerNode`) is reached only through `IntakeNode`: its state (halted, stopped)
and its send path, which the node owns since what it sends goes into its journal, its
outboxes and the relay (and instruments replace it: `net.table.peer_process`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from tractor.net.deck.background import Runner
from tractor.net.deck.envelope import Envelope, FrameError, NoRoom, open_frame, peek_hand
from tractor.net.deck.errors import DeckError, Equivocation, Replay, TranscriptSplit, ViewMismatch
from tractor.net.errors import NetError
from tractor.net.mesh.relay import HaveError, Relay, is_have, read_have
from tractor.net.referee.ballots import is_ballot
from tractor.net.referee.judging import Judging
from tractor.net.referee.machine import Blame
from tractor.net.referee.stall import is_complaint
from tractor.net.table.errors import TableError
from tractor.net.table.session import GameSession

#: Seconds a peer that saw signs of a split transcript (a seat's signed view of another
#: seat's messages differs from its own) waits for the two signed versions that prove who
#: equivocated, sending none of its own frames meanwhile, before it halts on the view.
SUSPECT = 10.0
#: Copies of frames already held that one link may bring per hand (relays and resends
#: after a reconnect repeat some; a link that floods copies is dropped).
MAX_COPIES = 4096


class ProcessingFailure(NetError, RuntimeError):
    """This peer failed (a bug, not a refused frame) while handling a frame: the table
    cannot go on safely, so the node halts. ``from_seat`` is the link the frame came on;
    it is not blamed (the fault may be this peer's own), only named."""

    def __init__(self, from_seat: int | None, cause: BaseException,
                 after: str | None = None) -> None:
        self.from_seat = from_seat
        self.cause = cause
        after = after or f"a frame from seat {from_seat}"
        super().__init__(f"could not process messages after {after}: "
                         f"{type(cause).__name__}: {cause}")


class IntakeLink(Protocol):
    """A link a frame came on: the seat it proved, a way to answer and to drop it."""

    @property
    def seat(self) -> int | None: ...

    def sendString(self, string: bytes) -> None: ...

    def close(self) -> None: ...

    def _drop(self, why: str) -> None: ...


class IntakeNode(Protocol):
    """What frames in need of their node (`wire.PeerNode`)."""

    @property
    def halted(self) -> Exception | None: ...

    @property
    def stopped(self) -> bool: ...

    def _keep(self, frames: list[bytes]) -> None:
        """Put frames in the journal (before anything they cause leaves)."""
        ...

    def _send_all(self, frames: list[bytes]) -> None:
        """Keep and send this peer's own new frames to every seat."""
        ...

    def publish_and_halt(self, exc: Exception, hand: int, frames: Sequence[bytes]) -> None:
        """Give every seat the signed evidence, then halt on ``exc``."""
        ...

    def _halt(self, exc: Exception) -> None: ...


class FrameIntake:
    """One node's frames in (its own moves' failures too)."""

    def __init__(self, node: IntakeNode, session: GameSession, relay: Relay, judging: Judging,
                 clock: IReactorTime, seats: int, errors: list[Exception], log: Logger,
                 runner: Runner | None) -> None:
        self.node = node
        self.session = session
        self.table = session.table
        self.seat = session.seat
        self.public_keys = list(session.public_keys)
        self.relay = relay
        self.judging = judging
        self.clock = clock
        self.seats = seats  #: seats at the table (a have report covers no more)
        self.errors = errors  #: frames refused and faults found (the node's, bounded)
        self.log = log
        self.runner = runner  #: where the decks' heavy work runs (`run_deck_job`)
        self.copies: dict[int, int] = {}  #: seat -> copies its link brought this hand
        #: A sign of a split transcript, and until when this peer waits for the proof.
        self.suspect: tuple[DeckError, float] | None = None

    def new_link(self, seat: int) -> None:
        """``seat``'s link is new: its copies count from nothing."""
        self.copies[seat] = 0

    def new_hand(self) -> None:
        """A hand begins: every link's copies count from nothing."""
        self.copies.clear()

    def frame_from(self, link: IntakeLink, frame: bytes) -> None:
        """Hand one frame of an up link to the session. Nothing raises into Twisted: a
        refused frame drops the link or halts the table on evidence, and any other failure
        (a bug here or in the table) halts the node, since its state can no longer be
        trusted to match the other peers'."""
        if self.node.halted is not None and not is_have(frame):
            return  # halted: it still shows its version of a chain that differs (below)
        try:
            self._frame_from(link, frame)
        except Exception as exc:
            # An edge: a link's callback from Twisted. Refusals are handled inside; what
            # gets here is a failure of this peer (a bug), logged with its traceback and
            # halting the node, never lost in Twisted's log with the table going on.
            self._failed(ProcessingFailure(link.seat, exc))

    def _frame_from(self, link: IntakeLink, frame: bytes) -> None:
        assert link.seat is not None
        if is_complaint(frame):
            self.judging.complaint_from(link, frame)
            return
        if is_ballot(frame):
            self.judging.ballot_from(link, frame, self.clock.seconds())
            return
        if is_have(frame):
            try:
                report = read_have(frame, self.seats)
            except HaveError as exc:
                link._drop(str(exc))
                return
            current = self.session.current.deck.config.hand
            report["have"] = [e for e in report["have"] if current - 1 <= e[0] <= current + 1]
            for pushed in self.relay.have_from(link.seat, report):
                link.sendString(pushed)  # its version of a chain differs: show it ours
            return
        current = self.session.current.deck.config.hand
        try:
            # Any seat's frame may come on any link (relayed): its signature says whose it
            # is, and a frame that does not verify is the fault of the link that brought it.
            # The session checks the signatures of this hand's and the next one's frames
            # (once is enough); a frame of the hand before is checked here.
            hand = peek_hand(frame)
            env = open_frame(frame, self.table, hand, self.public_keys,
                             verify=hand == current - 1)
        except FrameError as exc:
            self._refused(link, exc)
            return
        if not current - 1 <= hand <= current + 1:
            if hand > current + 1:
                self._refused(link, FrameError(f"frame for hand {hand}, far ahead of hand "
                                               f"{current}", link.seat))
            return  # settled long ago
        held = self.relay.held(hand, env.seat, env.header.seq)
        if held is not None:
            if held[1] == env.content:
                self._copy(link)  # relayed again, or resent after a reconnect
                return
            if hand != current - 1:  # not checked yet (the session checks these)
                try:
                    open_frame(frame, self.table, hand, self.public_keys)
                except FrameError as exc:
                    self._refused(link, exc)
                    return
            # Two signed versions of one message, whatever hand the session is in.
            proof = Equivocation(env.seat, f"signed two different messages number "
                                           f"{env.header.seq}")
            proof.frames = (held[0], frame)
            self.errors.append(proof)
            self._halt_on_evidence(proof, hand)
            return
        if hand == current - 1:
            # The session has settled it; the seats still in it may lack the frame.
            self.relay.heard(env.seat, hand, [count for count, _ in env.header.views])
            self.relay.hold(hand, env.seat, env.header.seq, env.content, frame,
                            self.clock.seconds(), link.seat)
            return
        if self._apply(link, env):
            # Signature-checked: keep it for the seats that may lack it.
            self.relay.heard(env.seat, hand, [count for count, _ in env.header.views])
            self.relay.hold(hand, env.seat, env.header.seq, env.content, frame,
                            self.clock.seconds(), link.seat)

    def _copy(self, link: IntakeLink) -> None:
        """A frame this peer holds already came again: harmless, within a bound."""
        assert link.seat is not None
        self.copies[link.seat] = self.copies.get(link.seat, 0) + 1
        if self.copies[link.seat] > MAX_COPIES:
            link._drop(f"it sent more than {MAX_COPIES} copies of frames in a hand")

    def _refused(self, link: IntakeLink, exc: FrameError) -> None:
        """Malformed, forged or misrouted: nothing changed; drop the link that brought it."""
        self.errors.append(exc)
        self.log.warn("dropping seat {seat}: {why}", seat=link.seat, why=str(exc))
        link.close()

    def _apply(self, link: IntakeLink, env: Envelope) -> bool:
        """Give one frame to the session; False if it was refused unread (a `FrameError`:
        its signature or shape), True if it was read (accepted, a copy, or a violation)."""
        assert link.seat is not None
        try:
            out = self.session.receive(env.frame)
            self.node._keep([env.frame])
            self.node._send_all(out)
        except NoRoom as exc:
            # Valid, but too far ahead to keep yet. Not held, so not relayed: it comes again
            # from its author once the link is new; a seat that relayed it is not at fault.
            if link.seat == env.seat:
                self._refused(link, exc)
            return False
        except FrameError as exc:
            self._refused(link, exc)
            return False
        except (DeckError, TableError) as exc:
            if isinstance(exc, Replay):
                if exc.outgoing:
                    self.node._send_all(exc.outgoing)
                self._copy(link)
                return True  # sent again after a reconnect, or relayed: harmless
            self._violation(exc, env.header.hand)
        return True

    def _violation(self, exc: DeckError | TableError, hand: int | None = None) -> None:
        """A validly signed frame broke the protocol (found as it came, once its checks came
        back from the worker, or behind this peer's own move): send what was made
        meanwhile; halt on the evidence, or wait for the proof of a split."""
        outgoing = getattr(exc, "outgoing", [])
        outgoing += [f for f in self._unsent() if f not in outgoing]
        if outgoing:
            self.node._send_all(outgoing)
        self.errors.append(exc)
        proof = self._suspect_proof(exc)
        if isinstance(exc, ViewMismatch | TranscriptSplit) and not isinstance(
                proof, Equivocation):
            self._suspect_split(exc)
            return
        # The table halts on evidence, and every seat gets the signed frames that show it.
        # The hand of the refused message (a frame that ends a hand may bring to light a
        # message of the next one, judged as that hand starts), or of the table that
        # refused, else of the frame that found it, else the hand being played.
        shown = getattr(proof, "frames", ())
        refused_in: int | None = getattr(exc, "hand", None)  # (set by the table that refused)
        if shown:
            hand = peek_hand(shown[0])
        elif refused_in is not None:
            hand = refused_in
        elif hand is None:
            hand = self.session.current.deck.config.hand
        self._halt_on_evidence(proof, hand)

    def _unsent(self) -> list[bytes]:
        """This peer's frames accepted in its own chains that never left: made in a call
        that then raised, past whatever ``outgoing`` caught. Every seat needs them (an
        audit verdict, say); kept back, they would get this peer blamed for a stall."""
        s = self.session
        decks = [h.deck for h in s.played[-1:]] + [s.current.deck] + (
            [s.upcoming] if s.upcoming is not None else [])
        return [frame for deck in decks for seq, frame in enumerate(deck.mine())
                if self.relay.held(deck.config.hand, self.seat, seq) is None]

    def run_deck_job(self, job: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """The session's `Runner`: the job in the worker; once done, the deck goes on."""
        assert self.runner is not None

        def finished(result: Any) -> None:
            done(result)
            if self.node.halted is None and not self.node.stopped:
                self._go_on_with(self.session.poll)

        self.runner(job, finished)

    def _go_on_with(self, step: Callable[[], list[bytes]]) -> None:
        """Run a step of the session that is not a frame from a link (a deck's work came
        back) and send what it makes; a violation it finds halts the table as a frame's
        would."""
        try:
            self.node._send_all(step())
        except (DeckError, TableError) as exc:
            self._violation(exc)
        except Exception as exc:
            # An edge: a callback from the worker's thread (`callFromThread`), where a bug
            # would be lost. As after a frame (`frame_from`): logged, and the node halts.
            self._failed(ProcessingFailure(None, exc, "the deck worker's job"))

    def move_failed(self, exc: Exception, what: str = "this peer's move") -> None:
        """This peer's own move (its player's decision, a chat line) raised: a protocol
        error it brought to light (a message waiting behind it) halts on evidence as a
        frame's would; anything else is a failure here, and halts too."""
        if isinstance(exc, DeckError | TableError):
            self._violation(exc)
        else:
            self._failed(ProcessingFailure(None, exc, what))

    def _failed(self, failure: ProcessingFailure) -> None:
        """This peer failed (not a refused frame): log it with its traceback (called while
        handling the exception) and halt."""
        self.log.failure("{why}", why=str(failure))
        try:
            self.node._halt(failure)
        except Exception:
            # An edge: handling a failure already (inside one of the edges above). Halting
            # calls back the layers above (``on_change``); their bug is logged with its
            # traceback, and must not escape and hide this failure.
            self.log.failure("halting failed too: {why}", why=str(failure))

    def _suspect_proof(self, exc: Exception) -> Exception:
        """The strongest fault among those found at once: an equivocation, if any."""
        for found in [exc, *getattr(exc, "also", [])]:
            if isinstance(found, Equivocation):
                return found
        return exc

    def _suspect_split(self, exc: DeckError) -> None:
        """A seat's signed view (or input) differs from this peer's: some seat sent two
        versions of a message. The have reports bring the two signed versions within
        seconds (`Relay.have_from`); meanwhile this peer sends nothing of its own."""
        if self.suspect is None:
            self.log.warn("waiting for proof of a split transcript: {why}", why=str(exc))
            self.suspect = (exc, self.clock.seconds() + SUSPECT)

    def waited_for_proof(self, now: float) -> None:
        """Past the wait for the proof of a split (`SUSPECT`) with none: the signed view
        itself is the evidence."""
        if self.suspect is not None and self.node.halted is None and now >= self.suspect[1]:
            self._halt_on_evidence(self.suspect[0], self.session.current.deck.config.hand)

    def _halt_on_evidence(self, exc: Exception, hand: int) -> None:
        """Halt on evidence the deck found (it is the referee's verdict too), and give every
        seat the signed frames that show why: the refused message (both versions of an
        equivocation) and every frame of the blamed seat's chain this peer holds, so a seat
        that holds other versions finds the equivocation."""
        frames = tuple(getattr(exc, "frames", ()))
        blamed = getattr(exc, "seat", None)
        if type(blamed) is int and blamed != self.seat:
            frames += tuple(f for f in self.relay.chain(hand, blamed) if f not in frames)
        seat = blamed if type(blamed) is int else -1
        self.judging.found(Blame(hand, seat, "deck", str(exc), frames, exc))
        self.node.publish_and_halt(exc, hand, frames)
