"""A whole game between peers: hand after hand of `TableHand`, each over a fresh deck.

`GameSession` is one peer's view of a game: it builds each hand's deck engine (a new
hand number, so every frame and proof is bound to it; fresh secrets from the peer's
master seed), carries levels, declarers and starter from one hand's result to the
next (`tractor.game.after_hand`, as the rules core's `Game`: in find-a-friend one level
per player and no declaring team), deals again after a first hand nobody declared, and
ends when a team passes Ace (in find-a-friend, a player).
The next hand's deck is shuffled and locked while this hand is played (`upcoming`: its
shuffle needs nothing of this hand's result; its deal waits for the first drawer). Every
deck's heavy work is given to a `Runner` when one is set. Like the rest of the protocol it is a
state machine fed with frames (and, with a runner, told when work is done: `poll`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Collection, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tractor.actions import Action
from tractor.game import after_hand, after_redeal, game_winner
from tractor.net.deck.background import Runner
from tractor.net.deck.config import DeckConfig
from tractor.net.deck.engine import Deck
from tractor.net.deck.envelope import open_frame, peek_hand
from tractor.net.deck.errors import carrying, followed_by
from tractor.net.deck.ledger import CheckLedger
from tractor.net.table.hand import TableHand
from tractor.net.table.player import Player
from tractor.net.table.setup import HandSetup
from tractor.net.table.unplayed import refuse_unplayed
from tractor.phases import IllegalAction, Phase
from tractor.records import HandResult
from tractor.rules import Rules

#: The schedule's steps of a hand from which the next hand's deck is shuffled and locked:
#: the cards are dealt and the talon buried, the deck of this hand has little left to do
#: and the players take seconds a trick.
SHUFFLE_AHEAD_FROM = frozenset({Phase.PLAY, Phase.AUDIT})

#: A hand's phases once it is over: scored, or to be dealt again.
OVER = (Phase.DONE, Phase.REDEAL)


def dealer_by_lot(table: bytes, players: int) -> int:
    """The first dealer of an auction game, by lot (seed 001): drawn from the table id,
    which every seat agrees on and none chooses alone (it hashes every seat's key)."""
    digest = hashlib.sha256(b"tractor/first-dealer/" + table).digest()
    return int.from_bytes(digest[:8], "big") % players


class GameSession:
    def __init__(self, rules: Rules, table: bytes, seat: int, signing_key: Ed25519PrivateKey,
                 public_keys: Sequence[Ed25519PublicKey], master_seed: bytes, player: Player,
                 first: int = 0,
                 on_hand_end: Callable[[GameSession, TableHand], None] | None = None,
                 max_hands: int | None = None, carry: Sequence[Any] | None = None) -> None:
        if len(master_seed) < 32:
            raise ValueError("the master seed has at least 32 bytes")
        refuse_unplayed(rules)
        self.rules = rules
        self.table = table
        self.seat = seat
        self._key = signing_key
        self.public_keys = tuple(public_keys)
        self._master = master_seed
        self.player = player
        self.on_hand_end = on_hand_end
        self.max_hands = max_hands  #: stop after this many played hands (tests, soak runs)
        #: The time for the deck's key deadlines (a `PeerNode` sets its clock here).
        self.now: Callable[[], float] = lambda: 0.0
        #: Told (hand, trick, play in the trick) the moment the current hand applies a
        #: play: what a soak run times (`net.table.peer_process`).
        self.on_play: Callable[[int, int, int], None] | None = None
        #: The teams' levels, or in find-a-friend the players' (`Rules.level_count`).
        self.levels = [rules.start_level] * rules.level_count
        self.first = first
        if rules.declaration == "auction" and carry is None:
            self.first = dealer_by_lot(table, rules.players)
        self.starter: int | None = None
        self.declarers: int | None = None
        if carry is not None:  # a game going on at a new table (a seat was replaced)
            if len(carry) != rules.level_count + 3:
                raise ValueError(f"a carry of these rules is {rules.level_count} levels, the "
                                 "declaring team, the starter and the first drawer")
            *levels, self.declarers, self.starter, self.first = carry
            self.levels = list(levels)
        self.hand_no = 0
        self.results: list[HandResult] = []
        #: The winning team once the game is over (find-a-friend: the first winning seat);
        #: `winners`: every seat that won, as the rules core's `Game` has them.
        self.winner: int | None = None
        self.winners: tuple[int, ...] = ()
        self.played: list[TableHand] = []  #: finished hands (their frames are the journal)
        self._journal: dict[int, list[bytes]] = {}
        self._runner: Runner | None = None
        #: What every deck of this game checked (a journal's marks: `net.journal.checked`).
        self.ledger = CheckLedger()
        #: The next hand's deck, shuffled and locked while this hand is played; its first
        #: drawer is named when this hand's result gives it.
        self.upcoming: Deck | None = None
        self.current = self._new_hand(self._new_deck(self.hand_no, self.first))

    @property
    def signing_key(self) -> Ed25519PrivateKey:
        """This seat's session key: it signs its deck frames, ballots and link proofs."""
        return self._key

    @property
    def runner(self) -> Runner | None:
        """Where every deck of this game does its heavy work (a `PeerNode` sets a worker
        thread: the next hand's deck while this one is played, the first hand's while the
        screen shows it is shuffled); None: at once, on the caller's thread."""
        return self._runner

    @runner.setter
    def runner(self, runner: Runner | None) -> None:
        self._runner = runner
        for deck in (self.current.deck, self.upcoming):
            if deck is not None:
                deck.runner = runner

    def hand_seed(self, hand_no: int) -> bytes:
        """This peer's secrets for one hand (persist the master seed to resume)."""
        return hmac.new(self._master, f"hand/{hand_no}".encode(), hashlib.sha256).digest()

    def _new_deck(self, hand_no: int, first: int | None) -> Deck:
        config = DeckConfig(table=self.table, hand=hand_no, public_keys=self.public_keys,
                            decks=self.rules.decks, hand_size=self.rules.hand_size,
                            first=first)
        deck = Deck(config, self.seat, self._key, self.hand_seed(hand_no))
        deck.runner = self._runner
        deck.ledger = self.ledger
        if hand_no in self._journal:
            deck.load_journal(self._journal.pop(hand_no))
        return deck

    def _new_hand(self, deck: Deck) -> TableHand:
        deck.set_first(self.first)
        setup = HandSetup(self.rules, tuple(self.levels), self.first, self.starter,
                          self.declarers)
        hand = TableHand(setup, deck, self.player, now=lambda: self.now())
        hand.on_play = self._play_applied
        return hand

    def _play_applied(self, trick: int, play: int) -> None:
        if self.on_play is not None:
            self.on_play(self.hand_no, trick, play)

    def _shuffle_ahead(self) -> list[bytes]:
        """Start the next hand's deck (its shuffle and lock need nothing of this hand's
        result) once this hand is being played, or once another seat started it; returns
        this peer's frames for it. Not past the last hand a test or benchmark plays."""
        if self.over:
            return []
        last = self.max_hands is not None and len(self.results) + 1 >= self.max_hands
        if self.upcoming is None and (self.current.phase not in SHUFFLE_AHEAD_FROM or last):
            return []
        return self._begin_upcoming()

    def _begin_upcoming(self) -> list[bytes]:
        """Start the next hand's deck (made if need be), unless it has started."""
        if self.upcoming is None:
            self.upcoming = self._new_deck(self.hand_no + 1, None)
        return [] if self.upcoming.started else self.upcoming.start()

    def carry(self) -> tuple[Any, ...]:
        """Where the game stands between hands, for a new table that goes on with it: every
        level (two teams', or in find-a-friend each player's), the declaring team, the
        starter and the first drawer (with teams the five fields they always were)."""
        return (*self.levels, self.declarers, self.starter, self.first)

    @property
    def over(self) -> bool:
        return self.winner is not None

    def start(self) -> list[bytes]:
        return followed_by(self.current.start(), self._maybe_next)

    def journal(self) -> list[bytes]:
        """Every frame of this game this peer accepted or holds (what a crash must not lose;
        `net.journal.store` keeps it on disk)."""
        decks = [hand.deck for hand in [*self.played, self.current]]
        if self.upcoming is not None:
            decks.append(self.upcoming)
        return [f for deck in decks for f in deck.frames()]

    def resume(self, journal: Sequence[bytes], proved: Collection[bytes] = (),
               signed: Collection[bytes] = (),
               progress: Callable[[int, int], None] | None = None) -> list[bytes]:
        """Start a fresh session (same seat, keys, master seed and player) from the journal of
        one that crashed: every hand is played again from its frames, this peer's moves taken
        from the journal, and the game goes on where it stopped. Returns frames to send.

        ``proved``, ``signed``: digests of frames whose proofs, whose signatures, passed
        here before (`CheckLedger`: not checked again). ``progress(done, total)`` is told as
        frames are applied, and at the end with ``done == total`` (a frame still waiting
        for its turn is not applied)."""
        if self.current.phase != Phase.SETUP or self.results:
            raise RuntimeError("resume a fresh session, before start")
        total, done = len(journal), 0

        def applied() -> None:
            nonlocal done
            done += 1
            if progress is not None and done < total:
                progress(done, total)

        self.ledger = CheckLedger(frozenset(proved), frozenset(signed), applied)
        self.current.deck.ledger = self.ledger
        for frame in journal:
            self._journal.setdefault(peek_hand(frame), []).append(frame)
        self.current.deck.load_journal(self._journal.pop(self.hand_no, []))
        try:
            out = self.start()
        finally:
            self.ledger.on_applied = None  # from now on frames come live
        if progress is not None:
            progress(total, total)
        return out

    def receive(self, frame: bytes) -> list[bytes]:
        """One frame from a peer: for this hand, for the next one (its deck is shuffled
        meanwhile; the rest waits there for this hand's result), or refused."""
        hand = peek_hand(frame)
        current = self.current.deck.config.hand
        if hand < current:
            return []  # a frame of a finished hand, sent again after a reconnect
        if hand == current + 1:
            if self.over:
                return []  # the game ended here: nothing comes after it
            if self.upcoming is None:
                # Only a frame signed by a seat makes the next deck (a forged one would
                # make this peer sign its shuffle for nothing).
                open_frame(frame, self.table, hand, list(self.public_keys))
                self.upcoming = self._new_deck(hand, None)
            # The frame first, then the deck starts: a frame refused unread (`FrameError`)
            # leaves nothing of this peer's made and unsent.
            return followed_by(self.upcoming.receive(frame), self._begin_upcoming)
        return followed_by(self.current.receive(frame), self._maybe_next)

    def poll(self) -> list[bytes]:
        """Go on after the runner finished work of a deck (see `Deck.poll`)."""
        out = self.upcoming.poll() if self.upcoming is not None else []
        with carrying(out):
            if self.current.deck.runner is not None:  # else it has no work to go on with
                out += followed_by(self.current.deck.poll(), self.current.step)
            out += self._maybe_next()
        return out

    def decide(self, action: Action) -> list[bytes]:
        """This peer's player answers the decision the current hand waits for with the
        rules core's action (see `TableHand.decide`; raises `IllegalAction` on a move the
        rules refuse)."""
        return followed_by(self.current.decide(action), self._maybe_next)

    def say(self, text: str) -> list[bytes]:
        """A chat line at the table (signed like a move)."""
        return followed_by(self.current.say(text), self._maybe_next)

    def _maybe_next(self) -> list[bytes]:
        out: list[bytes] = []
        with carrying(out):  # a frame of the next hand, applied as it starts, may fail
            while self.current.phase in OVER and not self.over:
                hand = self.current
                self.played.append(hand)
                if hand.phase == Phase.REDEAL:
                    self.first = after_redeal(self.rules, self.first)
                else:
                    assert hand.result is not None
                    self._end_hand(hand.result)
                    if self.on_hand_end:
                        self.on_hand_end(self, hand)
                    if self.over or (self.max_hands is not None
                                     and len(self.results) >= self.max_hands):
                        break
                self.hand_no += 1
                deck, self.upcoming = self.upcoming, None
                self.current = self._new_hand(deck or self._new_deck(self.hand_no, self.first))
                out += self.current.start()
            out += self._shuffle_ahead()
        return out

    def forfeit(self, seat: int, hand_no: int | None = None,
                owed: int | None = None) -> HandResult | None:
        """Hand ``hand_no`` (by default the one in progress) ends because ``seat`` stalled,
        left it or cheated (every honest peer names the same seat on the same signed
        evidence): scored as lost by its team (in find-a-friend by the seat alone:
        `PublicHand.forfeit_result`), and the game's carry moves on as after any hand.
        If this peer finished that hand already (the
        message came here after every other seat had voted it missing), its result is
        replaced and the carry computed again from before it, so every peer ends the same.
        None if the hand had nothing to lose yet (nobody declares) or is not one of the
        last two.

        ``owed``: the seat's moves in the hand before the one every other seat voted
        missing (the verdict's, `Stalled.moves`). A peer may take that move late and play
        on, so whether the hand had anything to lose is judged where the move was
        missing (`TableHand.stake_from`), the same on every peer; None: as it stands here."""
        current = self.current
        if hand_no is None or hand_no == current.deck.config.hand:
            if current.phase in OVER or not _staked(current, seat, owed):
                return None
            try:
                res = current.public.record_forfeit(seat)
            except IllegalAction:
                return None
            self.played.append(current)
            self._end_hand(res)
            return res
        last = self.played[-1] if self.played else None
        if last is None or last.deck.config.hand != hand_no or last.phase != Phase.DONE \
                or not self.results:
            return None
        try:
            res = last.public.forfeit_result(seat)
        except IllegalAction:
            return None
        setup = last.setup  # the game as that hand began
        self.levels = list(setup.levels)
        self.first, self.starter, self.declarers = setup.first, setup.starter, setup.declarers
        self.winner, self.winners = None, ()
        self.results.pop()
        if not _staked(last, seat, owed):  # it had nothing to lose where the move was owed
            return None
        self._end_hand(res)
        return res

    def _end_hand(self, res: HandResult) -> None:
        self.results.append(res)
        self.declarers, self.starter, self.first, winners = after_hand(
            self.rules, self.levels, self.first, res)
        if winners:
            self.winners, self.winner = winners, game_winner(self.rules, res, winners)


def _staked(hand: TableHand, seat: int, owed: int | None) -> bool:
    """Whether ``hand`` had something to lose before ``seat``'s move number ``owed`` (None:
    as it stands)."""
    if owed is None:
        return True
    return hand.stake_from is not None and hand.stake_from[seat] <= owed
