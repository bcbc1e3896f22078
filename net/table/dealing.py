"""The hand up to its first trick, between peers: agreements, the deal with its declaration
windows, the talon turned over when nobody declared, and the burial (`net.table.hand`
gives the whole schedule; find-a-friend's call after the burial: `net.table.calling`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from tractor.actions import Declare
from tractor.cards import format_cards
from tractor.net.deck.engine import Deck
from tractor.net.table.decisions import Decisions
from tractor.net.table.errors import TableError, judged
from tractor.net.table.inbox import Inbox
from tractor.net.table.messages import Agree, Window, message_for, to_wire
from tractor.net.table.positions import OwnCards, RevealedCards
from tractor.net.table.schedule import Schedule
from tractor.phases import Decision, Phase
from tractor.public import PublicHand
from tractor.rules import Rules


class Dealing:
    """The schedule's steps SETUP, DEAL, DECLARE (a declaration window, or the talon turned
    over when nobody declared) and TALON: each makes this peer's move once and applies the
    other seats' messages as their turn comes; the last one hands the table to the tricks
    (``first_trick(starter)``), or in find-a-friend to the starter's call."""

    def __init__(self, rules: Rules, deck: Deck, public: PublicHand, schedule: Schedule,
                 inbox: Inbox, own: OwnCards, revealed: RevealedCards, decisions: Decisions,
                 now: Callable[[], float], first_trick: Callable[[int], None]) -> None:
        self.rules = rules
        self.deck = deck
        self.public = public
        self.schedule = schedule
        self.inbox = inbox
        self.own = own
        self.revealed = revealed
        self.decisions = decisions
        self.now = now
        self.first_trick = first_trick

    def setup(self) -> list[bytes]:
        agreed, out = self.agreed(Phase.DEAL)
        if agreed:
            self.schedule.phase = Phase.DEAL
        return out

    def agreed(self, step: Phase) -> tuple[bool, list[bytes]]:
        """Whether every seat has signed that it stands where this peer does before
        ``step`` releases keys that open cards (DEAL: the locked deck; TALON: the
        declarations or bids that give the talon away). Each seat posts {"agree": step}
        once it got here; the views in its signed header cover the whole transcript that
        entitles the cards' receivers, and the deck checks them against this peer's
        chains as it applies the message (a difference halts before any key leaves)."""
        schedule = self.schedule
        agreement = Agree(step.value)  # the message carries the phase's name as plain text
        out = self.deck.post(to_wire(agreement)) if schedule.once(f"agree {step}") else []
        if schedule.made(f"agreed {step}"):
            return True, out
        msgs = [self.inbox.peek(s, Agree) for s in range(self.rules.players)]
        if any(m is None for m in msgs):
            return False, out
        for seat, m in enumerate(msgs):
            if m != agreement:
                assert m is not None
                raise TableError(seat, f"expected its agreement to the {step}, got one to "
                                       f"the {m.step}")
            self.inbox.drop(seat)
        schedule.mark(f"agreed {step}")
        return True, out

    def deal(self) -> list[bytes]:
        schedule, n = self.schedule, self.rules.players
        r = schedule.round
        positions = list(range(r * n, (r + 1) * n))
        out: list[bytes] = []
        if schedule.once(f"deal{r}"):
            for _ in positions:  # the round's cards are drawn (their keys on the way)
                self.public.record_draw()
            out = self.deck.deal(positions, self.now())
        if all(len(self.deck.keys[p]) >= n - 1 for p in positions):
            if self.rules.declaration == "reveal":
                schedule.phase = Phase.DECLARE  # the round's declaration window
            else:  # the auction variant declares nothing while dealing
                schedule.round = r + 1
                schedule.phase = Phase.DEAL if self.public.phase == Phase.DEAL else Phase.BID
        return out

    def declaration_options(self) -> list[tuple[int, ...]]:
        """The declarations this seat's cards allow now (the rules core's)."""
        return self.public.declarable(self.deck.me, self.own.faces())

    def window(self) -> list[bytes]:
        """One declaration window: every seat posts a declaration or a pass at once; they
        are judged in turn (from the first drawer while dealing, from the seat whose turn
        it is in the final window), so concurrent declarations resolve the same way on
        every peer; a declaration that no longer overcalls counts as a pass."""
        r = self.schedule.round
        out: list[bytes] = []
        if not self.schedule.made(f"window{r}"):
            choice = self.decisions.declaration(self.declaration_options())
            if choice is None:
                return out
            self.schedule.mark(f"window{r}")
            faces = choice.faces if isinstance(choice, Declare) else ()
            positions = self.own.positions_for(faces) if faces else []
            out += self.own.show(positions)
            out += self.deck.post(to_wire(message_for(Decision.DECLARE, choice, positions, r)))
        msgs = [self.inbox.peek(s, Window) for s in range(self.rules.players)]
        if any(m is None for m in msgs):
            return out
        shown: list[tuple[int, ...] | None] = []
        for seat, m in enumerate(msgs):
            assert m is not None
            if m.round != r:
                raise TableError(seat, f"window {m.round} out of turn (window {r} is open)")
            seq = self.inbox.drop(seat)
            shown.append(self._declared(seat, m, seq))
        self._judge_window(shown)
        return out

    def _declared(self, seat: int, window: Window, seq: int) -> tuple[int, ...] | None:
        """The cards ``seat`` declared in its ``window`` message (None: it passed)."""
        if not window.positions:
            return None
        faces = self.revealed.faces(seat, window.positions, "show", seq)
        if not self.public.is_declaration(faces):
            raise TableError(seat, f"{format_cards(faces)} is not a declaration")
        return faces

    def _judge_window(self, shown: list[tuple[int, ...] | None]) -> None:
        public, n, schedule = self.public, self.rules.players, self.schedule
        start = public.first if public.phase == Phase.DEAL else public.window_turn
        for k in range(n):
            if public.phase not in (Phase.DEAL, Phase.DECLARE) or public.turning_talon:
                break  # the final window closed: later answers are not asked for
            seat = (start + k) % n
            faces = shown[seat]
            if faces is not None and public.declaration_open() \
                    and public.declaration_stands(faces, seat):
                judged(seat, partial(public.record_declaration, seat, faces))
            elif public.phase == Phase.DECLARE:
                judged(seat, partial(public.record_pass, seat))
        schedule.round += 1
        # As the rules go on: the next round of draws, the next window (or, nobody having
        # declared, the talon turned over: `open_talon`), a redeal; else the burial.
        following = (Phase.DEAL, Phase.DECLARE, Phase.REDEAL)
        schedule.phase = public.phase if public.phase in following else Phase.TALON

    def open_talon(self) -> list[bytes]:
        """No declaration in a later hand: turn the talon over card by card (seed 000)."""
        deck, public = self.deck, self.public
        talon = list(range(deck.config.dealt, deck.config.size))
        agreed, out = self.agreed(Phase.TALON)
        if not agreed:
            return out
        while public.turning_talon:
            p = talon[len(public.talon_revealed)]
            if self.schedule.once(f"open{p}"):
                out += deck.open_public([p])
            if p not in deck.cards:
                return out
            public.record_talon_card(deck.cards[p] % 54)
        self.schedule.phase = Phase.TALON
        return out

    def talon(self) -> list[bytes]:
        """The talon goes to the starter, who buries (the deck's ``bury``); with kitty
        theft a later overcaller took the buried cards (`net.table.theft`) and buries anew
        (the ``exchanger``). Then the window for a theft opens, or the tricks begin."""
        deck, rules, starter = self.deck, self.rules, self.public.starter
        exchanger = self.public.exchanger
        assert starter is not None and exchanger is not None
        agreed, out = self.agreed(Phase.TALON)
        if not agreed:
            return out
        if self.schedule.once("talon"):
            out += deck.give_talon(starter, self.now())
        thefts = len(self.public.thefts)
        mark = f"bury{thefts}" if thefts else "bury"
        if deck.me == exchanger and deck.exchanger == exchanger and not deck.buried \
                and len(deck.hand()) == rules.hand_size + rules.talon_size \
                and not self.schedule.made(mark):
            burial = self.decisions.burial(rules.talon_size)
            if burial is not None:
                self.schedule.mark(mark)
                out += deck.bury(self.own.positions_for(burial.faces))
        if deck.buried and deck.exchanger == exchanger:
            self.public.record_burial(exchanger)
            # Kitty theft: the window after a burial (`net.table.theft`); find-a-friend: the
            # starter calls its friends first (`net.table.calling`).
            if self.public.phase in (Phase.THEFT, Phase.CALL):
                self.schedule.phase = self.public.phase
            else:
                self.schedule.phase = Phase.PLAY
                self.first_trick(starter)
        return out
