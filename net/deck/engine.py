"""`Deck`: one peer's engine of the committed-shuffle deck, a state machine fed with frames.

No sockets, threads or clocks: ``receive(frame)`` checks and applies one signed frame
and returns the frames this peer must broadcast in answer; the table calls
``deal``, ``give_talon``, ``reveal``, ``bury`` and ``audit`` as the rules go on;
``tick(now)`` turns keys that stay unreleased past their deadline into a
`KeyTimeout` naming the seat. Every frame this peer sends is also fed back to
itself, so all peers process the same messages the same way.

Protocol (n seats, N = 54 * decks positions):

1. Nothing to agree on first: the card points derive from table and hand.
2. For each seat s in order: ``shuffle`` (s re-keys the deck with k_s and permutes it,
   publishes K_s = k_s*G and a non-interactive proof of exactly that, linear in N, sound
   to 2^-128: `shuffle_proof`, SHUFFLE.md). Its Fiat-Shamir challenges hash the whole
   statement (protocol, table, hand, seat, step, both decks, K) and every prover message,
   so the other seats need send nothing for it.
3. For each seat s in order: ``lock`` (s swaps k_s for a fresh key l_{s,p} on every
   position p, publishes L_{s,p} = l_{s,p}*G and a proof per position).
4. ``deal``: to give position p to its owner, every other seat releases l_{.,p}; each
   key is checked against L at once. Positions are drawn in order: position p goes to
   seat (first + p) % n; the talon positions stay locked until ``give_talon``.
5. ``reveal`` (a play, a declaration): the owner releases its own key; everyone decrypts
   and checks the claimed card, that the position is the owner's and is not played.
6. ``bury``: the starter names the positions it buries (they must be its own). With kitty
   theft, ``pass_kitty``: a later overcaller takes them (``take``, ``give``: `kitty`) and
   buries anew.
7. ``audit``: every seat releases all its keys; everyone decrypts the whole deck and
   checks the hand with the rules core; ``verdict``: one signed result per seat.

`Deck` is the one entry point; each part of the work is a collaborator with its own state
(none shares another's: a copy of the deck copies each part alone), in its own module:

- `chains.SeatChains`: each seat's frames in its order, applied or waiting (the views);
- `progress.Progress`: the phase and step, and where each kind of message belongs;
- `setup.SetupStage`: the shuffles (`shuffling`) and locks (`locking`), checked, and the
  work they give the runner (`background`);
- `dealing.Dealing`: owners, released keys and known cards (deal, plays, bury, talon);
- `closing.HandClose`: the audit keys and the verdicts; `inbox.TableInbox`: table messages;
- `own_secrets.OwnSecrets` and `outbox.Outbox`: this peer's secrets and message numbers;
- `bodies`: what each message body holds; `holdings.SeatLoads`: what a seat may make us hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Generic, TypeVar, overload

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tractor.net.table.messages import app_body

from ..codec import ShapeError
from .background import Runner
from .bodies import KINDS, check_shape, judged
from .chains import SeatChains
from .closing import HandClose
from .config import DeckConfig
from .dealing import Dealing
from .envelope import Envelope, open_frame, seal
from .errors import BadMessage, DeckError, KeyTimeout, followed_by
from .group import SecretStream, hash32
from .holdings import SeatLoads
from .inbox import TableInbox
from .kitty import KittyPasses
from .ledger import CheckLedger
from .locking import LockStep
from .outbox import Outbox
from .own_secrets import OwnSecrets
from .progress import DeckStep, Progress
from .setup import SetupStage
from .shuffling import ShuffleChain, card_points

T = TypeVar("T")



def _opened(config: DeckConfig, frame: bytes, verify: bool = True) -> Envelope:
    """``frame`` checked (`open_frame`), and a table message in it read by its shape at once
    (`net.table.messages`): a bad one is its seat's `BadMessage`, the signed frame its evidence.
    What is kept is the typed message, not the decoded map."""
    env = open_frame(frame, config.table, config.hand, list(config.public_keys), verify=verify)
    if env.header.kind != "app":
        return env
    try:
        return replace(env, body=app_body(config.size).read(env.body))
    except ShapeError as exc:
        error = BadMessage(env.seat, f"a malformed table message: {exc.reason}")
        error.frames = (frame,)
        raise error from None


class Shown(Generic[T]):
    """A read-only attribute of the `Deck` that is one of its collaborators' own, a value
    or a method (``get(deck)``): callers read the deck as they did before it was split."""

    def __init__(self, get: Callable[[Deck], T]) -> None:
        self._get = get

    @overload
    def __get__(self, deck: None, owner: type[Deck]) -> Shown[T]: ...

    @overload
    def __get__(self, deck: Deck, owner: type[Deck]) -> T: ...

    def __get__(self, deck: Deck | None, owner: type[Deck]) -> Shown[T] | T:
        return self if deck is None else self._get(deck)


class Deck:
    """One peer's deck engine (see the module docstring for the protocol and its parts).
    It holds its identity and passes each frame and move to the parts it concerns:
    `SeatChains` orders the frames, `Progress` says what is due, the `SetupStage`,
    `Dealing`, `HandClose` and `TableInbox` take them; `OwnSecrets` and the `Outbox` make
    this peer's moves."""

    def __init__(self, config: DeckConfig, seat: int, signing_key: Ed25519PrivateKey,
                 hand_seed: bytes) -> None:
        self.config = config
        self.me = seat
        self._key = signing_key
        n, size = config.seats, config.size
        self.context = hash32(b"tractor-deck", config.table, config.hand.to_bytes(8, "little"))
        # Secrets depend on table and hand too: a seed used twice still gives fresh keys.
        self._secrets = SecretStream(hash32(b"secrets", hand_seed, self.context))
        self.card_points = card_points(self.context, size)
        self._started = False  #: `start` was called: this peer makes its moves
        self._restoring = False  #: rebuilding from a journal, which holds what was sent
        self.watching = not 0 <= seat < config.seats  #: no seat's: it signs nothing (`net.watch`)
        self._progress = Progress(n)
        self._frames = SeatChains.empty(n)
        self._loads = SeatLoads.empty(n)  #: what each seat's applied frames hold here
        self._outbox = Outbox()
        self._setup = SetupStage(
            ShuffleChain(config.table, config.hand, seat, size, [list(self.card_points)]),
            LockStep.fresh(self.context, seat, n, self.card_points))
        self._own = OwnSecrets(self._secrets, seat, n, size)
        self._dealing = Dealing.fresh(config, seat, KittyPasses(seat, self.context, self._secrets))
        self._close = HandClose(n, size)
        self._inbox = TableInbox([0] * n)
        #: Proofs that passed here, now and before a crash (`GameSession` shares one).
        self.ledger = CheckLedger()

    def set_first(self, first: int) -> None:
        """Name the seat that draws position 0, once the hand before says which one. A deck
        made with ``first=None`` shuffles and locks meanwhile; the deal, and every message
        of the play, wait for it.

        >>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        >>> keys = [Ed25519PrivateKey.generate() for _ in range(4)]
        >>> cfg = DeckConfig(b"t" * 32, 1, tuple(k.public_key() for k in keys), first=None)
        >>> deck = Deck(cfg, 0, keys[0], bytes(32))
        >>> deck.owner[0] is None
        True
        >>> deck.set_first(2); deck.owner[:5]
        [2, 3, 0, 1, 2]
        """
        if self.config.first is None:
            self.config = self.config.with_first(first)
            self._dealing.draw([self.config.owner_by_deal(p) for p in range(self.config.size)])
        elif first != self.config.first:
            raise ValueError(f"the first drawer is seat {self.config.first} already")

    # --- the state, as the table, the referee and the tests read it ----------------------------

    @property
    def runner(self) -> Runner | None:
        """Runs the shuffles, the proofs and their checks off the protocol's thread (the next
        hand's deck, while this one is played); None: here, at once."""
        return self._setup.background.runner

    @runner.setter
    def runner(self, runner: Runner | None) -> None:
        self._setup.background.runner = runner

    # Read-only views of the collaborators' state (each the very object, not a copy: the
    # table pops the inbox), and of their methods.
    started = Shown(lambda deck: deck._started)  #: `start` was called
    #: The runner has work of this engine under way (`poll` once it is done).
    working = Shown(lambda deck: deck._setup.background.working)
    phase = Shown(lambda deck: deck._progress.phase)  #: the protocol's `DeckStep`
    step = Shown(lambda deck: deck._progress.step)  #: whose shuffle or lock is under way
    owner = Shown(lambda deck: deck._dealing.owner)
    keys = Shown(lambda deck: deck._dealing.keys)  #: position -> seat -> its released key
    cards = Shown(lambda deck: deck._dealing.cards)  #: position -> card, as known here
    played = Shown(lambda deck: deck._dealing.played)
    buried = Shown(lambda deck: deck._dealing.buried)
    starter = Shown(lambda deck: deck._dealing.starter)
    exchanger = Shown(lambda deck: deck._dealing.exchanger)  #: holds the kitty to bury
    burials = Shown(lambda deck: deck._dealing.burials)  #: every burial's positions
    kitty = Shown(lambda deck: deck._dealing.kitty)  #: the kitty's thefts (`KittyPasses`)
    reveals = Shown(lambda deck: deck._dealing.reveals)
    public = Shown(lambda deck: deck._dealing.public)  #: positions turned over for all
    inbox = Shown(lambda deck: deck._inbox.messages)  #: (seat, message, its number)
    audited = Shown(lambda deck: deck._close.audited)
    verdicts = Shown(lambda deck: deck._close.verdicts)
    decks = Shown(lambda deck: deck._setup.shuffles.decks)  #: card points, then each shuffle
    shuffle_keys = Shown(lambda deck: deck._setup.shuffles.keys)
    locks = Shown(lambda deck: deck._setup.locks.locks)  #: per seat: L_{s,p}
    lock_decks = Shown(lambda deck: deck._setup.locks.decks)
    final = Shown(lambda deck: deck._setup.locks.final)
    # Methods that are a collaborator's.
    shuffle_context = Shown(lambda deck: deck._setup.shuffles.context)
    locks_input = Shown(lambda deck: deck._setup.lock_input)
    owed = Shown(lambda deck: deck._dealing.owed)
    hand = Shown(lambda deck: deck._dealing.hand)
    is_shown = Shown(lambda deck: deck._dealing.is_shown)
    accepted = Shown(lambda deck: deck._frames.accepted)
    frames = Shown(lambda deck: deck._frames.frames)
    evidence = Shown(lambda deck: deck._frames.evidence)
    journaled_ahead = Shown(lambda deck: deck._outbox.ahead)
    # What the tests look into.
    _chains = Shown(lambda deck: deck._frames.chains)
    _pending = Shown(lambda deck: deck._frames.pending)
    _sent_seq = Shown(lambda deck: deck._outbox.sent_seq)
    _results = Shown(lambda deck: deck._setup.background.results)

    # --- my secrets (`OwnSecrets`) -------------------------------------------------------------

    _my_k = Shown(lambda deck: deck._own.shuffle_key(deck._setup.shuffles))
    _my_perm = Shown(lambda deck: deck._own.permutation(deck._setup.shuffles))

    def _lock_key(self, position: int) -> bytes:
        return self._own.lock_key(position, self._setup.shuffles, self._setup.locks)

    # --- sending -------------------------------------------------------------------------------

    def start(self) -> list[bytes]:
        """Begin: from now on this peer makes its moves (the first seat's shuffle at once;
        the others' when their turn comes, as frames arrive). Frames that arrived before,
        or came back from the journal (`load_journal`), are applied now."""
        self._started = True
        return self.poll()

    def poll(self) -> list[bytes]:
        """Go on after the `runner` finished a job: this peer's move it computed, the
        messages whose checks it ran. Returns the frames to broadcast, as `receive` does."""
        return followed_by(self._act(), self._drain)

    def _send(self, kind: str, body: dict[str, Any]) -> list[bytes]:
        """Sign, number and apply this peer's message; the frames to broadcast. Resuming,
        the journaled frame of the move is sent again instead (`Outbox`)."""
        if self._restoring or self.watching:
            return []  # the journal holds what this peer sent before the crash
        replayed: list[bytes] = []
        while not (kind == "app" and "chat" in body.get("data", {})):
            chat = self._outbox.take_chat()
            if chat is None:
                break
            replayed = followed_by([*replayed, chat], partial(self.receive, chat))
        if replayed:
            return followed_by(replayed, partial(self._send, kind, body))
        journaled = self._outbox.take(kind)
        if journaled is not None:
            return followed_by([journaled], partial(self.receive, journaled))
        header = self._outbox.next_header(self.config.table, self.config.hand, self.me, kind,
                                          self._frames.views())
        frame = seal(header, body, self._key)
        try:
            return [frame, *self.receive(frame)]
        except DeckError as exc:
            if exc.seat == self.me and not self._frames.holds(self.me, header.seq, frame):
                self._outbox.refused(header.seq)  # its own engine refused it: never sent
                raise ValueError(f"this move is refused: {exc.reason}") from exc
            exc.outgoing = [frame, *exc.outgoing]  # another seat's buffered message failed
            raise

    # --- receiving -----------------------------------------------------------------------------

    def receive(self, frame: bytes) -> list[bytes]:
        """Check and apply one frame; returns this peer's frames to broadcast in answer.

        Raises `FrameError` (malformed, unsigned ...; `NoRoom`: not yet) or a `DeckError`
        naming the seat to blame; the state is unchanged by a refused frame. A frame whose
        signature was checked here before a crash (`CheckLedger`) is not checked again.
        """
        env = _opened(self.config, frame, verify=not self.ledger.signature_known(frame))
        self._frames.admit(env, KINDS)
        return self._drain()

    def _drain(self) -> list[bytes]:
        """Apply every waiting frame whose turn has come (`SeatChains.drain`)."""
        return self._frames.drain(self._due, self._apply, self._act)

    def _due(self, env: Envelope) -> bool:
        """Whether ``env`` is to be applied now (False: later); out of turn, it is refused.
        Another seat's shuffle or lock is due once its checks are done (`SetupStage`)."""
        kind, seat = env.header.kind, env.seat
        # Nothing of the play is judged before the messages it builds on (`ready_for`).
        when = self._progress.when(kind, seat,
                                   partial(self._dealing.ready_for, kind, seat, env.body))
        if when < 0:
            raise BadMessage(seat, f"a {kind} message out of turn")
        if when > 0 or kind not in ("shuffle", "lock") or seat == self.me:
            return when == 0
        return self._setup.checked(env, self.step, self.ledger.proofs_known(env.frame),
                                   self._restoring)

    def _apply(self, env: Envelope) -> None:
        kind, seat = env.header.kind, env.seat
        check_shape(env)
        self._loads.check(env)
        judged(seat, kind, partial(self._take, kind, seat, env.body, env.header.seq))
        self._loads.add(env)
        self.ledger.accepted(env.frame, proofs=kind in ("shuffle", "lock") and seat != self.me)

    def _take(self, kind: str, seat: int, body: dict[str, Any], seq: int) -> None:
        """Apply ``seat``'s message ``seq`` of ``kind`` to the collaborator it is about."""
        if kind == "shuffle":
            self._setup.apply_shuffle(seat, body, seq, self.step)
            self._progress.shuffled(seat)
        elif kind == "lock":
            self._setup.apply_lock(seat, body, seq)
            self._progress.locked(seat)
        elif kind == "audit":
            if self._close.on_audit(seat, body, seq, self.phase == DeckStep.READY, self._dealing,
                                    self._setup.locks):
                self._progress.opened()
        elif kind == "verdict":
            self._close.on_verdict(seat, body, self.transcript)
        elif kind == "app":
            self._inbox.on_app(seat, body, seq)
        else:
            self._dealing.on_message(kind, seat, body, seq, self._setup.locks, self._lock_key)

    # --- my protocol moves ---------------------------------------------------------------------

    def _act(self) -> list[bytes]:
        """Send what the protocol asks of this peer now (each message once)."""
        me, step = self.me, self.step
        if not self._started or self._restoring or self.watching:
            return []  # not begun; or rebuilding from the journal, which holds what was sent
        if self._frames.pending[me]:
            return []  # a message of ours is still to be applied: it may answer this step
        done = {DeckStep.SHUFFLE: len(self.shuffle_keys), DeckStep.LOCK: len(self.locks)}
        if step == me and done.get(self.phase) == me:  # this peer's shuffle or lock is due
            move = self._setup.my_move(str(self.phase), self._own, self._secrets,
                                       self._outbox.journaled, self._restoring)
        else:  # a kitty theft's request or answer (`kitty`), if this peer owes one
            move = self._dealing.kitty.my_move(self.keys, self._setup.locks, self._lock_key)
        return self._send(*move) if move is not None else []

    def deal(self, positions: Sequence[int], now: float = 0.0) -> list[bytes]:
        """Give ``positions`` to their owners: release this peer's keys for the ones it does
        not own. Every peer calls it with the same positions (the table paces the deal);
        keys still missing after ``config.key_timeout`` make `tick` raise `KeyTimeout`."""
        if self.phase != DeckStep.READY:
            raise RuntimeError("the deck is not shuffled and locked yet")
        mine = self._dealing.to_release(positions, now + self.config.key_timeout)
        if not mine or self.watching:  # (a watcher holds no key: `_lock_key` is not its own)
            return []
        return self._send("deal", {"positions": mine,
                                   "keys": [self._lock_key(p) for p in mine]})

    def give_talon(self, starter: int, now: float = 0.0) -> list[bytes]:
        """The talon positions go to ``starter``: other peers release their keys for them."""
        talon = self._dealing.give_talon(starter)
        out = self.deal(talon, now) if talon else []
        for p in talon:
            self._dealing.learn(p, self._setup.locks, self._lock_key)
        # Talon keys (and a bury) that arrived before this call can be applied now.
        return out + self._drain()

    def reveal(self, positions: Sequence[int], purpose: str = "play") -> list[bytes]:
        """Show own cards: ``purpose`` "play" (the cards leave the hand) or "show" (a
        declaration: they stay)."""
        self._dealing.check_reveal(positions, purpose)
        shown = partial(self._dealing.kitty.secret, own=self._lock_key)
        return self._send("reveal", {"positions": list(positions), "purpose": purpose,
                                     "keys": [shown(p) for p in positions],
                                     "cards": [self.cards[p] for p in positions]})

    def bury(self, positions: Sequence[int]) -> list[bytes]:
        """The seat holding the kitty buries these positions (its own, unplayed)."""
        self._dealing.check_bury(positions)
        return self._send("bury", {"positions": list(positions)})

    def pass_kitty(self, thief: int) -> list[bytes]:
        """Kitty theft: every peer calls it once the table judged ``thief``'s overcall; the
        buried positions pass to it (its requests now; the burier answers them)."""
        dealing = self._dealing
        assert dealing.exchanger is not None
        dealing.kitty.begin(thief, dealing.exchanger, dealing.buried)
        return self.poll()

    def open_public(self, positions: Sequence[int]) -> list[bytes]:
        """Turn positions nobody owns (the talon) face up: every peer releases its keys for
        them, publicly; each peer calls it with the same positions."""
        if self.phase != DeckStep.READY:
            raise RuntimeError("the deck is not shuffled and locked yet")
        self._dealing.check_unowned(positions)
        if self.watching:
            return []
        return self._send("open", {"positions": list(positions),
                                   "keys": [self._lock_key(p) for p in positions]})

    def post(self, data: dict[str, Any]) -> list[bytes]:
        """Send a table message (a declaration window, a play ...), signed and chained like
        every deck message; it reaches every peer's `inbox`."""
        return self._send("app", {"data": data})

    # --- the end-of-hand audit (`HandClose`) ---------------------------------------------------

    def audit(self, now: float = 0.0) -> list[bytes]:
        """Release every key of this peer so everyone can check the whole hand. Seats that
        have not done the same by ``now + config.key_timeout`` make `tick` raise."""
        if self.phase != DeckStep.READY:
            raise RuntimeError("the deck is not shuffled and locked yet")
        self._close.begin(now + self.config.key_timeout)
        if self.me in self.audited or self.watching:
            return []
        size = self.config.size
        return self._send("audit", {"keys": [self._lock_key(p) for p in range(size)]})

    def deck_order(self) -> list[int]:
        """The physical card at every position (after the audit)."""
        if self.phase != DeckStep.DONE:
            raise RuntimeError("the deck is only open after the audit")
        return [self.cards[p] for p in range(self.config.size)]

    def transcript(self) -> bytes:
        """The hash of the whole hand as this peer holds it (after the audit): every seat's
        message chain up to and including its audit keys, the last message the hand's
        result depends on. Every verdict signs it, so a result counts only where every seat
        signed the same hand."""
        if self.phase != DeckStep.DONE:
            raise RuntimeError("the transcript is complete only after the audit")
        return self._close.transcript(self.context, self._frames.chains)

    def verdict(self, violations: Sequence[tuple[int, int, str]]) -> list[bytes]:
        """Sign this peer's audit result: (seat, trick, reason) for each broken rule (the
        first 64: enough to void the hand), and the `transcript` it judged."""
        return self._send("verdict", {"violations": [list(v) for v in violations[:64]],
                                      "transcript": self.transcript()})

    # --- time and what this peer holds ---------------------------------------------------------

    def waiting_for(self) -> list[int]:
        """Seats whose next set-up message this peer is waiting for (empty while dealing and
        playing; the seats missing from the audit once it began): what a table's stall timer
        watches."""
        if self._progress.setting_up:
            # A message that came and is being checked (by the runner) is not owed: this
            # peer waits on its own worker then, which is no seat's fault.
            return [] if self._frames.arrived(self.step) and self.working else [self.step]
        return self._close.missing() if self.phase == DeckStep.READY else []

    def tick(self, now: float) -> None:
        """Raise `KeyTimeout` for the first seat whose keys are overdue at time ``now``."""
        late = self.overdue(now)
        if late:
            seat, positions = min(late.items())
            raise KeyTimeout(seat, positions)

    def overdue(self, now: float) -> dict[int, list[int]]:
        """Seat -> the positions whose keys it owes past their deadline at time ``now``."""
        out = self._dealing.overdue(now)
        if self.phase == DeckStep.READY:
            self._close.add_overdue(out, now)
        return out

    def mine(self) -> list[bytes]:
        """This peer's own accepted frames of this hand, in order (number ``i`` at ``i``)."""
        return [] if self.watching else [e.frame for e in self._frames.chains[self.me].frames]

    def check_evidence(self, frame: bytes) -> None:
        """Raise `Equivocation` if ``frame`` is a validly signed message that differs from
        the one this peer holds for the same seat and number."""
        self._frames.check_equivocation(open_frame(
            frame, self.config.table, self.config.hand, list(self.config.public_keys)))

    # --- resuming after a crash ----------------------------------------------------------------

    def load_journal(self, journal: Sequence[bytes]) -> None:
        """Resume after a crash: take back every frame of this hand from the journal before
        `start`. Other seats' frames wait for their turn as usual; this peer's own moves come
        again as the hand is replayed and reuse their journaled frames instead of signing new
        ones, so nobody ever sees two versions of a message."""
        if self._outbox.sent_seq or self._frames.started():
            raise RuntimeError("load the journal into a fresh engine, before start")
        for frame in journal:
            env = _opened(self.config, frame, verify=not self.ledger.signature_known(frame))
            if env.seat == self.me:
                self._outbox.remember(frame, env)  # for the moves again
            else:
                self._frames.hold(env, from_journal=True)

    @classmethod
    def restore(cls, config: DeckConfig, seat: int, signing_key: Ed25519PrivateKey,
                hand_seed: bytes, journal: Sequence[bytes],
                starter: int | None = None) -> tuple[Deck, list[bytes]]:
        """Rebuild a peer after a crash from its hand seed and its journal of frames (any
        order). ``starter`` is the talon's owner if it was given before the crash (a kitty
        theft is the table's to judge again: such a hand resumes by `load_journal`, as a
        `GameSession` does). Returns the engine and the protocol frames it still owes."""
        deck = cls(config, seat, signing_key, hand_seed)
        deck._restoring = True
        envs = [_opened(config, frame) for frame in journal]
        for env in envs:
            deck._frames.hold(env)
        if starter is not None:
            deck._dealing.give_talon(starter)
        deck._drain()
        deck._restoring = False
        deck._outbox.sent_seq = sum(env.seat == seat for env in envs)
        if deck._frames.pending[seat]:
            raise RuntimeError("the journal does not fit this seat's hand seed")
        return deck, deck.start()
