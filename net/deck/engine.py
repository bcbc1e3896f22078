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
6. ``bury``: the starter names the positions it buries (they must be its own).
7. ``audit``: every seat releases all its keys; everyone decrypts the whole deck and
   checks the hand with the rules core; ``verdict``: one signed result per seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tractor.net.table.messages import Chat, TableMessage, app_body

from ..codec import ShapeError
from . import lock_proof, shuffle_proof
from .envelope import PROTOCOL, Envelope, Header, chain_digest, open_frame, seal
from .errors import (
    BadMessage,
    CheatDetected,
    DeckError,
    Equivocation,
    KeyTimeout,
    Replay,
    TranscriptSplit,
    ViewMismatch,
    followed_by,
)
from .group import (
    POINT_BYTES,
    GroupError,
    SecretStream,
    base,
    check_point,
    check_scalar,
    hash32,
    inv,
    mul,
    point_from_hash,
    smul,
)
from .holdings import MAX_APP_PER_SEAT, SeatLoads
from .ledger import CheckLedger

SHUFFLE, LOCK, READY, DONE = ("shuffle", "lock", "ready", "done")
KINDS = frozenset({"shuffle", "lock", "deal", "reveal", "bury", "audit", "verdict", "open",
                   "app"})
MAX_INBOX = 4096  #: table messages kept for the table to read
MAX_VIEW_COUNT = 1 << 20
_BODY_KEYS = {
    "shuffle": {"deck", "key", "proof", "input"},
    "lock": {"deck", "locks", "proofs", "input"}, "deal": {"positions", "keys"},
    "reveal": {"positions", "purpose", "keys", "cards"}, "bury": {"positions"},
    "audit": {"keys"}, "verdict": {"violations", "transcript"}, "open": {"positions", "keys"},
    "app": {"data"},
}
ZERO = bytes(32)

#: Where a deck engine runs its heavy work (shuffles, proofs and their checks) when it is
#: not to hold up the protocol's thread: ``runner(job, done)`` calls ``job()`` somewhere (a
#: worker thread) and later ``done(result)`` on the protocol's thread. ``job`` never raises:
#: it returns the exception it met. The engine never sees a thread (`Deck.runner`).
Runner = Callable[[Callable[[], Any], Callable[[Any], None]], None]


@dataclass(frozen=True)
class DeckConfig:
    """What every peer of a hand agrees on before it starts."""

    table: bytes
    hand: int
    public_keys: tuple[Ed25519PublicKey, ...]
    decks: int = 2
    hand_size: int = 25
    #: The seat that draws position 0; None while the hand before is still played (the
    #: deck is shuffled and locked meanwhile, `Deck.set_first` names it).
    first: int | None = 0
    key_timeout: float = 30.0

    @property
    def seats(self) -> int:
        return len(self.public_keys)

    @property
    def size(self) -> int:
        return 54 * self.decks

    @property
    def dealt(self) -> int:
        """Positions dealt to the seats; the rest is the talon."""
        return self.seats * self.hand_size

    def owner_by_deal(self, position: int) -> int | None:
        if position < self.dealt and self.first is not None:
            return (self.first + position) % self.seats
        return None


def shuffle_context(table: bytes, hand: int, seat: int, step: int) -> bytes:
    """What a shuffle proof's challenges are bound to besides its decks and key: the
    protocol version, table, hand, the prover's seat and the shuffle step (the same number
    in this protocol, seat s makes step s, but both are named so neither can be swapped)."""
    return hash32(b"shuffle-statement", PROTOCOL.encode(), table, hand.to_bytes(8, "little"),
                  seat.to_bytes(2, "little"), step.to_bytes(2, "little"))


@dataclass
class Reveal:
    """A card shown by its owner: for a play, a declaration or the audit."""

    seat: int
    position: int
    card: int  #: physical card id (face = card % 54)
    purpose: str
    seq: int = -1  #: the owner's message number (orders it against its table messages)


@dataclass
class _Chain:
    frames: list[Envelope] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=lambda: [ZERO])


@dataclass
class _Work:
    """One job given to the runner: its result once done."""

    done: bool = False
    value: Any = None

    def finish(self, value: Any) -> None:
        self.done, self.value = True, value


def _returning_errors(job: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return job()
        except Exception as exc:  # raised again on the protocol's thread (`_background`)
            return exc
    return run


def _lock_key(secrets: SecretStream, binding: str, position: int) -> bytes:
    return secrets.scalar("lock-key", binding, position)


def _judged(seat: int, kind: str, check: Callable[[], Any]) -> Any:
    """``check()`` of ``seat``'s ``kind`` message; what a malformed body makes it raise is
    that seat's `BadMessage`."""
    try:
        return check()
    except DeckError:
        raise
    except (GroupError, KeyError, TypeError, IndexError, ValueError) as exc:
        raise BadMessage(seat, f"malformed {kind} message: {exc!r:.80}") from exc


def _is_chat(env: Envelope) -> bool:
    return env.header.kind == "app" and isinstance(env.body["data"], Chat)


def _opened(config: DeckConfig, frame: bytes, verify: bool = True) -> Envelope:
    """``frame`` checked (`open_frame`), and a table message in it read by its shape at once
    (`table_messages`): a bad one is its seat's `BadMessage`, the signed frame its evidence.
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


class Deck:
    """One peer's deck engine (see the module docstring for the protocol)."""

    def __init__(self, config: DeckConfig, seat: int, signing_key: Ed25519PrivateKey,
                 hand_seed: bytes) -> None:
        self.config = config
        self.me = seat
        self._key = signing_key
        n, size = config.seats, config.size
        self.context = hash32(b"tractor-deck", config.table, config.hand.to_bytes(8, "little"))
        # Secrets depend on table and hand too: a seed used twice still gives fresh keys.
        self._secrets = SecretStream(hash32(b"secrets", hand_seed, self.context))
        #: Card point of every physical card: nobody knows relations between them.
        self.card_points = [point_from_hash(b"card", self.context, p.to_bytes(2, "little"))
                            for p in range(size)]
        self._card_of_point = {pt: p for p, pt in enumerate(self.card_points)}
        if len(self._card_of_point) != size:
            raise RuntimeError("card points collide")  # never: 2^-200
        self.phase = SHUFFLE
        self.step = 0  #: the seat whose shuffle or lock is under way
        self._started = False  #: `start` was called: this peer makes its moves
        self._chains = [_Chain() for _ in range(n)]
        self._pending: list[dict[int, Envelope]] = [{} for _ in range(n)]
        #: Numbers of other seats' frames taken back from the journal (`SeatLoads.make_room`).
        self._loaded: list[set[int]] = [set() for _ in range(n)]
        self._loads = SeatLoads.empty(n)  #: what each seat's applied frames hold here
        self._view_checks: dict[tuple[int, int], tuple[int, bytes]] = {}
        self._sent_seq = 0
        self._restoring = False
        #: Resuming: own frames from the journal by number, with their checked envelopes.
        self._journal_frames: dict[int, tuple[bytes, Envelope]] = {}
        # Shuffle stage.
        self.decks: list[list[bytes]] = [list(self.card_points)]
        self.shuffle_keys: list[bytes] = []
        # Lock stage and after.
        self.locks: list[list[bytes]] = []  # per seat: L_{s,p}
        self.lock_decks: list[list[bytes]] = []  # the deck after each seat's lock
        self.final: list[bytes] = []
        self.keys: list[dict[int, bytes]] = [{} for _ in range(size)]  # position -> seat -> l
        self.owner: list[int | None] = [config.owner_by_deal(p) for p in range(size)]
        self.cards: dict[int, int] = {}  # position -> physical card, as far as known here
        self.played: set[int] = set()
        self.buried: list[int] = []
        self.starter: int | None = None
        self.reveals: list[Reveal] = []
        self.audited: set[int] = set()
        self._audit_seq: dict[int, int] = {}  #: seat -> the number of its audit message
        self.verdicts: dict[int, dict[str, Any]] = {}
        #: Table messages (seat, data, message number) in the order this peer accepted them;
        #: per seat they keep the sender's order. The table pops them.
        self.inbox: list[tuple[int, TableMessage, int]] = []  # (seat, message, its seq)
        self._applying = -1
        self.public: set[int] = set()  #: positions opened to everyone (a talon turned over)
        self._app_count = [0] * n
        self._deadlines: dict[int, float] = {}
        self._audit_deadline: float | None = None
        self._bindings: dict[str, str] = {}
        #: Runs the shuffles, the proofs and their checks off the protocol's thread (the next
        #: hand's deck, while this one is played); None: here, at once.
        self.runner: Runner | None = None
        self._work: dict[tuple[Any, ...], _Work] = {}
        #: Checked shuffles and locks, by (seat, message number), for `_apply` to take.
        self._results: dict[tuple[int, int], Any] = {}
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
        if self.config.first is not None:
            if first != self.config.first:
                raise ValueError(f"the first drawer is seat {self.config.first} already")
            return
        if not 0 <= first < self.config.seats:
            raise ValueError(f"no seat {first} at a table of {self.config.seats}")
        self.config = replace(self.config, first=first)
        self.owner = [self.config.owner_by_deal(p) for p in range(self.config.size)]

    def _background(self, key: tuple[Any, ...], job: Callable[[], Any]) -> tuple[bool, Any]:
        """``job``'s result as (True, result), or (False, None) while the `runner` works on
        it (it is started on the first call; a later call with the same key takes the
        result). Without a runner, or rebuilding from a journal, it runs here at once. A
        job's exception is raised here, on the protocol's thread."""
        if self.runner is None or self._restoring:
            return True, job()
        work = self._work.get(key)
        if work is None:
            work = self._work[key] = _Work()
            self.runner(_returning_errors(job), work.finish)
        if not work.done:
            return False, None
        del self._work[key]
        if isinstance(work.value, BaseException):
            raise work.value
        return True, work.value

    @property
    def started(self) -> bool:
        """Whether `start` was called (this peer makes its moves)."""
        return self._started

    @property
    def working(self) -> bool:
        """Whether the runner has work of this engine under way (`poll` once it is done)."""
        return any(not w.done for w in self._work.values())

    # --- my secrets --------------------------------------------------------------------------

    # Every secret is bound to the transcript it is used on: run a hand again on other inputs
    # (a crashed peer that starts over, a seed used twice) and every secret is new, so no
    # nonce is ever used twice on different statements (two proofs with one nonce and two
    # challenges would give away the shuffle key and permutation, or a lock key). On the
    # same statement the proofs are the same bytes: nothing new is learned.

    def _binding(self, what: str) -> str:
        if what not in self._bindings:
            ready = (len(self.decks) > self.me
                     if what == "shuffle" else len(self.shuffle_keys) == self.config.seats
                     and len(self.lock_decks) >= self.me)
            if not ready:
                raise RuntimeError(f"the {what} secrets are not due yet")
            if what == "shuffle":
                data = hash32(b"bind-shuffle", shuffle_proof.deck_hash(self.decks[self.me]))
            else:
                data = hash32(b"bind-lock", shuffle_proof.deck_hash(self._lock_input(self.me)),
                              *self.shuffle_keys)
            self._bindings[what] = data.hex()
        return self._bindings[what]

    @property
    def _my_k(self) -> bytes:
        return self._secrets.scalar("shuffle-key", self._binding("shuffle"))

    @property
    def _my_perm(self) -> list[int]:
        return self._secrets.permutation(self.config.size, "shuffle-perm",
                                         self._binding("shuffle"))

    def _lock_key(self, position: int) -> bytes:
        return _lock_key(self._secrets, self._binding("lock"), position)

    def _lock_input(self, seat: int) -> list[bytes]:
        """The deck seat ``seat`` locks: the last shuffle's, or the previous seat's lock."""
        return self.lock_decks[seat - 1] if seat > 0 else self.decks[-1]

    # --- sending -----------------------------------------------------------------------------

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
        if self._restoring:
            return []  # the journal holds what this peer sent before the crash
        replayed: list[bytes] = []
        while not (kind == "app" and "chat" in body.get("data", {})):
            # A chat line sent before the crash is not said again: take it back from the
            # journal so the next move finds its own frame.
            entry = self._journal_frames.get(self._sent_seq)
            if entry is None or not _is_chat(entry[1]):
                break
            del self._journal_frames[self._sent_seq]
            self._sent_seq += 1
            replayed = followed_by([*replayed, entry[0]], partial(self.receive, entry[0]))
        if replayed:
            return followed_by(replayed, partial(self._send, kind, body))
        entry = self._journal_frames.pop(self._sent_seq, None)
        if entry is not None:
            # Resuming: this move was made before the crash; use its frame from the journal
            # (sent again: a peer that missed it needs it, the others ignore a replay).
            journaled, kind_sent = entry[0], entry[1].header.kind
            if kind_sent != kind:
                raise RuntimeError(f"the journal has a {kind_sent} where a {kind} is due")
            self._sent_seq += 1
            return followed_by([journaled], partial(self.receive, journaled))
        views = tuple((len(c.frames), c.hashes[-1]) for c in self._chains)
        header = Header(self.config.table, self.config.hand, self.me, self._sent_seq, kind, views)
        frame = seal(header, body, self._key)
        seq = self._sent_seq
        self._sent_seq += 1
        try:
            return [frame, *self.receive(frame)]
        except DeckError as exc:
            mine = self._chains[self.me].frames
            if exc.seat == self.me and (len(mine) <= seq or mine[seq].frame != frame) \
                    and seq not in self._pending[self.me]:
                # This peer's own engine refused it: it never leaves, its number is free.
                self._sent_seq = seq
                raise ValueError(f"this move is refused: {exc.reason}") from exc
            exc.outgoing = [frame, *exc.outgoing]  # another seat's buffered message failed
            raise

    # --- receiving ---------------------------------------------------------------------------

    def receive(self, frame: bytes) -> list[bytes]:
        """Check and apply one frame; returns this peer's frames to broadcast in answer.

        Raises `FrameError` (malformed, unsigned ...; `NoRoom`: not yet) or a `DeckError`
        naming the seat to blame; the state is unchanged by a refused frame. A frame whose
        signature was checked here before a crash (`CheckLedger`) is not checked again.
        """
        env = _opened(self.config, frame, verify=not self.ledger.signature_known(frame))
        seat, seq = env.seat, env.header.seq
        chain = self._chains[seat]
        known = chain.frames[seq] if seq < len(chain.frames) else self._pending[seat].get(seq)
        if known is not None:
            if known.content == env.content:
                raise Replay(seat, f"message {seq} was already received")
            exc = Equivocation(seat, f"signed two different messages number {seq}")
            exc.frames = (known.frame, env.frame)
            raise exc
        if env.header.kind not in KINDS:
            raise BadMessage(seat, f"unknown message kind {env.header.kind!r:.30}")
        SeatLoads.make_room(env, self._pending[seat], self._loaded[seat], len(chain.frames))
        self._pending[seat][seq] = env
        return self._drain()

    def _drain(self) -> list[bytes]:
        """Apply every buffered message whose turn has come. A refused message is dropped
        (its sender's later messages wait for a valid one) and the run goes on; the first
        refusal is raised at the end, carrying the frames produced meanwhile."""
        out: list[bytes] = []
        errors: list[DeckError] = []
        progress = True
        while progress:
            progress = False
            for seat in range(self.config.seats):
                chain = self._chains[seat]
                env = self._pending[seat].get(len(chain.frames))
                if env is None:
                    continue
                try:
                    when = self._when(env)
                    if when > 0:
                        continue  # for a later step of the protocol: wait
                    if when < 0:
                        raise BadMessage(seat, f"a {env.header.kind} message out of turn")
                    if not self._checked(env):
                        continue  # its proofs are being checked by the runner
                    self._apply(env)
                except DeckError as exc:
                    del self._pending[seat][env.header.seq]
                    if exc.seat == seat and not exc.frames:
                        exc.frames = (env.frame,)  # its signed message shows it
                    errors.append(exc)
                    continue
                del self._pending[seat][env.header.seq]
                chain.frames.append(env)
                chain.hashes.append(chain_digest(chain.hashes[-1], env.content))
                for mismatch in self._check_views(env):
                    if mismatch.seat == seat:
                        mismatch.frames = (env.frame,)  # the reporter signed that view
                    errors.append(mismatch)
                try:
                    out += self._act()
                except DeckError as exc:  # raised by this peer's own frame's processing
                    out += exc.outgoing
                    errors += [exc, *exc.also]
                progress = True
        if errors:
            first = errors[0]
            first.outgoing = out
            first.also = errors[1:]
            raise first
        return out

    def _check_views(self, env: Envelope) -> list[DeckError]:
        """Compare the sender's view of every chain with ours, now or once we catch up. Only
        the latest view per (reporter, chain) waits: a chain that split earlier differs
        later too."""
        for j, (count, digest) in enumerate(env.header.views):
            if count > MAX_VIEW_COUNT:
                return [BadMessage(env.seat, "impossible view count")]
            self._view_checks[(env.seat, j)] = (count, digest)
        found: list[DeckError] = []
        for (reporter, j), (count, digest) in list(self._view_checks.items()):
            hashes = self._chains[j].hashes
            if count < len(hashes):
                del self._view_checks[(reporter, j)]
                if hashes[count] != digest:
                    found.append(ViewMismatch(reporter, j, count))
        return found

    # --- phase logic -------------------------------------------------------------------------

    def _now(self) -> tuple[int, ...]:
        """Where the protocol stands, comparable with `_slot`."""
        p, s = self.phase, self.step
        return {SHUFFLE: (1, s), LOCK: (2, s), READY: (3,), DONE: (4,)}[p]

    def _slot(self, env: Envelope) -> tuple[int, ...]:
        """Where a message belongs in the protocol (its sender's next message of that kind)."""
        kind, seat = env.header.kind, env.seat
        if kind == "shuffle":
            return (1, seat)
        if kind == "lock":
            return (2, seat)
        if kind == "verdict":
            return (4,)
        if kind == "app" and self.phase in (READY, DONE):
            return self._now()
        return (3,)

    def _when(self, env: Envelope) -> int:
        """-1: too late (out of turn), 0: now, 1: later."""
        slot, now = self._slot(env), self._now()
        if slot != now:
            return 1 if slot > now else -1
        if slot == (3,):
            # Nothing of the play is judged before the first drawer is known: who owns a
            # position decides whether a deal, a reveal or a turned-over card is right.
            return 0 if self.config.first is not None and self._ready_for(env) else 1
        return 0

    def _ready_for(self, env: Envelope) -> bool:
        """Whether a play-phase message has what it needs here (keys dealt, talon given);
        the network may deliver it before the messages it builds on."""
        kind, body = env.header.kind, env.body
        raw = body.get("positions")
        positions = [p for p in raw if type(p) is int and 0 <= p < self.config.size] if (
            isinstance(raw, list)) else []
        if kind == "deal":
            return all(self.owner[p] is not None for p in positions)
        if kind == "reveal":
            for p in positions:
                if self.owner[p] is None:
                    return False
                if self.owner[p] == env.seat and any(
                        s not in self.keys[p] for s in range(self.config.seats)
                        if s != env.seat):
                    return False
            return True
        if kind == "bury":
            return self.starter is not None
        return True

    def _apply(self, env: Envelope) -> None:
        kind, seat, body = env.header.kind, env.seat, env.body
        self._check_shape(env)
        self._loads.check(env)
        handler = getattr(self, f"_on_{kind}")
        self._applying = env.header.seq  # stamps reveals and table messages with it
        try:
            _judged(seat, kind, lambda: handler(seat, body))
        finally:
            self._applying = -1
        self._loads.add(env)
        self.ledger.accepted(env.frame, proofs=kind in (SHUFFLE, LOCK) and seat != self.me)

    def _check_shape(self, env: Envelope) -> None:
        kind = env.header.kind
        if set(env.body) != _BODY_KEYS[kind]:
            raise BadMessage(env.seat, f"a {kind} message holds exactly "
                                       f"{sorted(_BODY_KEYS[kind])}")

    def _checked(self, env: Envelope) -> bool:
        """Whether another seat's shuffle or lock, whose turn has come, is checked (its
        points and proofs: the heavy part, done by the `runner` if there is one; the
        result waits in ``_results`` for `_apply`). Other messages need no such check; one
        whose proofs passed here before a crash is checked at once, without them."""
        kind, seat = env.header.kind, env.seat
        if kind not in (SHUFFLE, LOCK) or seat == self.me:
            return True
        vouched = self._vouched(env)
        if self.runner is None and not vouched:
            return True  # `_apply` checks it
        self._check_shape(env)
        job: Callable[[], Any] = (
            partial(self._check_shuffle, seat, env.body, self.decks[-1], self.step, vouched)
            if kind == SHUFFLE else
            partial(self._check_lock, seat, env.body, self.locks_input(), self.shuffle_keys[seat],
                    vouched))
        ready, result = (True, _judged(seat, kind, job)) if vouched else self._background(
            ("check", seat, env.header.seq), partial(_judged, seat, kind, job))
        if ready:
            self._results[(seat, env.header.seq)] = result
        return ready

    def _vouched(self, env: Envelope) -> bool:
        """Whether ``env``'s proofs passed here before a crash (`CheckLedger`)."""
        return env.header.kind in (SHUFFLE, LOCK) and self.ledger.proofs_known(env.frame)

    def _points(self, seat: int, values: object, count: int, what: str,
                vouched: bool = False) -> list[bytes]:
        if not isinstance(values, list) or len(values) != count:
            raise BadMessage(seat, f"{what}: expected {count} points")
        if (seat == self.me or vouched) and all(type(v) is bytes and len(v) == POINT_BYTES
                                                for v in values):
            # This peer's own points were made here (its frames carry its signature, also
            # from the journal), and vouched ones were checked here before a crash: the
            # subgroup check, a scalar multiplication each, is for the other seats' points
            # not yet checked, as proof verification is.
            return list(values)
        try:
            return [check_point(v) for v in values]
        except GroupError as exc:
            raise CheatDetected(seat, f"{what}: {exc}") from exc

    def _same_transcript(self, seat: int, claimed: object, ours: bytes, what: str) -> None:
        if claimed != ours:
            raise TranscriptSplit(seat, f"its {what} differs from this peer's: some seat sent "
                                        "different messages to different peers (compare "
                                        "evidence to find which)")

    def shuffle_context(self, seat: int, step: int) -> bytes:
        return shuffle_context(self.config.table, self.config.hand, seat, step)

    def _on_shuffle(self, seat: int, body: dict[str, Any]) -> None:
        checked = self._results.pop((seat, self._applying), None)
        deck, key = checked or self._check_shuffle(seat, body, self.decks[-1], self.step)
        self.decks.append(deck)
        self.shuffle_keys.append(key)
        if seat + 1 < self.config.seats:
            self.step = seat + 1
        else:
            self.phase, self.step = LOCK, 0

    def _check_shuffle(self, seat: int, body: dict[str, Any], src: list[bytes],
                       step: int, vouched: bool = False) -> tuple[list[bytes], bytes]:
        """The shuffled deck and key of ``seat``'s shuffle of ``src``, checked with its
        proof (not run again when ``vouched``: it passed here before a crash). Reads
        nothing that changes (the runner may call it in another thread)."""
        self._same_transcript(seat, body["input"], shuffle_proof.deck_hash(src), "input deck")
        size = self.config.size
        deck = self._points(seat, body["deck"], size, "shuffled deck", vouched)
        key = self._points(seat, [body["key"]], 1, "shuffle key", vouched)[0]
        try:
            proof = shuffle_proof.ShuffleProof.unpack(body["proof"], size)
        except shuffle_proof.ProofShapeError as exc:
            raise BadMessage(seat, f"malformed shuffle proof: {exc}") from exc
        if len(set(deck)) != size:
            raise CheatDetected(seat, "the shuffled deck holds a card twice")
        try:
            if seat != self.me and not vouched:  # its own proof is right by construction
                shuffle_proof.verify(self.shuffle_context(seat, step), src, deck, key, proof)
        except shuffle_proof.ShuffleProofError as exc:
            raise CheatDetected(seat, f"shuffle proof fails: {exc}") from exc
        return deck, key

    def _on_lock(self, seat: int, body: dict[str, Any]) -> None:
        checked = self._results.pop((seat, self._applying), None)
        deck, locks = checked or self._check_lock(seat, body, self.locks_input(),
                                                  self.shuffle_keys[seat])
        self.locks.append(locks)
        self.lock_decks.append(deck)
        if seat + 1 < self.config.seats:
            self.step = seat + 1
        else:
            self.final = deck
            self.phase = READY

    def _check_lock(self, seat: int, body: dict[str, Any], before: list[bytes],
                    key: bytes, vouched: bool = False) -> tuple[list[bytes], list[bytes]]:
        """The locked deck and lock keys of ``seat``'s lock of ``before``, each position's
        proof checked against its shuffle ``key`` (unless ``vouched``). Reads nothing that
        changes."""
        size = self.config.size
        self._same_transcript(seat, body["input"], shuffle_proof.deck_hash(before), "input deck")
        deck = self._points(seat, body["deck"], size, "locked deck", vouched)
        locks = self._points(seat, body["locks"], size, "lock keys", vouched)
        raw = body["proofs"]
        if not isinstance(raw, list) or len(raw) != size:
            raise BadMessage(seat, "a lock carries one proof per position")
        context = self.context + b"lock" + seat.to_bytes(2, "little")
        for p in range(size):
            item = raw[p]
            if not isinstance(item, list) or len(item) != 5:
                raise BadMessage(seat, "a lock proof has five parts")
            if seat == self.me or vouched:
                continue  # its own lock is right by construction; a vouched one passed
            proof = lock_proof.LockProof(*item)
            try:
                lock_proof.verify(context, p, before[p], deck[p], key, locks[p], proof)
            except lock_proof.LockProofError as exc:
                raise CheatDetected(seat, f"lock proof fails: {exc}") from exc
        return deck, locks

    def locks_input(self) -> list[bytes]:
        """The deck the current locking seat works on."""
        return self._lock_input(len(self.lock_decks))

    # --- my protocol moves ---------------------------------------------------------------------

    def _act(self) -> list[bytes]:
        """Send what the protocol asks of this peer now (each message once)."""
        me, step = self.me, self.step
        if not self._started or self._restoring:
            return []  # not begun; or rebuilding from the journal, which holds what was sent
        if self._pending[me]:
            return []  # a message of ours is still to be applied: it may answer this step
        if self.phase == SHUFFLE and step == me and len(self.shuffle_keys) == me:
            return self._send_shuffle()
        if self.phase == LOCK and step == me and len(self.locks) == me:
            return self._send_lock()
        return []

    def _journaled(self, kind: str) -> bool:
        """Resuming: whether this peer's next move (after any chat lines) is in the journal
        as a ``kind`` message, so its body need not be computed again (`_send` sends the
        journaled frame in its place)."""
        seq = self._sent_seq
        while (entry := self._journal_frames.get(seq)) is not None and _is_chat(entry[1]):
            seq += 1
        return entry is not None and entry[1].header.kind == kind

    def _send_shuffle(self) -> list[bytes]:
        if self._journaled("shuffle"):
            return self._send("shuffle", {})
        src = self.decks[-1]
        k, perm = self._my_k, self._my_perm
        context = self.shuffle_context(self.me, len(self.shuffle_keys))
        label, secrets = self._proof_label(), self._secrets

        def make() -> dict[str, Any]:
            deck, key = shuffle_proof.shuffle(src, k, perm)
            proof = shuffle_proof.prove(context, src, deck, key, k, perm, secrets, label)
            return {"deck": deck, "key": key, "proof": proof.pack(),
                    "input": shuffle_proof.deck_hash(src)}

        ready, body = self._background(("make", SHUFFLE), make)
        return self._send("shuffle", body) if ready else []

    def _proof_label(self) -> str:
        """The label of this peer's shuffle-proof nonces: bound to its input deck, like its
        key and permutation, so a nonce never serves two statements."""
        return "shuffle-proof/" + self._binding("shuffle")

    def _send_lock(self) -> list[bytes]:
        if self._journaled("lock"):
            return self._send("lock", {})
        before = self.locks_input()
        k = self._my_k
        key = self.shuffle_keys[self.me]
        context = self.context + b"lock" + self.me.to_bytes(2, "little")
        binding, secrets = self._binding("lock"), self._secrets

        def make() -> dict[str, Any]:
            k_inv = inv(k)
            deck, locks, proofs = [], [], []
            for p, e in enumerate(before):
                lk = _lock_key(secrets, binding, p)
                e2 = mul(smul(lk, k_inv), e)
                lock = base(lk)
                pr = lock_proof.prove(context, p, e, e2, k, key, lk, lock, secrets,
                                      "lock/" + binding)
                deck.append(e2)
                locks.append(lock)
                proofs.append([pr.a1, pr.a2, pr.a3, pr.z1, pr.z2])
            return {"deck": deck, "locks": locks, "proofs": proofs,
                    "input": shuffle_proof.deck_hash(before)}

        ready, body = self._background(("make", LOCK), make)
        return self._send("lock", body) if ready else []

    # --- dealing, revealing, burying -----------------------------------------------------------

    def _positions(self, seat: int, raw: object) -> list[int]:
        size = self.config.size
        if (not isinstance(raw, list) or not raw or len(raw) > size
                or not all(type(p) is int and 0 <= p < size for p in raw)
                or len(set(raw)) != len(raw)):
            raise BadMessage(seat, "positions must be distinct deck positions")
        return raw

    def _scalars(self, seat: int, raw: object, count: int) -> list[bytes]:
        if not isinstance(raw, list) or len(raw) != count:
            raise BadMessage(seat, "one key per position")
        try:
            return [check_scalar(k) for k in raw]
        except GroupError as exc:
            raise CheatDetected(seat, f"a released key is not a key: {exc}") from exc

    def _check_key(self, seat: int, position: int, key: bytes) -> None:
        if seat in self.keys[position]:
            raise BadMessage(seat, f"key for position {position} released twice")
        if base(key) != self.locks[seat][position]:
            raise CheatDetected(seat, f"wrong key for position {position}")

    def deal(self, positions: Sequence[int], now: float = 0.0) -> list[bytes]:
        """Give ``positions`` to their owners: release this peer's keys for the ones it does
        not own. Every peer calls it with the same positions (the table paces the deal);
        keys still missing after ``config.key_timeout`` make `tick` raise `KeyTimeout`."""
        if self.phase != READY:
            raise RuntimeError("the deck is not shuffled and locked yet")
        for p in positions:
            if self.owner[p] is None:
                raise ValueError(f"position {p} has no owner yet")
            self._deadlines.setdefault(p, now + self.config.key_timeout)
        mine = [p for p in positions if self.owner[p] != self.me and self.me not in self.keys[p]]
        if not mine:
            return []
        return self._send("deal", {"positions": mine,
                                   "keys": [self._lock_key(p) for p in mine]})

    def _on_deal(self, seat: int, body: dict[str, Any]) -> None:
        positions = self._positions(seat, body["positions"])
        keys = self._scalars(seat, body["keys"], len(positions))
        for p in positions:
            if self.owner[p] is None or self.owner[p] == seat:
                raise BadMessage(seat, f"position {p} is not to be dealt by this seat")
        for p, k in zip(positions, keys, strict=True):
            self._check_key(seat, p, k)  # all checked before any is kept
        for p, k in zip(positions, keys, strict=True):
            self.keys[p][seat] = k
            self._learn(p)

    def _learn(self, position: int) -> None:
        """Decrypt a position when this peer holds every key to it."""
        if position in self.cards:
            return
        have = dict(self.keys[position])
        if self.owner[position] == self.me:
            have[self.me] = self._lock_key(position)
        if len(have) < self.config.seats:
            return
        self.cards[position] = self._open(position, have)

    def _open(self, position: int, keys: dict[int, bytes]) -> int:
        total = keys[0]
        for s in range(1, self.config.seats):
            total = smul(total, keys[s])
        point = mul(inv(total), self.final[position])
        card = self._card_of_point.get(point)
        if card is None:
            raise RuntimeError(f"position {position} does not open to a card")
        return card

    def give_talon(self, starter: int, now: float = 0.0) -> list[bytes]:
        """The talon positions go to ``starter``: other peers release their keys for them."""
        if self.starter is not None and self.starter != starter:
            raise ValueError("the talon already has an owner")
        self.starter = starter
        talon = list(range(self.config.dealt, self.config.size))
        for p in talon:
            self.owner[p] = starter
        out = self.deal(talon, now) if talon else []
        for p in talon:
            self._learn(p)
        # Talon keys (and a bury) that arrived before this call can be applied now.
        return out + self._drain()

    def reveal(self, positions: Sequence[int], purpose: str = "play") -> list[bytes]:
        """Show own cards: ``purpose`` "play" (the cards leave the hand) or "show" (a
        declaration: they stay)."""
        if purpose not in ("play", "show"):
            raise ValueError("purpose is play or show")
        for p in positions:
            if self.owner[p] != self.me or p in self.played or p in self.buried:
                raise ValueError(f"position {p} is not a card in this hand")
            if purpose == "show" and self.me in self.keys[p]:
                raise ValueError(f"position {p} is already shown")
        return self._send("reveal", {"positions": list(positions), "purpose": purpose,
                                     "keys": [self._lock_key(p) for p in positions],
                                     "cards": [self.cards[p] for p in positions]})

    def _on_reveal(self, seat: int, body: dict[str, Any]) -> None:
        positions = self._positions(seat, body["positions"])
        purpose = body["purpose"]
        if purpose not in ("play", "show"):
            raise BadMessage(seat, "a reveal is for a play or a show")
        cards = body["cards"]
        if not isinstance(cards, list) or len(cards) != len(positions) or not all(
                type(c) is int for c in cards):
            raise BadMessage(seat, "one claimed card per position")
        keys = self._scalars(seat, body["keys"], len(positions))
        for p in positions:
            if self.owner[p] != seat or p in self.buried:
                raise CheatDetected(seat, f"position {p} was not dealt to this seat")
            if p in self.played:
                raise CheatDetected(seat, f"position {p} was already played")
            if purpose == "show" and seat in self.keys[p]:
                raise BadMessage(seat, f"position {p} was already shown")
            missing = [s for s in range(self.config.seats) if s != seat and s not in self.keys[p]]
            if missing:
                raise BadMessage(seat, f"position {p} is not fully dealt yet")
        opened = []
        for p, k in zip(positions, keys, strict=True):
            if base(k) != self.locks[seat][p]:
                raise CheatDetected(seat, f"wrong key for position {p}")
            opened.append(self._open(p, {**self.keys[p], seat: k}))
        for p, claimed, card in zip(positions, cards, opened, strict=True):
            if claimed != card:
                raise CheatDetected(seat, f"claimed card {claimed} at position {p} but it is "
                                          f"card {card}")
        for p, k, card in zip(positions, keys, opened, strict=True):
            self.keys[p][seat] = k
            self.cards[p] = card
            if purpose == "play":
                self.played.add(p)
            self.reveals.append(Reveal(seat, p, card, purpose, self._applying))

    def bury(self, positions: Sequence[int]) -> list[bytes]:
        """The starter buries these positions (its own, unplayed) face down."""
        if self.starter != self.me or self.buried:
            raise ValueError("only the starter buries, once")
        if len(set(positions)) != self.config.size - self.config.dealt or any(
                self.owner[p] != self.me or p in self.played for p in positions):
            raise ValueError("bury the talon's number of own, unplayed positions")
        return self._send("bury", {"positions": list(positions)})

    def _on_bury(self, seat: int, body: dict[str, Any]) -> None:
        if self.starter is None or seat != self.starter:
            raise BadMessage(seat, "only the starter buries, after taking the talon")
        if self.buried:
            raise BadMessage(seat, "the talon was already buried")
        positions = self._positions(seat, body["positions"])
        if len(positions) != self.config.size - self.config.dealt:
            raise BadMessage(seat, "bury exactly the talon's number of cards")
        for p in positions:
            if self.owner[p] != seat or p in self.played:
                raise CheatDetected(seat, f"buried position {p}, which it does not hold")
        self.buried = list(positions)

    def open_public(self, positions: Sequence[int]) -> list[bytes]:
        """Turn positions nobody owns (the talon) face up: every peer releases its keys for
        them, publicly; each peer calls it with the same positions."""
        if self.phase != READY:
            raise RuntimeError("the deck is not shuffled and locked yet")
        for p in positions:
            if self.owner[p] is not None:
                raise ValueError(f"position {p} belongs to seat {self.owner[p]}")
        return self._send("open", {"positions": list(positions),
                                   "keys": [self._lock_key(p) for p in positions]})

    def _on_open(self, seat: int, body: dict[str, Any]) -> None:
        positions = self._positions(seat, body["positions"])
        keys = self._scalars(seat, body["keys"], len(positions))
        for p in positions:
            if self.owner[p] is not None and p not in self.public:
                raise BadMessage(seat, f"position {p} is dealt: it cannot be turned over")
        for p, k in zip(positions, keys, strict=True):
            self._check_key(seat, p, k)
        for p, k in zip(positions, keys, strict=True):
            self.keys[p][seat] = k
            self.public.add(p)
            if len(self.keys[p]) == self.config.seats:
                self.cards[p] = self._open(p, self.keys[p])

    def post(self, data: dict[str, Any]) -> list[bytes]:
        """Send a table message (a declaration window, a play ...), signed and chained like
        every deck message; it reaches every peer's `inbox`."""
        return self._send("app", {"data": data})

    def _on_app(self, seat: int, body: dict[str, Any]) -> None:
        data = body["data"]  # typed as it arrived (`_opened`)
        self._app_count[seat] += 1
        if len(self.inbox) >= MAX_INBOX or self._app_count[seat] > MAX_APP_PER_SEAT:
            self._app_count[seat] -= 1
            raise BadMessage(seat, "too many table messages")
        self.inbox.append((seat, data, self._applying))

    # --- the end-of-hand audit -----------------------------------------------------------------

    def audit(self, now: float = 0.0) -> list[bytes]:
        """Release every key of this peer so everyone can check the whole hand. Seats that
        have not done the same by ``now + config.key_timeout`` make `tick` raise."""
        if self.phase != READY:
            raise RuntimeError("the deck is not shuffled and locked yet")
        if self._audit_deadline is None:
            self._audit_deadline = now + self.config.key_timeout
        if self.me in self.audited:
            return []
        size = self.config.size
        return self._send("audit", {"keys": [self._lock_key(p) for p in range(size)]})

    def _on_audit(self, seat: int, body: dict[str, Any]) -> None:
        if self.phase != READY or seat in self.audited:
            raise BadMessage(seat, "audit keys out of turn")
        size = self.config.size
        keys = self._scalars(seat, body["keys"], size)
        for p, k in enumerate(keys):
            known = self.keys[p].get(seat)
            if known is not None:
                if known != k:
                    raise CheatDetected(seat, f"audit key for position {p} differs")
            elif base(k) != self.locks[seat][p]:
                raise CheatDetected(seat, f"wrong audit key for position {p}")
        for p, k in enumerate(keys):
            self.keys[p][seat] = k
        self.audited.add(seat)
        self._audit_seq[seat] = self._applying
        if len(self.audited) == self.config.seats:
            for p in range(size):
                if p not in self.cards:
                    self.cards[p] = self._open(p, self.keys[p])
            self.phase = DONE

    def deck_order(self) -> list[int]:
        """The physical card at every position (after the audit)."""
        if self.phase != DONE:
            raise RuntimeError("the deck is only open after the audit")
        return [self.cards[p] for p in range(self.config.size)]

    def transcript(self) -> bytes:
        """The hash of the whole hand as this peer holds it (after the audit): every seat's
        message chain up to and including its audit keys, the last message the hand's
        result depends on. Every verdict signs it, so a result counts only where every seat
        signed the same hand."""
        if self.phase != DONE:
            raise RuntimeError("the transcript is complete only after the audit")
        return hash32(b"transcript", self.context, *(
            self._chains[s].hashes[self._audit_seq[s] + 1] for s in range(self.config.seats)))

    def verdict(self, violations: Sequence[tuple[int, int, str]]) -> list[bytes]:
        """Sign this peer's audit result: (seat, trick, reason) for each broken rule (the
        first 64: enough to void the hand), and the `transcript` it judged."""
        return self._send("verdict", {"violations": [list(v) for v in violations[:64]],
                                      "transcript": self.transcript()})

    def _on_verdict(self, seat: int, body: dict[str, Any]) -> None:
        violations = body["violations"]
        if seat in self.verdicts or not isinstance(violations, list) or len(violations) > 64:
            raise BadMessage(seat, "one verdict per seat, at most 64 violations")
        if type(body["transcript"]) is not bytes or len(body["transcript"]) != 32:
            raise BadMessage(seat, "a verdict signs the 32-byte hash of the hand")
        if body["transcript"] != self.transcript():
            raise TranscriptSplit(seat, "its verdict signs another transcript of the hand than "
                                        "this peer's: the result counts only if all agree")
        self.verdicts[seat] = {"violations": violations, "transcript": body["transcript"]}

    # --- time ------------------------------------------------------------------------------------

    def owed(self) -> dict[int, list[int]]:
        """Seat -> positions whose keys that seat was asked for and has not released."""
        out: dict[int, list[int]] = {}
        for p in sorted(self._deadlines):
            for s in range(self.config.seats):
                if s != self.owner[p] and s not in self.keys[p]:
                    out.setdefault(s, []).append(p)
        return out

    def accepted(self, seat: int) -> int:
        """How many of ``seat``'s messages this deck took, in their order."""
        return len(self._chains[seat].frames)

    def waiting_for(self) -> list[int]:
        """Seats whose next set-up message this peer is waiting for (empty while dealing and
        playing; the seats missing from the audit once it began): what a table's stall timer
        watches."""
        n = self.config.seats
        if self.phase in (SHUFFLE, LOCK):
            # A message that came and is being checked (by the runner) is not owed: this
            # peer waits on its own worker then, which is no seat's fault.
            arrived = len(self._chains[self.step].frames) in self._pending[self.step]
            return [] if arrived and self.working else [self.step]
        if self.phase == READY and self._audit_deadline is not None:
            return [s for s in range(n) if s not in self.audited]
        return []

    def tick(self, now: float) -> None:
        """Raise `KeyTimeout` for the first seat whose keys are overdue at time ``now``."""
        late = self.overdue(now)
        if late:
            seat, positions = min(late.items())
            raise KeyTimeout(seat, positions)

    def overdue(self, now: float) -> dict[int, list[int]]:
        """Seat -> the positions whose keys it owes past their deadline at time ``now``."""
        late = {p for p, t in self._deadlines.items() if t <= now}
        out: dict[int, list[int]] = {}
        for seat, positions in sorted(self.owed().items()):
            overdue = [p for p in positions if p in late]
            if overdue:
                out[seat] = overdue
        if self.phase == READY and self._audit_deadline is not None and \
                self._audit_deadline <= now:
            for seat in range(self.config.seats):
                if seat not in self.audited and seat not in out:
                    out[seat] = list(range(self.config.size))
        return out

    # --- what this peer knows ----------------------------------------------------------------

    def hand(self) -> dict[int, int]:
        """Position -> physical card of this peer's cards still in its hand."""
        return {p: self.cards[p] for p in sorted(self.cards)
                if self.owner[p] == self.me and p not in self.played and p not in self.buried}

    def frames(self) -> list[bytes]:
        """The journal of this hand: every frame received and signature-checked, accepted
        (per seat in order) or still waiting for its turn."""
        accepted = [e.frame for c in self._chains for e in c.frames]
        waiting = [e.frame for pending in self._pending for _, e in sorted(pending.items())]
        return accepted + waiting

    def mine(self) -> list[bytes]:
        """This peer's own accepted frames of this hand, in order (number ``i`` at ``i``)."""
        return [e.frame for e in self._chains[self.me].frames]

    def evidence(self, seat: int, seq: int) -> bytes:
        """The signed frame number ``seq`` of ``seat`` as this peer received it."""
        return self._chains[seat].frames[seq].frame

    def check_evidence(self, frame: bytes) -> None:
        """Raise `Equivocation` if ``frame`` is a validly signed message that differs from
        the one this peer holds for the same seat and number."""
        env = open_frame(frame, self.config.table, self.config.hand,
                         list(self.config.public_keys))
        frames = self._chains[env.seat].frames
        if env.header.seq < len(frames) and frames[env.header.seq].content != env.content:
            raise Equivocation(env.seat, f"signed two different messages number "
                                         f"{env.header.seq} (proven)")

    def journaled_ahead(self) -> list[tuple[str, dict[str, Any]]]:
        """Resuming: this peer's own journaled messages not yet made again, in order, as
        (kind, body); the table reads its decisions from them instead of asking again."""
        out = []
        seq = self._sent_seq
        while seq in self._journal_frames:
            env = self._journal_frames[seq][1]
            out.append((env.header.kind, env.body))
            seq += 1
        return out

    def load_journal(self, journal: Sequence[bytes]) -> None:
        """Resume after a crash: take back every frame of this hand from the journal before
        `start`. Other seats' frames wait for their turn as usual; this peer's own moves come
        again as the hand is replayed and reuse their journaled frames instead of signing new
        ones, so nobody ever sees two versions of a message."""
        if self._sent_seq or any(c.frames for c in self._chains):
            raise RuntimeError("load the journal into a fresh engine, before start")
        for frame in journal:
            env = _opened(self.config, frame, verify=not self.ledger.signature_known(frame))
            if env.seat == self.me:
                self._journal_frames[env.header.seq] = (frame, env)  # for the moves again
            else:
                self._pending[env.seat][env.header.seq] = env
                self._loaded[env.seat].add(env.header.seq)

    @classmethod
    def restore(cls, config: DeckConfig, seat: int, signing_key: Ed25519PrivateKey,
                hand_seed: bytes, journal: Sequence[bytes],
                starter: int | None = None) -> tuple[Deck, list[bytes]]:
        """Rebuild a peer after a crash from its hand seed and its journal of frames (any
        order). ``starter`` is the talon's owner if it was given before the crash. Returns
        the engine and the protocol frames it still owes (to broadcast)."""
        deck = cls(config, seat, signing_key, hand_seed)
        deck._restoring = True
        own = 0
        for frame in journal:
            env = _opened(config, frame)
            deck._pending[env.seat][env.header.seq] = env
            own += env.seat == seat
        if starter is not None:
            deck.starter = starter
            for p in range(config.dealt, config.size):
                deck.owner[p] = starter
        deck._drain()
        deck._restoring = False
        deck._sent_seq = own
        if deck._pending[seat]:
            raise RuntimeError("the journal does not fit this seat's hand seed")
        return deck, deck.start()

