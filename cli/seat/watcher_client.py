"""A watcher's `TableClient` (`WatcherClient`): what the screens read of a game replayed by a
`Spectator`, from no seat.

The screens were made for one seat; a watcher has none. Its observation is the public
state of the hand (`PublicHand.observe_seat` with an empty hand and no talon) with a seat
number no seat has (`rules.players`), so no row is "(you)" and nothing is "in your hand";
it is never asked for a move (`decision` is None, `submit` refuses), gives no hints and
says nothing at the table. The log is a seat's (`SeatLog`), with each hand's result; a
finished hand's summary shows until the person closes it, as a seat's does, but the game
never waits for it. A table halted by the referee shows its verdict, as the seats show it
(`watch_verdict`), from the seats' signed votes the watcher settled itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tractor.actions import Action
from tractor.cards import format_cards
from tractor.cli.screen.summary_view import strip_entry
from tractor.cli.seat.client import Hint
from tractor.cli.seat.netclient import verdict_text
from tractor.cli.seat.seat_log import SeatLog
from tractor.net.referee.refereeing import SeatGone
from tractor.net.table.hand import TableHand
from tractor.net.table.session import GameSession
from tractor.net.table.spectator import Spectator
from tractor.observation import GameRecord, Observation
from tractor.phases import Decision, Phase

#: The banner a watcher always sees.
WATCHING = "watching · you see no hand and cannot hold the table up"
NO_MOVES = "you are watching: a watcher makes no moves"
#: Seconds the screen stays once the watch ended (time to read why), unless `q` comes first.
CLOSES_AFTER = 30


def watch_verdict(exc: BaseException, names: Sequence[str]) -> str:
    """The verdict a table halted on, in the seats' words (`netclient.verdict_text`); a
    seat gone is said without its seconds (a watcher is not told the table's grace)."""
    if isinstance(exc, SeatGone):
        who = (f"seat {exc.seat} ({names[exc.seat]})" if 0 <= exc.seat < len(names)
               else f"seat {exc.seat}")
        return (f"The table stopped: {who} left (no connection past the table's grace "
                "period: every other seat voted so, signed); the hand ends without a result")
    return verdict_text(exc, names)


def is_watching(obs: Observation) -> bool:
    """Whether ``obs`` is a watcher's (its seat is none of the table's)."""
    return not 0 <= obs.seat < obs.players


def public_observation(hand: TableHand) -> Observation:
    """What anybody may know of ``hand``: no hand, no talon, the burial once the table
    opens it; ``seat`` is ``players`` (no seat)."""
    public = hand.public
    deck = hand.deck
    # Only the cards the table opened are in a watcher's deck: a burial it holds is open.
    buried = [deck.cards[p] % 54 for p in deck.buried if p in deck.cards]
    opened = len(buried) == len(deck.buried) and bool(buried)
    # Seat 0 stands in (the rules core checks the seat); nothing of its own is given.
    obs = public.observe_seat(0, (), None, buried if opened else None)
    if obs.talon is not None or obs.hand:  # (neither was given: a bug of ours)
        raise RuntimeError("a watcher's observation holds a seat's cards")
    return replace(obs, seat=public.players)


def game_observation(session: GameSession) -> Observation:
    """What anybody may know of ``session``'s hand being played, with the game's record."""
    record = GameRecord(session.rules, len(session.results), tuple(session.levels),
                        session.winner, tuple(r.public() for r in session.results))
    return replace(public_observation(session.current), game=record)


class WatcherClient:
    """The screens' `TableClient` on a `Spectator` (see the module docstring). Call
    `changed` after every frame that moved the game."""

    def __init__(self, spectator: Spectator, names: Sequence[str]) -> None:
        session = spectator.session
        self.spectator = spectator
        self.rules = session.rules
        self.seat = self.rules.players  #: no seat
        self.names = list(names) or [f"seat {s}" for s in range(self.rules.players)]
        self.on_change: Callable[[], None] | None = None
        self.on_close: Callable[[], None] | None = None  #: closes the screen showing it
        self.ended: str | None = None  #: why the watch ended, once it did
        self._events: list[str] = []
        self.log = SeatLog(self._events, self.names, self.rules.players)
        self._summary: dict[str, Any] | None = None
        #: The finished hand the summary is of, as the table showed it at its end.
        self.summary_observation: Observation | None = None
        self._ended: TableHand | None = None  #: the hand the summary is of
        self._ended_no = -1  #: its number in the session (`GameSession.hand_no`)
        self.log.played(session)  # (frames may have come before the screen did)
        session.on_hand_end = self._hand_ended

    # --- what the screens read -----------------------------------------------------------

    @property
    def session(self) -> GameSession:
        return self.spectator.session

    def observation(self) -> Observation:
        return game_observation(self.session)

    def decision(self) -> Decision | None:
        return None

    def declaration_options(self) -> list[tuple[int, ...]]:
        return []

    def submit(self, action: Action) -> str | None:
        return NO_MOVES

    def hint(self) -> Action | None:
        return None

    def advice(self) -> Hint | None:
        return None

    def advisor(self) -> Callable[[], Hint | None] | None:
        return None

    def chat(self, text: str) -> None:
        """A watcher says nothing at the table (it sends nothing at all)."""

    def events(self) -> list[str]:
        return self._events

    def banner(self) -> str | None:
        if self.ended is not None:
            why = self.ended if self.ended[:1].isupper() else f"The watch ended: {self.ended}"
            return f"{why} · press q to leave (it closes by itself in {CLOSES_AFTER} s)"
        return WATCHING

    def summary(self) -> dict[str, Any] | None:
        """The last hand's summary while that hand is over: until the next hand deals its
        first card (the status line said "hand over: read the summary" for the whole next
        hand). The panel keeps it longer: `last_summary`."""
        if self._summary is None or self._ended is None:
            return None
        current = self.session.current
        if current is self._ended:
            return self._summary
        obs = self.observation()
        next_one = self.session.hand_no == self._ended_no + 1
        return self._summary if next_one and obs.phase == Phase.DEAL and not obs.cards_dealt \
            else None

    def last_summary(self) -> dict[str, Any] | None:
        """The last finished hand's summary, until the person closes it for good (s shows
        it again meanwhile)."""
        return self._summary

    def takeback_refusal(self) -> str | None:
        return "a watcher plays no seat"

    def next_hand(self) -> None:
        """The person closed the summary (the game did not wait for it)."""
        self._summary = None
        self._notify()

    # --- keeping up with the game ----------------------------------------------------------

    def changed(self) -> None:
        """The game moved: the log takes what is new; the screen redraws."""
        session = self.session
        self.log.redeals(session)
        self.log.hand(session.current)
        halted = self.spectator.halted
        if halted is not None and not self.log.halt_told:
            self.log.halt_told = True
            self._events.append(watch_verdict(halted, self.names))
        self._notify()

    def end(self, why: str) -> None:
        """The watch is over (the game ended, the table halted, or the connection did)."""
        self.ended = why
        self._notify()

    def close(self) -> None:
        """Close the screen that shows this watch (the person had `CLOSES_AFTER` s to read
        why it ended)."""
        if self.on_close is not None:
            self.on_close()

    def _notify(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _hand_ended(self, session: GameSession, hand: TableHand) -> None:
        self.log.hand(hand)  # the hand's last plays, before the next hand's log
        res = hand.result
        assert res is not None
        obs = public_observation(hand)
        strip = [strip_entry(number, public_observation(h), h.result, self.rules)
                 for number, h in enumerate(
                     (h for h in session.played if h.result is not None), 1)
                 if h.result is not None]
        self._summary = {"result": res.to_data(),
                         "buried": format_cards(obs.buried) if obs.buried else None,
                         "levels": list(session.levels), "audit": self.log.audit(hand),
                         "game_over": session.over, "winner": session.winner,
                         "strip": strip}
        record = GameRecord(self.rules, len(session.results) - 1, tuple(session.levels),
                            session.winner, tuple(r.public() for r in session.results))
        self.summary_observation = replace(obs, game=record)
        self._ended, self._ended_no = hand, session.hand_no
        self._events.append(self.log.over_line(len(session.results), hand))
        if session.over:
            self._events.append(self.log.game_over(hand))
        if hand.phase == Phase.DONE:
            self._notify()
