"""A person's seat at a peer-to-peer table, behind the `TableClient` surface the screens use.

`NetClient` wraps this peer's `PeerNode` (which moves the frames) and its `GameSession`
(which holds the replicated table): the person's decisions wait in the table (`WAIT`)
until the screen submits them; every refused move comes back with the rules core's
reason and changes nothing; network trouble becomes a banner, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tractor.actions import Action, Bid, Bury, Declare, Draw, NameTrump, Pass, Play, Show
from tractor.ai.players.explain import reason
from tractor.cards import format_cards
from tractor.cli.screen.words import count, display_names
from tractor.cli.seat.client import BID, BURY, DECLARE, NAME, PLAY, SHOW, Hint
from tractor.cli.seat.hand_log import table_events, with_chat
from tractor.cli.seat.returning import ReturningSeats
from tractor.hand import IllegalAction
from tractor.net.deck.errors import Equivocation, KeyTimeout
from tractor.net.mesh.wire import WARN_BEFORE, PeerNode, ProcessingFailure, SeatGone
from tractor.net.referee.stall import MOVE_DEADLINE, Stalled
from tractor.net.table.hand import WAIT, SeatView, TableHand
from tractor.net.table.session import GameSession
from tractor.observation import GameRecord, Observation
from tractor.public import DEAL

_DECISIONS = {"declare": DECLARE, "bury": BURY, "play": PLAY, "bid": BID, "show": SHOW,
              "name": NAME}
_REDEAL = "nobody declared a trump: the cards are dealt again"


class HumanPlayer:
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

    With no pace (0: the deal runs as fast as the peers go), and in the final window
    after the last card, the table waits for the person when the hand allows a
    declaration they have not let pass (``declined``)."""

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

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> Any:
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
        if self.deal_pace > 0 and self.on_hold is not None and view.observation.phase == DEAL:
            if self.holding != dealt:  # the table asks again at every frame: hold once
                self.holding = dealt
                self.on_hold()  # the pace's end answers it (with ``chosen``, if any)
            return WAIT
        self.holding = None
        if self.chosen is not None:
            choice, self.chosen = self.chosen, None
            return choice
        if any(o not in self.declined for o in options):
            return WAIT  # the person decides
        return None

    def bury(self, view: SeatView, count: int) -> Any:
        return WAIT

    def play(self, view: SeatView) -> Any:
        return WAIT

    def bid(self, view: SeatView, options: list[int]) -> Any:
        return WAIT

    def show(self, view: SeatView) -> Any:
        return WAIT

    def name(self, view: SeatView) -> Any:
        return WAIT


def verdict_text(exc: BaseException, names: Sequence[str]) -> str:
    """The words every peer shows when the table halts (the same evidence gives the same
    words everywhere: the seat and the reason come from the signed frames)."""
    seat = getattr(exc, "seat", None)
    who = f"seat {seat} ({names[seat]})" if isinstance(seat, int) and 0 <= seat < len(
        names) else "a peer"
    if isinstance(exc, SeatGone):
        return f"The table stopped: {who} left. {exc}"
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
        self.rebind(node, names)

    def rebind(self, node: PeerNode, names: Sequence[str]) -> None:
        """Go on with another table (the game continued after a seat was replaced)."""
        assert node.session is not None
        before: GameSession | None = getattr(self, "session", None)
        #: The game strip of the tables before this one (a seat was replaced): the game
        #: goes on, and so does its strip.
        self._strip_before: list[dict[str, Any]] = getattr(self, "_strip_before", [])
        if before is not None and before is not node.session:
            self._strip_before = self._strip(before)
        self.node = node
        #: The seats this machine restarts: not told as lost while they start.
        self.returning = ReturningSeats(node)
        self.session: GameSession = node.session
        self.seat = self.session.seat
        self.rules = self.session.rules
        self.names = display_names(names)
        player = self.session.player
        self.person = player if isinstance(player, HumanPlayer) else None
        pending = getattr(self, "_pace_call", None)
        if pending is not None and pending.active():
            pending.cancel()  # a window of the table left behind
        self._pace_call: Any = None
        #: When this seat's last paced window was answered: the next is held until a pace
        #: after it, so a card comes every pace however long the peers took between.
        self._window_at: float | None = None
        self._offered: set[tuple[int, ...]] = set()  #: declarations told of this hand
        self._offered_in: TableHand | None = None
        if self.person is not None:
            self.person.holding = None
            self.person.on_hold = self._hold
        self._summary: dict[str, Any] | None = None
        self._shown: TableHand | None = None  #: a finished hand shown until `next_hand`
        self._seen: dict[str, int] = {}
        self._hand_seen: TableHand | None = None
        self._halt_told = False
        self._paths: dict[int, str | None] = {}  #: an internet table's links, as told
        self._redeal_told: TableHand | None = None
        self.session.on_hand_end = self._hand_ended
        node.on_change = self._changed
        self._log_played()
        self._changed()

    def note(self, text: str) -> None:
        """A line in the log from this program (not from the table)."""
        self._events.append(text)
        self._changed()

    # --- TableClient ------------------------------------------------------------------------

    def observation(self) -> Observation:
        hand = self._shown or self.session.current
        session = self.session
        # Hands played before this one (a finished hand on screen counts as played).
        played = len(session.results) - (1 if self._shown is not None else 0)
        record = GameRecord(self.rules, played, tuple(session.levels), session.winner,
                            tuple(r.public() for r in session.results))
        return replace(hand.observation(), game=record)

    def decision(self) -> str | None:
        if self._summary is not None or self.node.halted is not None:
            return None
        table, person = self.session.current, self.person
        if person is not None and self._paced_deal():
            # Offered at any moment while the cards come, whether or not the table waits.
            if person.chosen is not None:
                return None
            fresh = any(o not in person.declined for o in table.open_declarations())
            return DECLARE if fresh else None
        waiting = table.waiting
        if waiting == "declare" and person is not None and person.holding is not None:
            return None  # the deal's pace, not the person's decision
        return _DECISIONS.get(waiting) if waiting else None

    def _paced_deal(self) -> bool:
        """Whether the cards are being dealt at the person's pace (`HumanPlayer`)."""
        return (self.person is not None and self.person.deal_pace > 0
                and self.session.current.public.phase == DEAL)

    def declaration_options(self) -> list[tuple[int, ...]]:
        if self.decision() != DECLARE:
            return []
        return self.session.current.open_declarations()

    def submit(self, action: Action) -> str | None:
        kind = self.decision()
        if kind is None:
            return "it is not your turn"
        if getattr(action, "seat", self.seat) != self.seat:
            return "that is another seat's move"
        answer: Any
        if kind == DECLARE and isinstance(action, Declare):
            answer = tuple(action.faces)
        elif kind == DECLARE and isinstance(action, (Pass, Draw)):
            answer = None
            if self.person is not None:
                self.person.declined.update(self.session.current.open_declarations())
        elif kind == BURY and isinstance(action, Bury):
            answer = list(action.faces)
        elif kind == PLAY and isinstance(action, Play):
            answer = list(action.faces)
        elif kind == BID and isinstance(action, (Bid, Pass)):
            answer = action.points if isinstance(action, Bid) else 0
        elif kind == SHOW and isinstance(action, Show) and len(action.faces) == 1:
            answer = action.faces[0]
        elif kind == NAME and isinstance(action, NameTrump):
            answer = action.suit
        else:
            return {DECLARE: "declare one of the declarations shown, or pass",
                    BURY: f"choose {self.rules.talon_size} cards to bury",
                    PLAY: "play cards from your hand",
                    BID: "bid points (a multiple of 5 above the high bid) or pass",
                    SHOW: "show one card of your hand",
                    NAME: "name the trump suit (S, H, D or C) or none"}[kind]
        if kind == DECLARE and self._paced_deal():
            # The deal goes on: a pass only lets the offers go by (the pace passes the
            # window), a declaration goes out in this seat's window, the one held now or
            # the next (`HumanPlayer.chosen`).
            assert self.person is not None
            table = self.session.current
            if answer is not None and answer not in table.open_declarations():
                return "that declaration is not open to you now"
            if answer is None or table.waiting != "declare":
                if answer is not None:
                    self.person.chosen = answer
                self._changed()
                return None
            self._end_hold()
        try:
            frames = self.session.decide(answer)
        except IllegalAction as exc:
            return str(exc)
        except Exception as exc:  # a peer's message that arrived meanwhile was bad
            self._failed(exc)
            return None
        self.node.send(frames)
        self._changed()
        return None

    def _end_hold(self) -> None:
        """The person answers the window the pace holds: the pace ends with it."""
        assert self.person is not None
        if self._pace_call is not None and self._pace_call.active():
            self._pace_call.cancel()
        self._pace_call = None
        self.person.holding = None
        self._window_at = self.node.clock.seconds()

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
            if kind == DECLARE and not (isinstance(action, Declare)
                                        and tuple(action.faces) in options):
                action = Pass(seat)  # the strategy's Draw (no declaration), or one not open
            return Hint(action, reason(obs, action, rules))

        return advise

    def chat(self, text: str) -> None:
        try:
            self.node.send(self.session.say(text))
        except Exception as exc:
            self._failed(exc)
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
            who = ", ".join(f"{self._who(seat)}'s {what}" for seat, what in voted)
            return (f"This seat waited too long for {who} and voted so; the hand ends if "
                    "every other seat votes the same, and goes on if one of them has it")
        left = self.node.decision_time_left()
        if left is not None and left < WARN_BEFORE:
            return (f"Decide within {max(left, 0):.0f} s: the other seats end the hand when a "
                    f"seat keeps the table waiting {MOVE_DEADLINE / 60:.0f} minutes")
        gone = self.returning.unreachable()
        if gone:
            return "; ".join(
                f"no link with {self._who(s)} for {now - self.node.down_since[s]:.0f} s: "
                f"{why}" for s, why in gone.items()) + (
                f" (the hand ends after {self.node.grace:.0f} s without it)")
        return None

    def summary(self) -> dict[str, Any] | None:
        return self._summary

    def next_hand(self) -> None:
        self._summary = None
        self._shown = None
        if self.person is not None and self.person.reading:
            self.person.reading = False
            self._deal_on()
        self._changed()

    def _deal_on(self) -> None:
        """The person is back from the summary: the deal that waited for them goes on (it
        stops again for a declaration they may make, and keeps its pace)."""
        table = self.session.current
        person = self.person
        if person is None or table.waiting != "declare" or self.node.halted is not None:
            return
        if self._paced_deal():  # held for the pace; offers are made meanwhile
            person.holding = table.public.drawn
            self._hold()
            return
        if any(o not in person.declined for o in table.declaration_options()):
            return  # the person decides: the screen asks
        self._answer_window()

    # --- keeping up with the table ----------------------------------------------------------

    def _who(self, seat: int) -> str:
        """A seat where it is blamed or its link told: its number and its name."""
        return f"seat {seat} ({self.names[seat]})"

    def _name(self, seat: int) -> str:
        """A seat in the play log: its name alone (`display_names` makes every seat's
        differ), so a line fits the log pane beside the table."""
        return self.names[seat]

    def _hand_ended(self, session: GameSession, hand: TableHand) -> None:
        self._log_hand(hand)  # the hand's last plays, before it leaves the screen
        res = hand.result
        assert res is not None
        buried = hand.observation().buried
        self._summary = {"result": res.to_data(),
                         "buried": format_cards(buried) if buried is not None else None,
                         "levels": list(session.levels), "audit": self._audit(hand),
                         "game_over": session.over, "winner": session.winner,
                         "strip": self._strip(session)}
        self._shown = hand
        if self.person is not None and not session.over:
            self.person.reading = True
        self._events.append(self._over_line(session.hand_no + 1, hand))
        if session.over:
            self._events.append(f"game over: team of {self._team(res.gaining_team)} wins")

    def _strip(self, session: GameSession) -> list[dict[str, Any]]:
        """The game strip: the tables' before this one, then this table's finished hands
        (a resumed session replayed them)."""
        from tractor.cli.screen.summary_view import (
            strip_entry,  # the strip reads the same on both clients
        )

        before = self._strip_before
        finished = (h for h in session.played if h.result is not None)
        return before + [strip_entry(number, played.observation(), played.result,
                                     self.rules)
                         for number, played in enumerate(finished, len(before) + 1)]

    def _audit(self, hand: TableHand) -> str:
        n = self.rules.players
        violations = hand.violations or []
        if not violations:
            return f"{len(hand.deck.verdicts)} of {n} peers verified the hand: no rule broken"
        return f"{len(hand.deck.verdicts)} of {n} peers found: " + "; ".join(
            f"{self._who(v.seat)} in trick {v.trick}: {v.reason}" for v in violations)

    def _over_line(self, number: int, hand: TableHand) -> str:
        res = hand.result
        assert res is not None
        team = self._team(res.gaining_team)
        change = (f"{team} gain {count(res.levels_gained, 'level')}" if res.levels_gained
                  else f"{team} take over, no level gained")
        return (f"hand {number} over: defenders took {res.defender_points} points; "
                f"{change}; {self._audit(hand)}")

    def _team(self, team: int) -> str:
        """"ann, AI 2 and AI 4": the names of a team's seats."""
        names = [self.names[s] for s in range(self.rules.players) if s % 2 == team]
        return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]

    def _log_played(self) -> None:
        """The hands this session played before the screen saw it (a resumed seat): their
        logs, in order, as if they had been watched."""
        for number, hand in enumerate(self.session.played, 1):
            if hand.phase == "redeal":
                self._events.append(_REDEAL)
                self._redeal_told = hand
            elif hand.result is not None:
                self._log_hand(hand)
                self._events.append(self._over_line(number, hand))

    def _hold(self) -> None:
        """The person's window of this card is held (`HumanPlayer.deal_pace`): pass it
        when the pace is over, on the node's clock."""
        if self._pace_call is not None and self._pace_call.active():
            return
        assert self.person is not None
        wait = self.person.deal_pace
        if self._window_at is not None:
            wait = max(0.0, self._window_at + wait - self.node.clock.seconds())
        self._pace_call = self.node.clock.callLater(wait, self._paced, self.session.current)

    def _paced(self, table: TableHand) -> None:
        """The pace is over: the held window is passed (unless the table moved on)."""
        self._pace_call = None
        person = self.person
        if person is None or person.holding is None or table is not self.session.current:
            return
        person.holding = None
        if table.waiting != "declare" or self.node.halted is not None:
            return
        self._window_at = self.node.clock.seconds()
        choice, person.chosen = person.chosen, None
        self._answer_window(choice if choice in table.declaration_options() else None)
        self._changed()

    def _answer_window(self, choice: tuple[int, ...] | None = None) -> None:
        """Answer this seat's declaration window (None: a pass; the deal goes on) and
        send the frames."""
        try:
            frames = self.session.decide(choice)
        except Exception as exc:  # a peer's message that waited behind it was bad
            self._failed(exc)
            return
        self.node.send(frames)

    def _tell_options(self) -> None:
        """A log line when declarations become possible, once each per hand."""
        table = self.session.current
        if table is not self._offered_in:
            self._offered_in, self._offered = table, set()
        if self.decision() != DECLARE:
            return
        fresh = [o for o in self.declaration_options() if o not in self._offered]
        if fresh:
            self._offered.update(fresh)
            shown = ", ".join(format_cards(o, symbols=True) for o in fresh)
            self._events.append(f"you may declare {shown} now")

    def _tell_paths(self) -> None:
        """At an internet table: a log line when a link's path changes (directly, through
        the relay, or lost for now)."""
        mesh = getattr(self.node, "mesh", None)
        if mesh is None:
            return
        for seat, path in sorted(mesh.paths().items()):
            if path != self._paths.get(seat):
                self._paths[seat] = path
                how = {"direct": "directly", "relay": "through the relay"}.get(
                    path or "", "lost for now: reconnecting")
                self._events.append(f"link with {self._who(seat)}: {how}")

    def _changed(self) -> None:
        self._tell_paths()
        played = self.session.played
        if played and played[-1].phase == "redeal" and played[-1] is not self._redeal_told:
            self._redeal_told = played[-1]
            self._events.append(_REDEAL)
        # While the summary is up, the next hand's log waits (its separator came before
        # "hand 1 over" on the plain screen).
        self._log_hand(self._shown or self.session.current)
        self._tell_options()
        if self.node.halted is not None and not self._halt_told:
            self._halt_told = True
            self._events.append(verdict_text(self.node.halted, self.names))
        if self.on_change is not None:
            self.on_change()

    def _log_hand(self, hand: TableHand) -> None:
        """Turn what happened since the last look into log lines."""
        events = table_events(hand, self._name)
        if hand is not self._hand_seen:
            self._hand_seen = hand
            self._seen = {"events": 0, "chat": 0}
            number = hand.deck.config.hand
            if number:  # where the log of a new hand starts
                self._events.append(f"── hand {number + 1} ──")
            if events or hand.chat:
                # First seen part way through (a resumed seat): the hand so far, with its
                # chat where it was said.
                self._events += with_chat(hand, events, self._chat_lines(hand.chat))
                self._seen = {"events": len(events), "chat": len(hand.chat)}
                return
        seen = self._seen
        self._events += [e.line for e in events[seen["events"]:]]
        self._events += self._chat_lines(hand.chat[seen["chat"]:])
        self._seen = {"events": len(events), "chat": len(hand.chat)}

    def _chat_lines(self, chat: list[tuple[int, str]]) -> list[str]:
        return [f"{self.names[seat]}: {text}" for seat, text in chat]
