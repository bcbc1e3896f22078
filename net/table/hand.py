"""One hand of Tractor between peers: the replicated table, as a state machine.

Each peer runs a `TableHand` over its deck engine. It holds the whole public state
of the hand, checks every move another seat makes with the rules core as far as
public information allows (the rest is left to the end-of-hand audit), and asks
its own `Player` for decisions. It is fed frames (``receive``) and returns the
frames to broadcast; it never touches sockets or clocks.

Lock-step schedule, the same on every peer (`Schedule` holds where this peer is, a
`tractor.phases.Phase`):

- SETUP: the deck's set-up (commit, shuffles, locks), and every seat's agreement to deal;
- for each draw round r: every seat releases the keys of round r (DEAL), then
  posts exactly one declaration window message (DECLARE) ``{"w": r, "d": positions}`` (empty: a
  pass; a declaration first shows the cards); windows are processed in seat order
  from the first drawer, so concurrent declarations resolve the same way everywhere;
  one final window after the last card;
- trump: the standing declaration; none: a first hand ends in REDEAL, a later
  hand turns the talon over one card at a time (seed 000; still DECLARE, while
  ``PublicHand.turning_talon``);
- TALON: the talon goes to the starter, who buries (the deck's ``bury``) (all of this:
  `net.table.dealing`; the auction variant's BID, SHOW and NAME instead:
  `net.table.auction`);
- CALL, find-a-friend only: the starter posts its calls ``{"call": [[face, copy], ...]}``,
  judged by the rules core on every peer (`net.table.calling`);
- PLAY, the tricks: the seat to play shows/plays its cards and posts ``{"play": positions}``;
  a throw is first shown and posted as ``{"throw": positions}``; every other seat then
  posts ``{"claim": [[component, positions], ...]}``, showing a component that beats
  one of the throw's components, or an empty claim; the thrower then plays the
  whole throw, or the forced component (`net.table.tricks`);
- AUDIT: every key is released, every peer replays the hand with the rules
  core and signs its verdict; the result counts only if every verdict agrees
  (`net.table.audit`); then DONE.

The parts: `Inbox` (the other seats' messages waiting for their turn, and the chat),
`OwnCards` and `RevealedCards` (cards by deck position), `Decisions` (this peer's player
asked, its typed answers checked by the rules core: `net.table.move_check`), and the
steps above; `TableHand` puts them together and is what the session, the node and the
screens use.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from tractor.actions import Action, TakeBack
from tractor.formats import Format
from tractor.net.deck.audit import PlayRecord, Violation
from tractor.net.deck.engine import Deck
from tractor.net.deck.errors import carrying, followed_by
from tractor.net.deck.progress import DeckStep
from tractor.net.table.auction import Auction
from tractor.net.table.audit import HandAudit
from tractor.net.table.calling import Calling
from tractor.net.table.dealing import Dealing
from tractor.net.table.decisions import Decisions, NoDecisions
from tractor.net.table.errors import TableError
from tractor.net.table.inbox import Inbox
from tractor.net.table.messages import Chat, TableMessage, to_wire
from tractor.net.table.owed import Owed
from tractor.net.table.player import Player, SeatView
from tractor.net.table.positions import OwnCards, RevealedCards
from tractor.net.table.schedule import Schedule
from tractor.net.table.setup import HandSetup
from tractor.net.table.theft import TheftWindow
from tractor.net.table.tricks import TrickPlay, TrickRecord
from tractor.observation import Observation
from tractor.phases import Decision, IllegalAction, Phase
from tractor.public import PublicHand
from tractor.records import HandResult
from tractor.trump import Ladder, Trump


class TableHand:
    """One peer's replica of one hand (see the module docstring)."""

    def __init__(self, setup: HandSetup, deck: Deck, player: Player,
                 now: Callable[[], float] | None = None) -> None:
        self.setup = setup
        self.rules = rules = setup.rules
        self.deck = deck
        self.me = deck.me
        self.n = deck.config.seats
        if (self.n != rules.players or deck.config.decks != rules.decks
                or deck.config.hand_size != rules.hand_size
                or deck.config.first != setup.first):
            raise ValueError("the deck does not fit the rules and the hand's first drawer")
        if rules.declaration == "auction" and (setup.starter is not None
                                               or setup.declarers is not None):
            raise ValueError("in the auction variant the auction picks the declarers and "
                             "the card-play the starter")
        if rules.mode == "friends" and setup.declarers is not None:
            raise ValueError("find-a-friend has no declaring team: the starter's calls make "
                             "its side")
        #: The time, for the deck's key deadlines (`Deck.tick`); the session passes its clock.
        self.now: Callable[[], float] = now or (lambda: 0.0)
        clock = self._time
        #: The hand's public state and every rule judged on it: the rules core's.
        self.public = PublicHand(rules, setup.levels, setup.first, setup.starter,
                                 setup.declarers)
        self.schedule = Schedule()
        self.inbox = Inbox(self.n)
        self.revealed = RevealedCards(deck, self.public)
        self.own = OwnCards(deck, self.schedule, rules.hand_size, self.revealed.returned)
        self.decisions = (NoDecisions if deck.watching else Decisions)(
            player, rules, deck, self.view)
        # The schedule's steps, each over the parts above.
        public, schedule, inbox, own, revealed = (self.public, self.schedule, self.inbox,
                                                  self.own, self.revealed)
        #: Told (trick, play in the trick) the moment a play is applied (`GameSession`).
        self.on_play: Callable[[int, int], None] | None = None
        self.playing = TrickPlay(rules, deck, public, schedule, inbox, own, revealed,
                                 self.decisions, my_play=self._my_play,
                                 my_claim=self._my_claim, played=self._play_applied)
        self.dealing = Dealing(rules, deck, public, schedule, inbox, own, revealed,
                               self.decisions, now=clock, first_trick=self.playing.begin)
        self.auction = Auction(deck, public, schedule, inbox, own, revealed, self.decisions)
        self.calling = Calling(deck, public, schedule, inbox, self.decisions,
                               first_trick=self.playing.begin)
        self.theft = TheftWindow(deck, public, schedule, inbox, own, revealed, self.decisions,
                                 first_trick=self.playing.begin)
        #: The step the schedule runs in each phase (`_advance`; made once: it runs after
        #: every frame). Each looks its step up when called, so a test's hostile peer may
        #: replace one on its part.
        self._steps: dict[Phase, Callable[[], list[bytes]]] = {
            Phase.SETUP: lambda: self.dealing.setup(), Phase.DEAL: lambda: self.dealing.deal(),
            Phase.DECLARE: self._declaring, Phase.TALON: lambda: self.dealing.talon(),
            Phase.BID: lambda: self.auction.bid(), Phase.SHOW: lambda: self.auction.show(),
            Phase.NAME: lambda: self.auction.name(), Phase.CALL: lambda: self.calling.step(),
            Phase.PLAY: lambda: self.playing.step(), Phase.AUDIT: lambda: self._phase_audit(),
            Phase.THEFT: lambda: self.theft.step()}
        self.audit = HandAudit(setup, deck, self.public, self.schedule, self.playing.records,
                               clock)
        self.owed = Owed(deck, self.public, self.schedule, self.inbox, self.playing)
        #: Every seat's moves (`moves_of`) when the hand first had something to lose (a
        #: starter, and with teams a declaring team): a verdict on a move missing before
        #: that forfeits nothing, however late a peer took it (`GameSession.forfeit`).
        self.stake_from: tuple[int, ...] | None = None

    def _time(self) -> float:
        return self.now()

    def _play_applied(self, trick: int, play: int) -> None:
        if self.on_play is not None:
            self.on_play(trick, play)

    # --- where the hand stands -------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The schedule's step (the rules' phase is ``public.phase``)."""
        return self.schedule.phase

    @property
    def round(self) -> int:
        return self.schedule.round

    @property
    def player(self) -> Player:
        """Who decides for this peer's seat (a test may seat another)."""
        return self.decisions.player

    @player.setter
    def player(self, player: Player) -> None:
        self.decisions.player = player

    @property
    def waiting(self) -> Decision | None:
        """The decision the table waits for from this peer's player (it answered `WAIT`);
        None otherwise."""
        return self.decisions.waiting

    @property
    def tricks(self) -> list[TrickRecord]:
        """The finished tricks as the table saw them (claims, throws)."""
        return self.playing.done

    @property
    def trick(self) -> TrickRecord | None:
        return self.playing.current

    @property
    def records(self) -> list[PlayRecord]:
        return self.playing.records

    @property
    def violations(self) -> list[Violation] | None:
        return self.audit.violations

    @property
    def chat(self) -> list[tuple[int, str]]:
        """(seat, text) of every chat line, in the order applied."""
        return self.inbox.chat

    @property
    def _queues(self) -> list[deque[tuple[TableMessage, int]]]:
        return self.inbox.queues

    @property
    def _chat_out(self) -> list[str]:
        return self.inbox.chat_out

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
                if self.inbox.chat_out and self.deck.phase == DeckStep.READY:
                    for text in self.inbox.chat_out:
                        out += self.deck.post(to_wire(Chat(text)))
                    self.inbox.chat_out.clear()
                self.inbox.sort(self.deck.inbox)
                self.deck.inbox.clear()
                before = self.progress()
                out += self._advance()
                self._note_stake()
                if before == self.progress() and not self.deck.inbox:
                    return out

    def _note_stake(self) -> None:
        if self.stake_from is not None:
            return
        try:
            self.public.forfeit_result(self.me)  # the rules core's: is there a stake yet?
        except IllegalAction:
            return
        self.stake_from = tuple(self.moves_of(s) for s in range(self.n))

    def _advance(self) -> list[bytes]:
        """The schedule's current step, once the deck is ready for it."""
        if self.deck.phase not in (DeckStep.READY, DeckStep.DONE):
            return []
        step = self._steps.get(self.phase)
        return step() if step is not None else []

    def _declaring(self) -> list[bytes]:
        """A declaration window, or the talon turned over when nobody declared."""
        if self.public.turning_talon:
            return self.dealing.open_talon()
        return self.dealing.window()

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
        self.inbox.say(text)
        return self.step()

    def decide(self, action: Action) -> list[bytes]:
        """Answer the decision the table waits for (see `waiting`) with the rules core's
        action: a `Declare` of one of `declaration_options` or a `Pass`, a `Bury`, a
        `Play`, a `Bid` or a `Pass`, a `Show`, a `NameTrump`, a `Call`; or, unasked, a
        `TakeBack` of this seat's last play (`take_back`). A move the rules refuse
        raises `IllegalAction` with the rules' reason and changes nothing. Returns the
        frames to broadcast."""
        if isinstance(action, TakeBack):
            if action.seat != self.me:
                raise IllegalAction("that is another seat's move")
            return self.take_back()
        self.decisions.give(action)
        return self.step()

    def take_back(self) -> list[bytes]:
        """Take back this seat's last play (`Rules.takebacks`): its signed take-back, which
        stands unless the next seat's move comes first (`net.table.takebacks`). A take-back
        the rules refuse raises `IllegalAction` with their reason and changes nothing."""
        return self.playing.takebacks.take_back() + self.step()

    def takeback_refusal(self) -> str | None:
        """Why this seat may not take back now (None: it may)."""
        return self.playing.takebacks.refusal()

    # --- what the stall deadlines watch ----------------------------------------------------------

    def waiting_on(self) -> dict[int, str]:
        """Seat -> the message this peer waits for from it now (its shuffle, a play ...):
        what a stall deadline watches (`Owed`)."""
        return self.owed.now()

    def moves_of(self, seat: int) -> int:
        """How many of ``seat``'s messages this hand's table took, its chat lines aside: what
        a stall is judged on (a seat's chat is not the move it owes)."""
        return self.deck.accepted(seat) - self.inbox.chats_of(seat)

    def progress(self) -> tuple[object, ...]:
        """Changes whenever the hand moves on (a phase, a play, a message taken, a move)."""
        trick = self.trick
        return (self.phase, self.round, len(self.tricks), len(trick.plays) if trick else -1,
                trick.forced if trick else None, len(self.schedule.done),
                self.inbox.waiting(), self.talon_opened, self.public.phase)

    # --- what this seat holds and may know -----------------------------------------------------

    def my_faces(self) -> list[int]:
        return self.own.faces()

    def declaration_options(self) -> list[tuple[int, ...]]:
        """The declarations this seat could make in the open window, or the overcalls for
        the kitty in its turn (empty when none)."""
        if self.phase == Phase.THEFT:
            return self.theft.options()
        window = self.phase == Phase.DECLARE and not self.public.turning_talon
        return self.dealing.declaration_options() if window else []

    def open_declarations(self) -> list[tuple[int, ...]]:
        """The declarations this seat's cards allow now, window open or not: while the
        cards are dealt a person may choose one at any moment, and this seat's next window
        posts it (if it still stands then)."""
        return self.dealing.declaration_options()

    def view(self) -> SeatView:
        public = self.public
        return SeatView(self.me, self.my_faces(), public.ladder,
                        public.lead_format if public.current else None, public.declaration,
                        public.trump_rank(), self.observation(), self.rules)

    def observation(self) -> Observation:
        """This seat's view of the hand, made by the rules core (`PublicHand`) as for
        `tractor.hand.Hand.observe`, so AI strategies and screens work the same on the
        rules core and between peers."""
        deck = self.deck
        talon_pos = range(deck.config.dealt, deck.config.size)
        talon = [deck.cards[p] % 54 for p in talon_pos if p in deck.cards]
        buried = [deck.cards[p] % 54 for p in deck.buried if p in deck.cards]
        thefts = deck.kitty.thefts
        taken = thefts[-1].positions if thefts and thefts[-1].thief == self.me else []
        kitty = [deck.cards[p] % 54 for p in taken if p in deck.cards]
        return self.public.observe_seat(
            self.me, self.my_faces(), talon if len(talon) == len(talon_pos) else None,
            buried or None, kitty if kitty and len(kitty) == len(taken) else None)

    # --- this seat's own moves, by name (a test's dishonest seat replaces one) --------------------

    def _my_play(self, trick: TrickRecord) -> list[bytes] | None:
        return self.playing.my_play(trick)

    def _my_claim(self, lead: Format, best: int | None) -> list[bytes]:
        return self.playing.honest_claim(lead, best)

    def _parts_i_beat(self, lead: Format) -> list[int]:
        return self.playing.parts_i_beat(lead)

    def _claim(self, lead: Format, index: int) -> list[bytes]:
        return self.playing.claim(lead, index)

    def _positions_for(self, faces: Sequence[int]) -> list[int]:
        return self.own.positions_for(faces)

    def _show(self, positions: list[int]) -> list[bytes]:
        return self.own.show(positions)

    def _phase_audit(self) -> list[bytes]:
        return self.audit.step()
