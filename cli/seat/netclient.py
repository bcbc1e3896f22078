"""A person's seat at a peer-to-peer table, behind the `TableClient` surface the screens use.

`NetClient` wraps this peer's `PeerNode` (which moves the frames) and its `GameSession`
(which holds the replicated table): the person's decisions wait in the table (`WAIT`)
until the screen submits them, as the rules core's actions; every refused move comes
back with the rules core's reason and changes nothing; network trouble becomes a banner,
never a traceback. The person's player and the deal's pace: `cli.seat.human`; the log:
`cli.seat.seat_log`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tractor.actions import Action, Declare, Draw, Pass, TakeBack
from tractor.ai.players.explain import reason
from tractor.cards import format_cards
from tractor.cli.screen.summary_view import strip_entry
from tractor.cli.screen.words import display_names
from tractor.cli.seat.client import Hint
from tractor.cli.seat.human import DealPace, HumanPlayer
from tractor.cli.seat.returning import ReturningSeats
from tractor.cli.seat.seat_log import SeatLog
from tractor.net.deck.errors import Equivocation, KeyTimeout
from tractor.net.mesh.intake import ProcessingFailure
from tractor.net.mesh.reachability import said_of_several
from tractor.net.mesh.wire import WARN_BEFORE, PeerNode
from tractor.net.referee.machine import GONE
from tractor.net.referee.refereeing import SeatGone
from tractor.net.referee.stall import MOVE_DEADLINE, Stalled
from tractor.net.table.hand import TableHand
from tractor.net.table.move_check import misfit
from tractor.net.table.session import GameSession
from tractor.observation import GameRecord, Observation
from tractor.phases import Decision, IllegalAction


def verdict_text(exc: BaseException, names: Sequence[str]) -> str:
    """The words every peer shows when the table halts (the same evidence gives the same
    words everywhere: the seat and the reason come from the signed frames)."""
    seat = getattr(exc, "seat", None)
    who = f"seat {seat} ({names[seat]})" if isinstance(seat, int) and 0 <= seat < len(
        names) else "a peer"
    if isinstance(exc, SeatGone):  # (not `exc`'s own words: they name the seat again)
        return (f"The table stopped: {who} left. No connection for {exc.seconds:.0f} s, so "
                "this hand ends without a result")
    if isinstance(exc, KeyTimeout):
        return f"The table stopped: {who} {exc.reason}; the hand ends without a result"
    if isinstance(exc, Stalled):
        return (f"The table stopped: {who} sent no {exc.what} for {exc.seconds:.0f} s while "
                "connected, even after the other seats complained (every one of them voted "
                "so, signed); the hand ends without a result")
    if isinstance(exc, Equivocation):
        return (f"The table halted: {who} signed two different versions of one message "
                "and sent them to different seats; both signed frames are the evidence")
    if isinstance(exc, ProcessingFailure):
        return f"The table stopped: this peer {exc} (details in the log)"
    return f"The table halted on signed evidence against {who}: {exc}"


class NetClient:
    """`TableClient` for this peer's seat (see `cli.seat.client`)."""

    def __init__(self, node: PeerNode, names: Sequence[str],
                 hinter: Callable[[Observation], Action] | None = None) -> None:
        self.hinter = hinter
        self.on_change: Callable[[], None] | None = None
        self._events: list[str] = []
        #: The game strip of the tables before this one (a seat was replaced): the game
        #: goes on, and so does its strip.
        self._strip_before: list[dict[str, Any]] = []
        assert node.session is not None
        self.session: GameSession = node.session
        self._pace: DealPace | None = None
        self.rebind(node, names)

    def rebind(self, node: PeerNode, names: Sequence[str]) -> None:
        """Go on with another table (the game continued after a seat was replaced)."""
        assert node.session is not None
        if node.session is not self.session:
            self._strip_before = self._strip(self.session)
        self.node = node
        #: The seats this machine restarts: not told as lost while they start.
        self.returning = ReturningSeats(node)
        self.session = session = node.session
        self.seat = session.seat
        self.rules = session.rules
        self.names = display_names(names)
        player = session.player
        self.person = player if isinstance(player, HumanPlayer) else None
        if self._pace is not None:
            self._pace.stop()  # a window of the table left behind
        self._pace = None if self.person is None else DealPace(
            node, session, self.person, self._failed, self._changed)
        self.log = SeatLog(self._events, self.names, self.rules.players)
        self._summary: dict[str, Any] | None = None
        self._shown: TableHand | None = None  #: a finished hand shown until `next_hand`
        session.on_hand_end = self._hand_ended
        node.on_change = self._changed
        self.log.played(session)
        self._changed()

    def note(self, text: str) -> None:
        """A line in the log from this program (not from the table)."""
        self._events.append(text)
        self._changed()

    # --- TableClient ------------------------------------------------------------------------

    def observation(self) -> Observation:
        session = self.session
        hand = self._shown or session.current
        # Hands played before this one (a finished hand on screen counts as played).
        played = len(session.results) - (1 if self._shown is not None else 0)
        record = GameRecord(self.rules, played, tuple(session.levels), session.winner,
                            tuple(r.public() for r in session.results))
        return replace(hand.observation(), game=record)

    def decision(self) -> Decision | None:
        if self._summary is not None or self.node.halted is not None:
            return None
        table, person = self.session.current, self.person
        if person is not None and self._paced_deal():
            # Offered at any moment while the cards come, whether or not the table waits.
            if person.chosen is not None:
                return None
            fresh = any(o not in person.declined for o in table.open_declarations())
            return Decision.DECLARE if fresh else None
        waiting = table.waiting
        if waiting == Decision.DECLARE and person is not None and person.holding is not None:
            return None  # the deal's pace, not the person's decision
        return waiting

    def _paced_deal(self) -> bool:
        """Whether the cards are being dealt at the person's pace (`HumanPlayer`)."""
        return self._pace is not None and self._pace.dealing()

    def declaration_options(self) -> list[tuple[int, ...]]:
        if self.decision() != Decision.DECLARE:
            return []
        return self.session.current.open_declarations()

    def submit(self, action: Action) -> str | None:
        if isinstance(action, TakeBack):  # unasked: taken whoever's turn it is
            return self._send_move(action)
        kind = self.decision()
        if kind is None:
            return "it is not your turn"
        if kind == Decision.DECLARE and isinstance(action, Draw):
            action = Pass(action.seat)  # no declaration: the deal goes on
        refused = misfit(self.rules, self.seat, kind, action)
        if refused is not None:
            return refused
        table = self.session.current
        if kind == Decision.DECLARE and self.person is not None:
            if isinstance(action, Pass):
                self.person.declined.update(table.open_declarations())
            if self._pace is not None and self._pace.dealing():
                # The deal goes on: a pass only lets the offers go by (the pace passes the
                # window), a declaration goes out in this seat's window, the one held now
                # or the next (`HumanPlayer.chosen`).
                if isinstance(action, Declare) and action.faces not in table.open_declarations():
                    return "that declaration is not open to you now"
                if isinstance(action, Pass) or table.waiting != Decision.DECLARE:
                    if isinstance(action, Declare):
                        self.person.chosen = action.faces
                    self._changed()
                    return None
                self._pace.end_hold()
        return self._send_move(action)

    def _send_move(self, action: Action) -> str | None:
        """The move to the table, and its frames to the peers; the rules' refusal."""
        if self.node.halted is not None:
            return "the table has stopped"
        try:
            frames = self.session.decide(action)
        except IllegalAction as exc:
            return str(exc)
        except Exception as exc:  # a peer's message that arrived meanwhile was bad
            self._failed(exc)
            return None
        self.node.send(frames)
        self._changed()
        return None

    def _failed(self, exc: Exception) -> None:
        """The table cannot go on: the node sends what was made before the failure (this
        peer's signed move, so the others see the same evidence) and halts."""
        self.node.move_failed(exc, "the person's move")
        self._changed()

    def hint(self) -> Action | None:
        advice = self.advice()
        return advice.action if advice is not None else None

    def advice(self) -> Hint | None:
        advisor = self.advisor()
        try:
            return advisor() if advisor is not None else None
        except Exception as exc:  # a hint is a courtesy: never let it break the screen
            self._events.append(f"(no hint: {exc})")
            return None

    def advisor(self) -> Callable[[], Hint | None] | None:
        kind = self.decision()
        if kind is None or self.hinter is None:
            return None
        # A snapshot: the observation is immutable, the options a fresh list; the hinter
        # samples its worlds from the observation alone.
        obs, options, hinter = self.observation(), self.declaration_options(), self.hinter
        seat, rules = self.seat, self.rules

        def advise() -> Hint | None:  # raises what the hinter raises
            action = hinter(obs)
            if kind == Decision.DECLARE and not (isinstance(action, Declare)
                                        and tuple(action.faces) in options):
                action = Pass(seat)  # the strategy's Draw (no declaration), or one not open
            return Hint(action, reason(obs, action, rules))

        return advise

    def chat(self, text: str) -> None:
        try:
            self.node.send(self.session.say(text))
        except Exception as exc:  # edge: whatever stops this peer's own frame (a bug too)
            self._failed(exc)  # halts the table with it, as a failed move does (move_failed)
            return
        self._changed()

    def events(self) -> list[str]:
        return list(self._events)

    def banner(self) -> str | None:
        if self.node.halted is not None:
            return verdict_text(self.node.halted, self.names)
        now = self.node.clock.seconds()
        voted = self.node.refereeing.open_votes()
        if voted:
            # (a vote on a seat whose link stayed down names no step: "gone")
            who = ", ".join(self.log.who(seat) + ("" if what == GONE else f"'s {what}")
                            for seat, what in voted)
            return (f"This seat waited too long for {who} and voted so; the hand ends if "
                    "every other seat votes the same, and goes on if one of them has it")
        left = self.node.decision_time_left()
        if left is not None and left < WARN_BEFORE:
            return (f"Decide within {max(left, 0):.0f} s: the other seats end the hand when a "
                    f"seat keeps the table waiting {MOVE_DEADLINE / 60:.0f} minutes")
        gone = self.returning.unreachable()
        if gone:
            return "; ".join(self._lost_links(gone, now)) + (
                f" (the hand ends after {self.node.grace:.0f} s without "
                f"{'it' if len(gone) == 1 else 'them'})")
        return None

    def _lost_links(self, gone: dict[int, str], now: float) -> list[str]:
        """The seats without a link, those with the same reason named together (the
        longest wait said): five seats each with the same words filled the banner's lines
        and hid the next entry."""
        by_why: dict[str, list[int]] = {}
        for seat, why in gone.items():
            by_why.setdefault(why, []).append(seat)
        out = []
        for why, seats in by_why.items():
            waited = max(now - self.node.down_since[s] for s in seats)
            if len(seats) == 1:
                out.append(f"no link with {self.log.who(seats[0])} for {waited:.0f} s: {why}")
                continue
            numbers = ", ".join(str(s) for s in seats)
            names = ", ".join(self.names[s] for s in seats)
            out.append(f"no link with seats {numbers} ({names}) for {waited:.0f} s: "
                       f"{said_of_several(why)}")
        return out

    def summary(self) -> dict[str, Any] | None:
        return self._summary

    def takeback_refusal(self) -> str | None:
        return self.session.current.takeback_refusal()

    def next_hand(self) -> None:
        self._summary = None
        self._shown = None
        if self.person is not None and self.person.reading:
            self.person.reading = False
            if self._pace is not None:
                self._pace.deal_on()
        self._changed()

    # --- keeping up with the table ----------------------------------------------------------

    def _hand_ended(self, session: GameSession, hand: TableHand) -> None:
        self.log.hand(hand)  # the hand's last plays, before it leaves the screen
        res = hand.result
        assert res is not None
        buried = hand.observation().buried
        self._summary = {"result": res.to_data(),
                         "buried": format_cards(buried) if buried is not None else None,
                         "levels": list(session.levels), "audit": self.log.audit(hand),
                         "game_over": session.over, "winner": session.winner,
                         "strip": self._strip(session)}
        self._shown = hand
        if self.person is not None and not session.over:
            self.person.reading = True
        self._events.append(self.log.over_line(session.hand_no + 1, hand))
        if session.over:
            self._events.append(self.log.game_over(hand))

    def _strip(self, session: GameSession) -> list[dict[str, Any]]:
        """The game strip: the tables' before this one, then this table's finished hands
        (a resumed session replayed them); it reads the same on both clients."""
        entries = list(self._strip_before)
        for hand in session.played:
            if hand.result is not None:
                entries.append(strip_entry(len(entries) + 1, hand.observation(), hand.result,
                                           self.rules))
        return entries

    def _changed(self) -> None:
        session, log = self.session, self.log
        log.paths(self.node)
        log.redeals(session)
        # While the summary is up, the next hand's log waits (its separator came before
        # "hand 1 over" on the plain screen).
        log.hand(self._shown or session.current)
        log.options(session.current,
                    self.declaration_options() if self.decision() == Decision.DECLARE else None)
        if self.node.halted is not None and not log.halt_told:
            log.halt_told = True
            self._events.append(verdict_text(self.node.halted, self.names))
        if self.on_change is not None:
            self.on_change()
