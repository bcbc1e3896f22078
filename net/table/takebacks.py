"""Take-backs between peers (`Rules.takebacks`; which plays: `tractor.takeback`).

A seat takes back its last play with a signed ``{"back": [trick, place]}`` naming it,
right after the play in its chain. Chains are ordered per seat only, so the take-back and
the next seat's move race; the NEXT seat's chain decides, the same on every peer whatever
order the frames arrive in:

- its next table message is its move (a play or a throw): the take-back came too late. It
  is void: dropped where it waits in the taker's chain, on every peer, blaming nobody;
- or it is ``{"let": [trick, place]}``: its peer saw the signed take-back before its seat
  moved (it posts it at once, for an AI seat or a person alike), and the take-back
  stands: every peer applies it then (waiting for the take-back's own frame if it has not
  arrived yet: the next seat saw it signed, so the relay brings it).

When the seat that played is also the next to move (it won the trick and leads the next),
its own chain decides: the take-back, or its next lead.

Every peer applies a take-back with the rules core (`PublicHand.record_takeback`: the play
must be one the rules let be taken back, or the taker is refused), then gives the cards
back: their keys were released, so they stay seen, and a later play or show of them needs
no new reveal (`positions.RevealedCards.returned`). A seat whose take-back names another
play than its last, that sends more than `TAKEBACKS_PER_HAND` in a hand (void ones count),
or any when the rules allow none, is refused on every peer (`TableError`).
"""

from __future__ import annotations

from collections.abc import Callable

from tractor.net.deck.engine import Deck
from tractor.net.table.decisions import Decisions
from tractor.net.table.errors import TableError, judged
from tractor.net.table.inbox import Inbox
from tractor.net.table.messages import Chat, LetBack, TableMessage, TakeBack, to_wire
from tractor.net.table.positions import RevealedCards
from tractor.net.table.schedule import Schedule
from tractor.phases import IllegalAction
from tractor.public import PublicHand
from tractor.rules import Rules
from tractor.takeback import TAKEBACKS_PER_HAND

Turn = tuple[int, int]  #: (trick, place in the trick)
#: Gives the cards of a seat's play back to the trick's records; returns their positions.
Unplay = Callable[[int], "tuple[int, ...]"]


class TableTakeBacks:
    """One hand's take-backs at this peer's table (see the module docstring)."""

    def __init__(self, rules: Rules, deck: Deck, public: PublicHand, schedule: Schedule,
                 inbox: Inbox, revealed: RevealedCards, decisions: Decisions,
                 unplay: Unplay) -> None:
        self.rules = rules
        self.deck = deck
        self.public = public
        self.schedule = schedule
        self.inbox = inbox
        self.revealed = revealed
        self.decisions = decisions
        self.unplay = unplay
        n = rules.players
        self.last_play: list[Turn | None] = [None] * n  #: each seat's last play taken
        self.last_faces: list[tuple[int, ...]] = [()] * n  #: and its cards
        self.sent = [0] * n  #: take-backs each seat sent in this hand (void ones too)
        #: (seat, its play's faces, whether it stood) of every take-back decided, in order:
        #: the screens' log.
        self.events: list[tuple[int, tuple[int, ...], bool]] = []
        self._asked: Turn | None = None  #: the play this seat asked to take back
        #: The next seat, while its let-stand waits here for the take-back's own frame: it
        #: owes its move meanwhile (a let-stand of a take-back nobody sent holds the
        #: table up: the referee names that seat, `net.table.owed`).
        self.stuck: int | None = None
        #: The last play, once the next seat answered it with a throw's announcement (the
        #: rules core records the throw only after the claims): a take-back of it is void.
        self._thrown_after: Turn | None = None
        inbox.void = self._void

    # --- this seat's own take-back -------------------------------------------------------------

    def refusal(self) -> str | None:
        """Why this seat may not take back now (None: it may), in the rules' words."""
        me = self.deck.me
        reason = self.public.takeback_refusal(me)
        if reason is not None:
            return reason
        last = self.public.takebacks.last
        assert last is not None
        if self._asked == last.turn:
            return "you asked to take that play back already"
        if self.sent[me] >= TAKEBACKS_PER_HAND:
            return (f"you took back {TAKEBACKS_PER_HAND} plays in this hand, the most the "
                    "table allows")
        return None

    def take_back(self) -> list[bytes]:
        """Post this seat's take-back of its last play (`refusal` first: `IllegalAction`)."""
        reason = self.refusal()
        if reason is not None:
            raise IllegalAction(reason)
        last = self.public.takebacks.last
        assert last is not None
        self._asked = last.turn
        return self.deck.post(to_wire(TakeBack(*last.turn)))

    # --- every seat's, in the schedule --------------------------------------------------------

    def played(self, seat: int, turn: Turn, faces: tuple[int, ...]) -> None:
        """The table took ``seat``'s play of ``faces`` at ``turn`` (a take-back must name
        it)."""
        self.last_play[seat] = turn
        self.last_faces[seat] = faces

    def throw_announced(self) -> None:
        """The next seat's move is a throw (announced, its claims to come): the last play
        stands, and its take-back, already sent or in flight, came too late."""
        last = self.public.takebacks.last
        self._thrown_after = None if last is None else last.turn

    def step(self) -> tuple[list[bytes], bool]:
        """Decide the last play's take-back if its time has come: (this peer's frames,
        whether the trick waits for a take-back's frame before anything else)."""
        self.stuck = None
        for seat in range(self.rules.players):
            self.inbox.head(seat)  # drops the take-backs that came too late
        last = self.public.takebacks.last
        nxt = self.public.to_act()
        if not self.rules.takebacks or last is None or nxt is None:
            return [], False
        if last.seat == self.deck.me and self._resumed_take_back(last.turn):
            # Resuming after a crash: this seat took that play back before it; its
            # journaled take-back goes out again in its place in the chain.
            self._asked = last.turn
            return self.deck.post(to_wire(TakeBack(*last.turn))), True
        taker = last.seat
        back = self.inbox.head(taker)
        asked = isinstance(back, TakeBack) and back.turn == last.turn
        if nxt == taker:  # it leads the next trick: its own chain decides
            if asked:
                self._apply(taker, last.turn)
            return [], False
        out: list[bytes] = []
        me = self.deck.me
        now = (len(self.public.tricks), len(self.public.current))  # the next seat's turn
        if nxt == me and asked and not self.schedule.made(play_key(*now)) \
                and self._may_let(last.turn) \
                and self.schedule.once(f"let{last.turn[0]}.{last.turn[1]}"):
            # Seen before this seat moved: it lets the take-back stand.
            out += self.deck.post(to_wire(LetBack(*last.turn)))
            self.decisions.forget()
            return out, True
        let = self.inbox.head(nxt)
        if not isinstance(let, LetBack):
            return out, False
        if let.turn != last.turn:
            raise TableError(nxt, "let stand the take-back of another play than the last")
        if not asked:
            if back is None:
                self.stuck = nxt
                return out, True  # its seat saw it signed: the relay brings it
            raise TableError(nxt, f"let stand a take-back seat {taker} did not send")
        self.inbox.drop(nxt)
        self._apply(taker, last.turn)
        return out, False

    def _journaled_next(self) -> tuple[bool, object]:
        """Resuming after a crash: whether this peer's journal holds own messages not made
        again yet, and the first one's table message (chat lines aside; None for a deck
        message, such as the reveal before a play)."""
        for _kind, body in self.deck.journaled_ahead():
            data = body.get("data")
            if not isinstance(data, Chat):
                return True, data
        return False, None

    def _resumed_take_back(self, turn: Turn) -> bool:
        """Whether this peer's next own message in its journal is its take-back of the
        play at ``turn``: a take-back is asked of nobody, so the hand replayed after a crash
        would not make it again (and the next move would find the take-back's frame in its
        place)."""
        if self._asked == turn:
            return False
        ahead, data = self._journaled_next()
        return ahead and isinstance(data, TakeBack) and data.turn == turn

    def _may_let(self, turn: Turn) -> bool:
        """Whether this peer may let the take-back of the play at ``turn`` stand: always,
        unless it is replaying its journal after a crash and its move there came first
        (the take-back reached it late, and was void)."""
        ahead, data = self._journaled_next()
        return not ahead or (isinstance(data, LetBack) and data.turn == turn)

    def _apply(self, seat: int, turn: Turn) -> None:
        self.inbox.drop(seat)
        self._count(seat)
        judged(seat, lambda: self.public.record_takeback(seat))
        positions = self.unplay(seat)
        self.revealed.returned_to_hand(positions)
        # This seat plays that turn again: its move there is to be made anew.
        self.schedule.done.discard(play_key(*turn))
        self.decisions.forget()
        self.events.append((seat, self.last_faces[seat], True))

    def _count(self, seat: int) -> None:
        self.sent[seat] += 1
        if self.sent[seat] > TAKEBACKS_PER_HAND:
            raise TableError(seat, f"sent more than {TAKEBACKS_PER_HAND} take-backs in a hand")

    def _void(self, seat: int, message: TableMessage) -> bool:
        """Whether ``message``, at the head of ``seat``'s chain, is a take-back that came
        too late (dropped: the next seat moved first); refuses one that is no take-back the
        seat could send."""
        if not isinstance(message, TakeBack | LetBack):
            return False
        if not self.rules.takebacks:
            raise TableError(seat, "sent a take-back, which the rules of this table do not "
                                   "allow (takebacks=false)")
        if isinstance(message, LetBack):
            return False  # judged at the next seat's turn (`step`)
        if message.turn != self.last_play[seat]:
            raise TableError(seat, "took back another play than its last")
        last = self.public.takebacks.last
        if last is not None and last.seat == seat and last.turn == message.turn \
                and last.turn != self._thrown_after:
            return False  # it waits for the next seat's move
        self._count(seat)
        self.events.append((seat, self.last_faces[seat], False))
        return True


def play_key(trick: int, place: int) -> str:
    """The schedule's name of this seat's play at a turn (`TrickPlay.step`)."""
    return f"play{trick}.{place}"
