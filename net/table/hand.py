"""One hand of Tractor between peers: the replicated table, as a state machine.

Each peer runs a `TableHand` over its deck engine. It holds the whole public state
of the hand, checks every move another seat makes with the rules core as far as
public information allows (the rest is left to the end-of-hand audit), and asks
its own `Player` for decisions. It is fed frames (``receive``) and returns the
frames to broadcast; it never touches sockets or clocks.

Lock-step schedule, the same on every peer:

- the deck's set-up (commit, shuffles, locks);
- for each draw round r: every seat releases the keys of round r (``deal``), then
  posts exactly one declaration window message ``{"w": r, "d": positions}`` (empty: a
  pass; a declaration first shows the cards); windows are processed in seat order
  from the first drawer, so concurrent declarations resolve the same way everywhere;
  one final window after the last card;
- trump: the standing declaration; none: a first hand ends in ``redeal``, a later
  hand turns the talon over one card at a time (seed 000);
- the talon goes to the starter, who buries (the deck's ``bury``);
- tricks: the seat to play shows/plays its cards and posts ``{"play": positions}``;
  a throw is first shown and posted as ``{"throw": positions}``; every other seat then
  posts ``{"claim": [[component, positions], ...]}``, showing a component that beats
  one of the throw's components, or an empty claim; the thrower then plays the
  whole throw, or the forced component;
- the audit: every key is released, every peer replays the hand with the rules
  core and signs its verdict; the result counts only if every verdict agrees.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from tractor.cards import SUITS, format_cards
from tractor.follow import follow_error, lead_error, random_follow, random_lead
from tractor.formats import THROW, Format, classify_faces, tractors_in
from tractor.hand import HandResult, IllegalAction
from tractor.net.deck.audit import PlayRecord, Violation, audit_hand
from tractor.net.deck.engine import DONE as DECK_DONE
from tractor.net.deck.engine import LOCK, READY, SHUFFLE, Deck
from tractor.net.deck.errors import carrying, followed_by
from tractor.net.table.messages import (
    MAX_CHAT,
    Agree,
    Bid,
    Chat,
    Claim,
    Name,
    Play,
    Show,
    TableMessage,
    Throw,
    Window,
    decision,
    describe,
)
from tractor.observation import Observation
from tractor.public import (
    DEAL,
    DECLARE,
    NAME,
    REDEAL,
    SHOW,
    PublicHand,
    declaration_options,
    declaration_strength,
)
from tractor.rules import Rules
from tractor.scoring import points_of
from tractor.trick import beats_component, best_claim, claim_beats, claim_to_make, claim_turn
from tractor.trump import Ladder, Trump


class TableError(ValueError):
    """A move the table refuses, blamed on ``seat``."""

    def __init__(self, seat: int, message: str) -> None:
        self.seat = seat
        #: This peer's frames made before the refusal was found (see `DeckError`).
        self.outgoing: list[bytes] = []
        self.hand: int | None = None  #: the hand whose table refused (set by `TableHand`)
        super().__init__(f"seat {seat}: {message}")


@dataclass(frozen=True)
class HandSetup:
    """What every peer agrees on before a hand: rules, levels, who draws first, and the
    starter and declaring team (None in a game's first hand: the declaration decides)."""

    rules: Rules
    levels: tuple[str, str]
    first: int
    starter: int | None = None
    declarers: int | None = None

    @property
    def rank(self) -> str:
        return self.levels[self.declarers if self.declarers is not None else 0]


@dataclass(frozen=True)
class SeatView:
    """What a player is shown when asked for a decision."""

    seat: int
    hand: list[int]  #: faces
    ladder: Ladder | None
    lead: Format | None  #: the lead to follow (None when leading)
    declaration: tuple[int, tuple[int, ...]] | None
    rank: str
    #: Everything the seat may know, as `tractor.hand.Hand.observe` gives it.
    observation: Observation


class _Wait:
    def __repr__(self) -> str:
        return "WAIT"


#: A player's answer meaning "ask me later": a person decides in their own time; the
#: table holds (``TableHand.waiting``) until `TableHand.decide` brings the answer.
WAIT: Any = _Wait()


class Player(Protocol):
    """Decides for this peer's seat; any method may return `WAIT` instead of an answer."""

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> tuple[int, ...] | None:
        ...

    def bury(self, view: SeatView, count: int) -> list[int]:
        ...

    def play(self, view: SeatView) -> list[int]:
        ...

    # The auction variant (seed 001) asks three more decisions.

    def bid(self, view: SeatView, options: list[int]) -> int:
        """Points to bid (one of ``options``), or 0 to pass."""
        ...

    def show(self, view: SeatView) -> int:
        """The face of one card of the hand to show in the card-play for the starter."""
        ...

    def name(self, view: SeatView) -> str | None:
        """The trump suit the starter names, or None for no trump suit."""
        ...


class RandomPlayer:
    """Random legal decisions (declares now and then)."""

    def __init__(self, seed: int = 0, declare_chance: float = 0.3) -> None:
        self.rng = random.Random(seed)
        self.declare_chance = declare_chance

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> tuple[int, ...] | None:
        if options and self.rng.random() < self.declare_chance:
            return self.rng.choice(options)
        return None

    def bury(self, view: SeatView, count: int) -> list[int]:
        return self.rng.sample(view.hand, count)

    def play(self, view: SeatView) -> list[int]:
        assert view.ladder is not None
        if view.lead is None:
            return random_lead(view.hand, view.ladder, self.rng)
        return random_follow(view.hand, view.lead, view.ladder, self.rng)

    def bid(self, view: SeatView, options: list[int]) -> int:
        if not options or self.rng.random() < 0.5:
            return 0
        return self.rng.choice(options[:4])

    def show(self, view: SeatView) -> int:
        return self.rng.choice(view.hand)

    def name(self, view: SeatView) -> str | None:
        return self.rng.choice([*SUITS, None])


@dataclass
class _Trick:
    leader: int
    plays: list[tuple[int, ...]] = field(default_factory=list)
    attempted: tuple[int, ...] | None = None
    attempted_at: tuple[int, ...] = ()  #: the throw's positions, as announced
    claims: dict[int, list[tuple[int, tuple[int, ...]]]] | None = None
    #: Against a throw: each seat asked so far, in turn, with the component it showed it
    #: beats (None: it showed nothing).
    answers: list[tuple[int, int | None]] = field(default_factory=list)
    forced: tuple[int, ...] | None = None
    winner: int = -1
    points: int = 0
    penalty: int = 0


class TableHand:
    """One peer's replica of one hand (see the module docstring)."""

    def __init__(self, setup: HandSetup, deck: Deck, player: Player,
                 now: Callable[[], float] | None = None) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.deck = deck
        self.me = deck.me
        self.player = player
        self.n = deck.config.seats
        if (self.n != self.rules.players or deck.config.decks != self.rules.decks
                or deck.config.hand_size != self.rules.hand_size
                or deck.config.first != setup.first):
            raise ValueError("the deck does not fit the rules and the hand's first drawer")
        if self.rules.declaration == "auction" and (setup.starter is not None
                                                    or setup.declarers is not None):
            raise ValueError("in the auction variant the auction picks the declarers and "
                             "the card-play the starter")
        self.phase = "setup"  #: the schedule's step (the rules' phase is `public.phase`)
        self.round = 0
        #: The hand's public state and every rule judged on it: the rules core's.
        self.public = PublicHand(self.rules, setup.levels, setup.first, setup.starter,
                                 setup.declarers)
        self.tricks: list[_Trick] = []  #: the finished tricks' messages (claims, throws)
        self.trick: _Trick | None = None
        self.records: list[PlayRecord] = []
        self.violations: list[Violation] | None = None
        #: Per seat, its table messages not yet applied: (data, message number).
        self._queues: list[deque[tuple[TableMessage, int]]] = [deque() for _ in range(self.n)]
        self._done: set[str] = set()  #: own moves made (so each is made once)
        #: The decision the table waits for from this peer's player ("declare", "bury",
        #: "play"), when it answered `WAIT`; None otherwise.
        self.waiting: str | None = None
        self._answer: tuple[str, Any] | None = None
        self.chat: list[tuple[int, str]] = []  #: (seat, text), in the order applied
        #: Chat lines waiting for the deck to be ready: a table message sent during the
        #: set-up would take a place in this seat's chain before its own set-up messages.
        self._chat_out: list[str] = []
        self._chats = [0] * self.n  #: chat lines per seat taken (its own too: `moves_of`)
        self._used: set[int] = set()  #: positions played in this hand
        #: The time, for the deck's key deadlines (`Deck.tick`); the session passes its clock.
        self.now: Callable[[], float] = now or (lambda: 0.0)

    # --- the public state, as the rules core holds it --------------------------------------------

    @property
    def starter(self) -> int | None:
        return self.public.starter

    @property
    def declarers(self) -> int | None:
        return self.public.declarers

    @property
    def declaration(self) -> tuple[int, tuple[int, ...]] | None:
        return self.public.declaration

    @property
    def declarations(self) -> list[tuple[int, tuple[int, ...]]]:
        return self.public.declarations

    @property
    def trump(self) -> Trump | None:
        return self.public.trump

    @property
    def ladder(self) -> Ladder | None:
        return self.public.ladder

    @property
    def lead(self) -> Format | None:
        """The lead's format while a trick is under way."""
        return self.public.lead_format

    @property
    def result(self) -> HandResult | None:
        return self.public.result

    @property
    def defender_points(self) -> int:
        return self.public.defender_points

    @property
    def penalties(self) -> int:
        return self.public.penalties

    @property
    def talon_opened(self) -> int:
        """Talon cards the table turned over because nobody declared."""
        return len(self.public.talon_revealed)

    def _judged(self, seat: int, move: Callable[[], Any]) -> Any:
        """A public move of ``seat`` judged by the rules core; its refusal is the seat's."""
        try:
            return move()
        except IllegalAction as exc:
            raise TableError(seat, str(exc)) from exc

    # --- frames in and out -------------------------------------------------------------------

    def start(self) -> list[bytes]:
        return followed_by(self.deck.start(), self.step)

    def receive(self, frame: bytes) -> list[bytes]:
        return followed_by(self.deck.receive(frame), self.step)

    def step(self) -> list[bytes]:
        """Apply what has arrived and make this peer's moves, until nothing changes."""
        out: list[bytes] = []
        # Frames made already go out with an error found later; the error is this hand's.
        with carrying(out), self._refusing():
            while True:
                if self._chat_out and self.deck.phase == READY:
                    for text in self._chat_out:
                        out += self.deck.post({"chat": text})
                    self._chat_out.clear()
                for seat, data, seq in self.deck.inbox:
                    if isinstance(data, Chat):  # shown on terminals: printable characters
                        self._chats[seat] += 1
                        self.chat.append((seat, "".join(c for c in data.text if c.isprintable())))
                    else:
                        self._queues[seat].append((data, seq))
                self.deck.inbox.clear()
                before = self._progress()
                out += self._advance()
                after = self._progress()
                if before == after and not self.deck.inbox:
                    return out

    @contextmanager
    def _refusing(self) -> Iterator[None]:
        """A `TableError` raised here is of this hand (the frame that brought it to light
        may be of the hand before)."""
        try:
            yield
        except TableError as exc:
            if exc.hand is None:
                exc.hand = self.deck.config.hand
            raise

    def say(self, text: str) -> list[bytes]:
        """A table chat line, signed and chained like a move."""
        text = " ".join(text.split())[:MAX_CHAT]
        if text:
            self._chat_out.append(text)
        return self.step()

    def waiting_on(self) -> dict[int, str]:
        """Seat -> the message this peer waits for from it now (its shuffle, a play ...):
        what a stall deadline watches. Keys the deck is owed have their own deadline
        (`Deck.tick`); this peer's own decisions are not listed."""
        deck, n = self.deck, self.n
        if deck.phase in (SHUFFLE, LOCK):
            return {s: deck.phase for s in deck.waiting_for() if s != self.me}
        empty = [s for s in range(n) if not self._queues[s] and s != self.me]
        phase, public = self.phase, self.public
        if phase == "setup" or (phase in ("talon", "open") and "agreed talon" not in self._done):
            return dict.fromkeys(empty, "agreement")
        if phase == "window":
            return dict.fromkeys(empty, "declaration window")
        if phase in ("bid", "show", "name"):
            seat = public.starter if phase == "name" else public.to_act()
            return {seat: phase} if seat in empty else {}
        if phase == "talon":
            talon = range(deck.config.dealt, deck.config.size)
            ready = all(len(deck.keys[p]) >= n - 1 for p in talon)
            starter = self.starter
            return {starter: "burial"} if ready and not deck.buried and starter in empty \
                else {}
        if phase == "play" and self.trick is not None:
            trick = self.trick
            if trick.attempted is not None and trick.forced is None and not trick.plays:
                seat = self._claim_turn(trick)
                return {seat: "claim"} if seat in empty else {}
            seat = public.to_act()
            return {seat: "play"} if seat in empty else {}
        if phase == "audit":
            if deck.phase != DECK_DONE:
                return {s: "audit" for s in deck.waiting_for() if s != self.me}
            return {s: "verdict" for s in range(n) if s not in deck.verdicts and s != self.me}
        return {}

    def moves_of(self, seat: int) -> int:
        """How many of ``seat``'s messages this hand's table took, its chat lines aside: what
        a stall is judged on (a seat's chat is not the move it owes)."""
        return self.deck.accepted(seat) - self._chats[seat]

    def progress(self) -> tuple[object, ...]:
        """Changes whenever the hand moves on (a phase, a play, a message taken, a move)."""
        return self._progress()

    def _progress(self) -> tuple[object, ...]:
        trick = self.trick
        return (self.phase, self.round, len(self.tricks), len(trick.plays) if trick else -1,
                trick.forced if trick else None, len(self._done),
                sum(len(q) for q in self._queues), self.talon_opened, self.public.phase)

    def _ask(self, kind: str, *args: Any) -> Any:
        """The player's answer to one decision (an answer given to `decide` first)."""
        if self._answer is not None and self._answer[0] == kind:
            answer, self._answer = self._answer[1], None
        else:
            answer = self._journaled_answer(kind)
            if answer is WAIT:
                answer = getattr(self.player, kind)(self.view(), *args)
        self.waiting = kind if answer is WAIT else None
        return answer

    def _journaled_answer(self, kind: str) -> Any:
        """After a crash, a decision made before it is read back from the journal (the
        frames already sent must come again unchanged; a person is not asked twice)."""
        ahead = self.deck.journaled_ahead()
        if not ahead:
            return WAIT
        cards = self.deck.hand()
        for sent_kind, body in ahead:
            if kind == "bury" and sent_kind == "bury":
                return [cards[p] % 54 for p in body["positions"]]
            found = decision(body["data"], cards) if sent_kind == "app" else None
            if found is not None and found[0] == kind:
                return found[1]
        return WAIT

    def decide(self, answer: Any) -> list[bytes]:
        """Answer the decision the table waits for (see `waiting`): for "declare" the faces
        of one of `declaration_options` or None, for "bury" and "play" a list of faces.
        A move the rules refuse raises `IllegalAction` with the rules' reason and changes
        nothing. Returns the frames to broadcast."""
        kind = self.waiting
        if kind is None:
            raise IllegalAction("it is not your turn")
        self._check_answer(kind, answer)
        self._answer = (kind, answer)
        self.waiting = None
        return self.step()

    def _check_answer(self, kind: str, answer: Any) -> None:
        if kind in ("bid", "name"):
            reason = (self.public.bid_refusal(answer, passing=True) if kind == "bid"
                      else self.public.trump_refusal(answer))
            if reason:
                raise IllegalAction(reason)
            return
        if kind == "show":
            if answer not in self.my_faces():
                raise IllegalAction("show exactly one card you hold")
            return
        if kind == "declare":
            if answer is not None and tuple(answer) not in self._declaration_options():
                raise IllegalAction("that declaration is not open to you now")
            return
        hand = self.my_faces()
        faces = list(answer)
        left = list(hand)
        for f in faces:
            if f not in left:
                raise IllegalAction(f"you do not hold {format_cards(faces, symbols=True)}")
            left.remove(f)
        if kind == "bury":
            if len(faces) != self.rules.talon_size:
                raise IllegalAction(f"bury exactly {self.rules.talon_size} cards")
            return
        assert self.ladder is not None
        if self.public.current:
            assert self.lead is not None
            reason = follow_error(hand, self.lead, faces, self.ladder,
                                  self.rules.must_play_tractor)
        else:
            reason = lead_error(hand, faces, self.ladder)
        if reason:
            raise IllegalAction(reason)

    def declaration_options(self) -> list[tuple[int, ...]]:
        """The declarations this seat could make in the open window (empty when none)."""
        return self._declaration_options() if self.phase == "window" else []

    def open_declarations(self) -> list[tuple[int, ...]]:
        """The declarations this seat's cards allow now, window open or not: while the
        cards are dealt a person may choose one at any moment, and this seat's next window
        posts it (if it still stands then)."""
        return self._declaration_options()

    def _once(self, key: str) -> bool:
        if key in self._done:
            return False
        self._done.add(key)
        return True

    def _peek(self, seat: int, *kinds: type[Any]) -> Any:
        """The seat's next message if it is of one of ``kinds``; None if none came yet."""
        q = self._queues[seat]
        if q and not isinstance(q[0][0], kinds):
            raise TableError(seat, f"expected {describe(kinds[0])}, got {describe(q[0][0])}")
        return q[0][0] if q else None

    def _take(self, seat: int, *kinds: type[Any]) -> tuple[Any, int] | None:
        """The seat's next message (of one of ``kinds``) and its number, taken; None if
        none came yet."""
        return None if self._peek(seat, *kinds) is None else self._queues[seat].popleft()

    # --- what this peer holds ----------------------------------------------------------------

    def _my_cards(self) -> dict[int, int]:
        """Position -> card of this peer's hand as the table stands: while dealing, only the
        rounds drawn so far (keys of later rounds may arrive early; a replay after a crash
        has them all), so every decision sees what it saw the first time."""
        hand = self.deck.hand()
        if self.phase in ("deal", "window"):
            drawn = min(self.round + 1, self.rules.hand_size) * self.n
            hand = {p: c for p, c in hand.items() if p < drawn}
        return hand

    def my_faces(self) -> list[int]:
        return [c % 54 for c in self._my_cards().values()]

    def _positions_for(self, faces: Sequence[int]) -> list[int]:
        hand = self._my_cards()
        out: list[int] = []
        for f in faces:
            p = next((p for p in sorted(hand) if hand[p] % 54 == f and p not in out), None)
            if p is None:  # this peer's own player is wrong (a person's move is checked)
                raise TableError(self.me, f"this peer's player chose cards it does not hold: "
                                          f"{list(faces)!r:.80}")
            out.append(p)
        return out

    def _shown_faces(self, seat: int, positions: Sequence[int], purpose: str,
                     seq: int) -> tuple[int, ...]:
        """Faces at positions (distinct deck positions: `table_messages`) the seat revealed
        before its message number ``seq`` (played, for a play; shown and not yet played,
        for a show). Judged at the message's place in the seat's chain: the deck may
        already hold the seat's later messages."""
        shown: set[int] = set()
        played: set[int] = set()
        for r in self.deck.reveals:
            if r.seat == seat and r.seq < seq:
                (played if r.purpose == "play" else shown).add(r.position)
        # A talon card the table turned over for everyone is shown already: a claim may
        # show it without revealing it again (an honest starter's claim was refused). Only
        # those the table turned over, and opened by every seat: a seat may send an `open`
        # of its own for any talon card, and that shows nothing.
        talon = range(self.deck.config.dealt, self.deck.config.size)
        shown |= {p for p in talon[:self.talon_opened] if p in self.deck.cards} - played
        faces = []
        for p in positions:
            if not 0 <= p < self.deck.config.size or self.deck.owner[p] != seat or (
                    p not in shown and p not in played):
                raise TableError(seat, f"position {p} was not revealed by this seat")
            if (p in played) != (purpose == "play"):
                raise TableError(seat, f"position {p} was {'not ' * (purpose == 'play')}played")
            if p in self._used:
                raise TableError(seat, f"position {p} was played in an earlier trick")
            faces.append(self.deck.cards[p] % 54)
        return tuple(faces)

    def _show(self, positions: list[int]) -> list[bytes]:
        """Show cards face up (those not shown yet: a card stays shown)."""
        fresh = [p for p in positions if self.me not in self.deck.keys[p]]
        return self.deck.reveal(fresh, "show") if fresh else []

    def view(self) -> SeatView:
        return SeatView(self.me, self.my_faces(), self.ladder,
                        self.lead if self.public.current else None, self.declaration,
                        self.setup.rank, self.observation())

    # --- what this seat may know, as the rules core says it -----------------------------------

    def observation(self) -> Observation:
        """This seat's view of the hand, made by the rules core (`PublicHand`) as for
        `tractor.hand.Hand.observe`, so AI strategies and screens work the same on the
        rules core and between peers."""
        talon_pos = range(self.deck.config.dealt, self.deck.config.size)
        talon = [self.deck.cards[p] % 54 for p in talon_pos if p in self.deck.cards]
        buried = [self.deck.cards[p] % 54 for p in self.deck.buried if p in self.deck.cards]
        return self.public.observe_seat(
            self.me, self.my_faces(), talon if len(talon) == len(talon_pos) else None,
            buried or None)

    # --- the schedule --------------------------------------------------------------------------

    def _advance(self) -> list[bytes]:
        if self.deck.phase not in (READY, DECK_DONE):
            return []
        handler = getattr(self, f"_phase_{self.phase}", None)
        return handler() if handler else []

    def _phase_setup(self) -> list[bytes]:
        agreed, out = self._agreed("deal")
        if agreed:
            self.phase = "deal"
        return out

    def _agreed(self, step: str) -> tuple[bool, list[bytes]]:
        """Whether every seat has signed that it stands where this peer does before
        ``step`` releases keys that open cards ("deal": the locked deck; "talon": the
        declarations or bids that give the talon away). Each seat posts {"agree": step}
        once it got here; the views in its signed header cover the whole transcript that
        entitles the cards' receivers, and the deck checks them against this peer's
        chains as it applies the message (a difference halts before any key leaves)."""
        out = self.deck.post({"agree": step}) if self._once(f"agree {step}") else []
        if f"agreed {step}" in self._done:
            return True, out
        msgs = [self._peek(s, Agree) for s in range(self.n)]
        if any(m is None for m in msgs):
            return False, out
        for seat, m in enumerate(msgs):
            if m != Agree(step):
                raise TableError(seat, f"expected its agreement to the {step}, got one to "
                                       f"the {m.step}")
            self._queues[seat].popleft()
        self._done.add(f"agreed {step}")
        return True, out

    def _phase_deal(self) -> list[bytes]:
        r, n = self.round, self.n
        positions = list(range(r * n, (r + 1) * n))
        out: list[bytes] = []
        if self._once(f"deal{r}"):
            for _ in positions:  # the round's cards are drawn (their keys on the way)
                self.public.record_draw()
            out = self.deck.deal(positions, self.now())
        if all(len(self.deck.keys[p]) >= n - 1 for p in positions):
            if self.rules.declaration == "reveal":
                self.phase = "window"
            else:  # the auction variant declares nothing while dealing
                self.round = r + 1
                self.phase = "deal" if self.public.phase == DEAL else "bid"
        return out

    def _declaration_options(self) -> list[tuple[int, ...]]:
        if not self.public.declaration_open():
            return []
        standing = self.declaration[1] if self.declaration else None
        return declaration_options(self.my_faces(), self.public.trump_rank(), standing)

    def _phase_window(self) -> list[bytes]:
        """One declaration window: every seat posts a declaration or a pass at once; they
        are judged in turn (from the first drawer while dealing, from the seat whose turn
        it is in the final window), so concurrent declarations resolve the same way on
        every peer; a declaration that no longer overcalls counts as a pass."""
        r = self.round
        out: list[bytes] = []
        if f"window{r}" not in self._done:
            choice = self._ask("declare", self._declaration_options())
            if choice is WAIT:
                return out
            self._done.add(f"window{r}")
            positions: list[int] = []
            if choice:
                positions = self._positions_for(choice)
                out += self._show(positions)
            out += self.deck.post({"w": r, "d": positions})
        msgs = [self._peek(s, Window) for s in range(self.n)]
        if any(m is None for m in msgs):
            return out
        shown: list[tuple[int, ...] | None] = []
        for seat, m in enumerate(msgs):
            if m.round != r:
                raise TableError(seat, f"window {m.round} out of turn (window {r} is open)")
            seq = self._queues[seat].popleft()[1]
            faces = self._shown_faces(seat, m.positions, "show", seq) if m.positions else None
            if faces is not None and not declaration_strength(faces, self.public.trump_rank()):
                raise TableError(seat, f"{format_cards(faces)} is not a declaration")
            shown.append(faces)
        public = self.public
        start = public.first if public.phase == DEAL else public.window_turn
        for k in range(self.n):
            if public.phase not in (DEAL, DECLARE) or public.turning_talon:
                break  # the final window closed: later answers are not asked for
            seat = (start + k) % self.n
            faces = shown[seat]
            if faces is not None and public.declaration_open() \
                    and public.declaration_stands(faces):
                self._judged(seat, lambda s=seat, f=faces: public.record_declaration(s, f))
            elif public.phase == DECLARE:
                self._judged(seat, lambda s=seat: public.record_pass(s))
        self.round = r + 1
        if public.phase == DEAL:
            self.phase = "deal"
        elif public.phase == DECLARE:
            self.phase = "open" if public.turning_talon else "window"
        elif public.phase == REDEAL:
            self.phase = "redeal"
        else:
            self.phase = "talon"
        return out

    # --- the auction variant (seed 001) --------------------------------------------------------

    def _phase_bid(self) -> list[bytes]:
        """Bids in turn from the dealer: each seat whose turn it is posts {"bid": points},
        0 for a pass, until every seat but the high bidder has passed."""
        public, out = self.public, []
        seat = public.to_act()
        assert seat is not None
        key = f"bid{len(public.bids) + len(public.out_of_auction)}"
        if seat == self.me and key not in self._done:
            points = self._ask("bid", public.bid_options())
            if points is WAIT:
                return out
            if type(points) is not int or not 0 <= points < 2**31:  # cannot even be sent
                raise TableError(self.me, f"this peer's player bid {points!r:.40}")
            self._done.add(key)
            out += self.deck.post({"bid": points})
        if (taken := self._take(seat, Bid)) is None:
            return out
        points = taken[0].points
        if points == 0:
            self._judged(seat, lambda: public.record_pass(seat))
        else:
            self._judged(seat, lambda: public.record_bid(seat, points))
        if public.phase == SHOW:
            self.phase = "show"
        return out

    def _phase_show(self) -> list[bytes]:
        """The card-play for the starter: in turn from the dealer every seat shows one card
        through the deck and posts {"show": [position]}; the cards stay in the hands."""
        public, out = self.public, []
        seat = public.to_act()
        assert seat is not None
        key = f"show{len(public.shown)}"
        if seat == self.me and key not in self._done:
            face = self._ask("show")
            if face is WAIT:
                return out
            self._done.add(key)
            positions = self._positions_for([face])
            out += self._show(positions) + self.deck.post({"show": positions})
        if (taken := self._take(seat, Show)) is None:
            return out
        faces = self._shown_faces(seat, taken[0].positions, "show", taken[1])  # one card
        self._judged(seat, lambda: public.record_show(seat, faces[0]))
        if public.phase == NAME:
            self.phase = "name"
        return out

    def _phase_name(self) -> list[bytes]:
        """The starter names trump: {"name": suit}, or None for no trump suit."""
        public, out = self.public, []
        seat = public.starter
        assert seat is not None
        if seat == self.me and "name" not in self._done:
            suit = self._ask("name")
            if suit is WAIT:
                return out
            self._done.add("name")
            out += self.deck.post({"name": suit})
        if (taken := self._take(seat, Name)) is None:
            return out
        suit = taken[0].suit
        self._judged(seat, lambda: public.record_trump_named(seat, suit))
        self.phase = "talon"
        return out

    def _phase_open(self) -> list[bytes]:
        """No declaration in a later hand: turn the talon over card by card (seed 000)."""
        talon = list(range(self.deck.config.dealt, self.deck.config.size))
        agreed, out = self._agreed("talon")
        if not agreed:
            return out
        while self.public.turning_talon:
            p = talon[self.talon_opened]
            if self._once(f"open{p}"):
                out += self.deck.open_public([p])
            if p not in self.deck.cards:
                return out
            self.public.record_talon_card(self.deck.cards[p] % 54)
        self.phase = "talon"
        return out

    def _phase_talon(self) -> list[bytes]:
        assert self.starter is not None
        agreed, out = self._agreed("talon")
        if not agreed:
            return out
        if self._once("talon"):
            out += self.deck.give_talon(self.starter, self.now())
        if self.me == self.starter and len(self.deck.hand()) == (
                self.rules.hand_size + self.rules.talon_size) and "bury" not in self._done:
            faces = self._ask("bury", self.rules.talon_size)
            if faces is not WAIT:
                self._done.add("bury")
                out += self.deck.bury(self._positions_for(faces))
        if self.deck.buried:
            self.public.record_burial(self.starter)
            self.phase = "play"
            self.trick = _Trick(self.starter)
        return out

    # --- tricks ----------------------------------------------------------------------------------

    def _phase_play(self) -> list[bytes]:
        trick = self.trick
        assert trick is not None and self.ladder is not None
        out: list[bytes] = []
        if trick.attempted is not None and trick.forced is None and not trick.plays:
            return out + self._claims(trick)
        seat = self.public.to_act()
        assert seat is not None
        key = f"play{len(self.tricks)}.{len(trick.plays)}"
        if seat == self.me and key not in self._done:
            moves = self._my_play(trick)
            if moves is not None:
                self._done.add(key)
                out += moves
        if (taken := self._take(seat, Play, Throw)) is None:
            return out
        msg, seq = taken
        if isinstance(msg, Throw) and not trick.plays and trick.attempted is None:
            faces = self._shown_faces(seat, msg.positions, "show", seq)
            fmt = self._judged(seat, lambda: self.public.lead_format_of(faces))
            if fmt.kind != THROW:
                raise TableError(seat, "announced a throw that is not one")
            trick.attempted = faces
            trick.attempted_at = msg.positions
            trick.claims = {}
            return out + self._claims(trick)
        if not isinstance(msg, Play):
            raise TableError(seat, f"expected a play, got {describe(msg)}")
        faces = self._shown_faces(seat, msg.positions, "play", seq)
        done = len(self.public.tricks)
        self._judged(seat, lambda: self.public.record_play(seat, faces))
        self._used.update(msg.positions)
        trick.plays.append(faces)
        cards = tuple(self.deck.cards[p] for p in msg.positions)
        if len(trick.plays) == 1:
            self.records.append(PlayRecord(
                seat, cards, self._attempt_cards(trick),
                tuple((s, tuple(i for i, _ in c)) for s, c in sorted((trick.claims or {})
                                                                     .items()))))
        else:
            self.records.append(PlayRecord(seat, cards))
        if len(self.public.tricks) > done:
            self._trick_finished(trick)
        return out

    def _attempt_cards(self, trick: _Trick) -> tuple[int, ...] | None:
        # By position: a card of the throw may have been shown by the table itself (a
        # talon card turned over), with no reveal of the thrower's.
        if trick.attempted is None:
            return None
        return tuple(self.deck.cards[p] for p in trick.attempted_at)

    def _my_play(self, trick: _Trick) -> list[bytes] | None:
        """This seat's play (None: the player answers later)."""
        assert self.ladder is not None
        if trick.attempted is not None and not trick.plays:
            faces = list(trick.forced or trick.attempted)
        else:
            faces = self._ask("play")
            if faces is WAIT:
                return None
            if not trick.plays and classify_faces(faces, self.ladder).kind == THROW:
                positions = self._positions_for(faces)
                return self._show(positions) + self.deck.post({"throw": positions})
        positions = self._positions_for(faces)
        return self.deck.reveal(positions, "play") + self.deck.post({"play": positions})

    def _lead_of(self, trick: _Trick) -> Format:
        assert self.ladder is not None and trick.attempted is not None
        return classify_faces(list(trick.attempted), self.ladder)

    def _claim_turn(self, trick: _Trick) -> int | None:
        return claim_turn(self._lead_of(trick), trick.answers, trick.leader, self.n,
                          self.rules.throw_forced)

    def _claims(self, trick: _Trick) -> list[bytes]:
        """The other seats answer a throw in turn, each showing at most the one component
        of its hand that changes the forced lead (`tractor.trick.claim_to_make`), until the
        forced lead is settled (`claim_turn`): nobody shows more than the rules need, and
        the end-of-hand audit checks every answer against the real hands."""
        assert self.ladder is not None and trick.attempted is not None
        assert trick.claims is not None
        lead = self._lead_of(trick)
        out: list[bytes] = []
        while (seat := self._claim_turn(trick)) is not None:
            best = best_claim(lead, trick.answers)
            if seat == self.me and self._once(f"claim{len(self.tricks)}"):
                out += self._my_claim(lead, best)
            if (taken := self._take(seat, Claim)) is None:
                return out
            msg, seq = taken
            index: int | None = None
            for index, positions in msg.items:  # at most one
                if index >= len(lead.components):
                    raise TableError(seat, "a claim names a component of the throw")
                if best is not None and claim_to_make(lead, [index], best,
                                                      self.rules.throw_forced) is None:
                    raise TableError(seat, "claimed a part of the throw that does not change "
                                           "the forced lead")
                faces = self._shown_faces(seat, positions, "show", seq)
                if not claim_beats(lead.components[index], lead, faces, self.ladder):
                    raise TableError(seat, "claimed to beat a throw with cards that do not")
                trick.claims[seat] = [(index, faces)]
            trick.answers.append((seat, index))
        best = best_claim(lead, trick.answers)
        trick.forced = self.public.record_throw(trick.leader, trick.attempted,
                                                [] if best is None else [best])
        trick.penalty = self.public.current_penalty
        return out + self._phase_play_after_claims(trick)

    def _phase_play_after_claims(self, trick: _Trick) -> list[bytes]:
        if trick.leader == self.me and self._once(f"forced{len(self.tricks)}"):
            return self._my_play(trick) or []
        return []

    def _my_claim(self, lead: Format, best: int | None) -> list[bytes]:
        """An honest answer to a throw: the component `claim_to_make` names, shown with the
        lowest same-shape cards of this hand that beat it; or nothing."""
        index = claim_to_make(lead, self._parts_i_beat(lead), best, self.rules.throw_forced)
        if index is None:
            return self.deck.post({"claim": []})
        return self._claim(lead, index)

    def _parts_i_beat(self, lead: Format) -> list[int]:
        """The components of a throw this hand can beat."""
        assert self.ladder is not None
        suit = [f for f in self.my_faces() if self.ladder.esuit[f] == lead.esuit]
        return [i for i, comp in enumerate(lead.components)
                if beats_component(comp, suit, self.ladder)]

    def _claim(self, lead: Format, index: int) -> list[bytes]:
        """Show the lowest same-shape cards of this hand that beat component ``index``."""
        assert self.ladder is not None
        suit = [f for f in self.my_faces() if self.ladder.esuit[f] == lead.esuit]
        comp = lead.components[index]
        candidates = [c for c in _components_of_shape(suit, comp, self.ladder)
                      if beats_component(comp, list(c), self.ladder)]
        lowest = min(candidates, key=lambda c: max(self.ladder.order[f] for f in c))
        positions = self._positions_for(lowest)
        return self._show(positions) + self.deck.post({"claim": [[index, positions]]})

    def _trick_finished(self, trick: _Trick) -> None:
        done = self.public.tricks[-1]  # the rules core's judgement of the trick
        trick.winner, trick.points = done.winner, done.points
        self.tricks.append(trick)
        if self.public.tricks_done:
            self.phase = "audit"
            self.trick = None
        else:
            self.trick = _Trick(done.winner)

    # --- the end ---------------------------------------------------------------------------------

    def _phase_audit(self) -> list[bytes]:
        out = self.deck.audit(self.now()) if self._once("audit") else []
        if self.deck.phase != DECK_DONE:
            return out
        with carrying(out):  # this peer's verdict goes out even if another's differs
            if self.violations is None:
                assert self.trump is not None and self.starter is not None
                assert self.declarers is not None
                self.violations = audit_hand(self.rules, self.deck.deck_order(),
                                             self.setup.levels, self.setup.first,
                                             self.trump, self.starter, self.declarers,
                                             self.deck.buried, self.records)
                out += self.deck.verdict([v.to_data() for v in self.violations])
            if len(self.deck.verdicts) < self.n:
                return out
            mine = [v.to_data() for v in self.violations]
            for seat, verdict in self.deck.verdicts.items():
                if verdict["violations"] != mine:
                    raise TableError(seat, "its audit verdict differs from this peer's")
        self._score()
        self.phase = "done"
        return out

    def _score(self) -> None:
        order = self.deck.deck_order()
        offender = self.violations[0].seat if self.violations else None
        self.public.record_score(points_of(order[p] % 54 for p in self.deck.buried), offender)


def _components_of_shape(suit: list[int], comp: Any, ladder: Ladder) -> list[tuple[int, ...]]:
    """Every same-shape component (single, pair, tractor of the same length) in ``suit``."""
    if comp.kind == "single":
        return [(f,) for f in set(suit)]
    if comp.kind == "pair":
        return [(f, f) for f in set(suit) if suit.count(f) >= 2]
    return [tuple(t) for t in tractors_in(suit, ladder) if len(t) == len(comp.faces)]

