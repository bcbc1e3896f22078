"""This peer's player asked one decision at a time, and its answers.

The table asks for a decision when its schedule reaches this seat's move. The answer
comes from, in order: an answer given ahead (`Decisions.give`, after the player said
`WAIT`), this peer's journal (after a crash, a move made before it is read back: the
frames already sent must come again unchanged, and a person is not asked twice), or the
player itself. Every answer is one of the rules core's actions (`net.table.player`).
"""

from __future__ import annotations

from collections.abc import Callable

from tractor.actions import Action, Bid, Bury, Call, Declare, NameTrump, Pass, Play, Show
from tractor.net.deck.engine import Deck
from tractor.net.table.errors import TableError
from tractor.net.table.messages import answer_of, burial_of
from tractor.net.table.move_check import refusal
from tractor.net.table.player import Player, SeatView, Wait
from tractor.phases import ANSWERS, Answer, Decision, IllegalAction
from tractor.rules import Rules


class Decisions:
    """Asks this peer's ``player`` (shown ``view()``) and keeps what the table waits for."""

    def __init__(self, player: Player, rules: Rules, deck: Deck,
                 view: Callable[[], SeatView]) -> None:
        self.player = player
        self.rules = rules
        self.deck = deck
        self.view = view
        #: The decision the table waits for from the player, when it answered `WAIT`.
        self.waiting: Decision | None = None
        self._given: tuple[Decision, Answer] | None = None

    # --- the player's answers, typed by decision ---------------------------------------------

    def declaration(self, options: list[tuple[int, ...]]) -> Declare | Pass | None:
        """A declaration window's answer (None: the player answers later)."""
        answer = self._ask(Decision.DECLARE, lambda view: self.player.declare(view, options))
        if answer is None or isinstance(answer, Declare | Pass):
            return answer
        raise self._wrong(Decision.DECLARE, answer)

    def burial(self, count: int) -> Bury | None:
        answer = self._ask(Decision.BURY, lambda view: self.player.bury(view, count))
        if answer is None or isinstance(answer, Bury):
            return answer
        raise self._wrong(Decision.BURY, answer)

    def play(self) -> Play | None:
        answer = self._ask(Decision.PLAY, self.player.play)
        if answer is None or isinstance(answer, Play):
            return answer
        raise self._wrong(Decision.PLAY, answer)

    def bid(self, options: list[int]) -> Bid | Pass | None:
        answer = self._ask(Decision.BID, lambda view: self.player.bid(view, options))
        if answer is None or isinstance(answer, Bid | Pass):
            return answer
        raise self._wrong(Decision.BID, answer)

    def shown_card(self) -> Show | None:
        answer = self._ask(Decision.SHOW, self.player.show)
        if answer is None or isinstance(answer, Show):
            return answer
        raise self._wrong(Decision.SHOW, answer)

    def trump_named(self) -> NameTrump | None:
        answer = self._ask(Decision.NAME, self.player.name)
        if answer is None or isinstance(answer, NameTrump):
            return answer
        raise self._wrong(Decision.NAME, answer)

    def friend_call(self) -> Call | None:
        """Find-a-friend: the starter's calls (None: the player answers later)."""
        answer = self._ask(Decision.CALL, self.player.call)
        if answer is None or isinstance(answer, Call):
            return answer
        raise self._wrong(Decision.CALL, answer)

    # --- asking ------------------------------------------------------------------------------

    def _ask(self, kind: Decision,
             ask_player: Callable[[SeatView], Answer | Wait]) -> Answer | None:
        answer: Answer | Wait
        if self._given is not None and self._given[0] is kind:
            answer, self._given = self._given[1], None
        else:
            journaled = self._journaled(kind)
            answer = journaled if journaled is not None else ask_player(self.view())
        self.waiting = kind if isinstance(answer, Wait) else None
        return None if isinstance(answer, Wait) else answer

    def _journaled(self, kind: Decision) -> Answer | None:
        """After a crash, a decision made before it, read back from the journal."""
        ahead = self.deck.journaled_ahead()
        if not ahead:
            return None
        # Every card this seat knows: a play taken back and made again names cards the
        # deck counts as played already.
        cards = self.deck.cards
        for sent_kind, body in ahead:
            if kind is Decision.BURY and sent_kind == "bury":
                return burial_of(body, self.deck.me, cards)
            found = answer_of(body["data"], self.deck.me, cards) if sent_kind == "app" else None
            if found is not None and found[0] is kind:
                return found[1]
        return None

    def _wrong(self, kind: Decision, answer: Answer) -> TableError:
        return TableError(self.deck.me, f"this peer's player answered a {kind} decision "
                                        f"with {answer!r:.60}")

    def forget(self) -> None:
        """A take-back changed the hand: a decision asked or answered before it is void
        (the table asks again when the seat's turn comes)."""
        self.waiting, self._given = None, None

    # --- an answer given later ---------------------------------------------------------------

    def give(self, answer: Action) -> None:
        """The answer to the decision the table waits for (`waiting`), once the rules core
        allows it: a move it refuses raises `IllegalAction` with its reason and changes
        nothing. The table then asks again, and takes it (`step`)."""
        kind = self.waiting
        if kind is None:
            raise IllegalAction("it is not your turn")
        reason = refusal(self.rules, self.view(), kind, answer)
        if reason is not None:
            raise IllegalAction(reason)
        assert isinstance(answer, ANSWERS[kind])  # what `refusal` checked first
        self._given = (kind, answer)
        self.waiting = None


class NoDecisions(Decisions):
    """A watcher's table (`net.watch`): nobody is asked anything. Its declaration windows
    pass unposted (a watcher's deck signs nothing) and no other decision is ever its turn."""

    def _ask(self, kind: Decision,
             ask_player: Callable[[SeatView], Answer | Wait]) -> Answer | None:
        return Pass(0) if kind is Decision.DECLARE else None
