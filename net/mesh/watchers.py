"""The watchers one seat's peer serves (`Watchers`): the game's signed transcript so far,
then every frame as this peer keeps it, and nothing ever back.

A watcher is not a seat. It comes in on the seat's game port (`link.PeerLink` hands over
a connection whose first message is a watch hello, `is_watch_hello`), gets a welcome
(what it needs to replay the game: the table id, the rules, every seat's key and name,
where a game going on stood), then the frames. Nothing it sends is read: a second message
drops it (but at a table with a passphrase, where the host's seat first checks that
the watcher knows it: `watch_gate`, one confirmation, in `watch_gate.GATE_TIMEOUT`).
Nothing of the table waits on it: frames are written and forgotten; one that stops
reading has its frames queued (references to frames the session holds anyway), and
once it is `MAX_BEHIND` bytes behind the live game it is dropped, so a watcher can neither
slow the table nor make this peer hold more. A peer takes at most `MAX_WATCHERS`; a table
that takes none (``open`` False: `tractor host --no-watchers`) refuses each with a reason.

No sockets here: a watcher's connection is a `WatcherLink`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tractor.net.codec import CodecError, Limits, decode, encode
from tractor.net.deck.envelope import FrameError, peek_hand
from tractor.net.lobby.pake import Channel
from tractor.net.lobby.seating import TableBinding
from tractor.net.mesh.watch_arrivals import WatchArrivals
from tractor.net.mesh.watch_gate import WatchDesk, WatchGate
from tractor.net.referee.ballots import is_ballot
from tractor.net.table.session import GameSession

WATCH_VERSION = "tractor-watch/1"
MAX_WATCHERS = 8  #: watchers one peer serves at once
#: Watchers one peer serves from one source (an address, an IPv6 /64: `gate.source_of`):
#: one host that connects again and again, and reads nothing, cannot take every place.
MAX_PER_SOURCE = 2
#: Bytes of live frames a watcher may be behind (queued here, not taken by its network)
#: before it is dropped: a whole hand of the largest table is about 2.3 MB.
MAX_BEHIND = 8 << 20
MAX_TABLE_ID = 64  #: bytes of a table id (a seating's is 32: `seating.seating_id`)
MAX_PROOF = 256  #: bytes of a lobby passphrase hello (`pake.GuestHandshake.hello`: ~110)
#: A watch hello is ``[version, table id]``, or ``[version, table id, passphrase hello]``
#: at a table with a passphrase (`watch_gate`): nothing nested, nothing long.
HELLO_LIMITS = Limits(max_bytes=512, max_depth=1, max_elements=4, max_str=32,
                      max_bin=MAX_PROOF, max_array=3, max_map=0, max_memory=2048)
#: What a watcher without the passphrase is told at a table that has one.
NEEDS_PASSPHRASE = ("this table has a passphrase: watch with it (`tractor watch ADDRESS "
                    "--passphrase -` asks for it)")


class WatcherLink(Protocol):
    """A watcher's connection, as the watchers see it."""

    @property
    def source(self) -> str:
        """Where it comes from, as a `gate.source_of`."""
        ...

    def write_frame(self, frame: bytes) -> None:
        """Send one length-prefixed message."""
        ...

    def close(self) -> None: ...


def watch_hello(table: bytes = b"", proof: bytes = b"") -> bytes:
    """What a watcher sends first: the version, the table it means to watch (empty:
    whatever this peer plays) and, at a table with a passphrase, its passphrase hello."""
    return encode([WATCH_VERSION, table, proof] if proof else [WATCH_VERSION, table])


def is_watch_hello(data: bytes) -> bool:
    """Whether a connection's first message is a watcher's hello, not a seat's."""
    try:
        value = decode(data, HELLO_LIMITS)
    except CodecError:
        return False
    return isinstance(value, list) and len(value) in (2, 3) and value[0] == WATCH_VERSION \
        and type(value[1]) is bytes and len(value[1]) <= MAX_TABLE_ID \
        and all(type(v) is bytes and 0 < len(v) <= MAX_PROOF for v in value[2:])


def hello_table(data: bytes) -> bytes:
    """The table a watch hello asks for (empty: any)."""
    value = decode(data, HELLO_LIMITS)
    return bytes(value[1])


def hello_proof(data: bytes) -> bytes:
    """The passphrase hello a watch hello carries (empty: none)."""
    value = decode(data, HELLO_LIMITS)
    return bytes(value[2]) if len(value) == 3 else b""


@dataclass
class Watcher:
    """One watcher served: its link, what waits to be written, and whether it reads."""

    link: WatcherLink
    queue: deque[bytes] = field(default_factory=deque)
    queued: int = 0  #: bytes in ``queue``
    paused: bool = False  #: its network took no more for now
    #: Bytes it may have queued: the transcript it was given on arrival, plus `MAX_BEHIND`.
    allowance: int = MAX_BEHIND

    def send(self, frame: bytes) -> None:
        if self.paused or self.queue:
            self.queue.append(frame)
            self.queued += len(frame)
        else:
            self.link.write_frame(frame)

    def flush(self) -> None:
        """Write what waits, until its network says stop again."""
        while self.queue and not self.paused:
            frame = self.queue.popleft()
            self.queued -= len(frame)
            self.link.write_frame(frame)


class Watchers:
    """Every watcher of one peer (see the module docstring)."""

    def __init__(self, limit: int = MAX_WATCHERS, behind: int = MAX_BEHIND,
                 per_source: int = MAX_PER_SOURCE) -> None:
        self.limit = limit
        self.per_source = per_source
        self.behind = behind
        self.open = True  #: False: the table takes no watchers
        #: Why this seat refuses every watcher, when that says more than ``open`` False
        #: (a resumed host that lost the table's passphrase: `cli.watch_hosting`).
        self.refusing: str | None = None
        self.session: GameSession | None = None  #: this peer's game, once seated
        self.names: tuple[str, ...] = ()  #: every seat's name, as the seating gives them
        #: Where a game going on stood when this table began (`Seating.carry`).
        self.carry: tuple[Any, ...] | None = None
        #: At a table with a passphrase (``open`` False): the host seat's check of it.
        self.desk: WatchDesk | None = None
        #: Watchers proving the passphrase: counted against the limit like those served.
        self.checking: dict[WatcherLink, WatchGate] = {}
        #: The rest of what the table id binds (`Seating.binding`): a watcher recomputes
        #: the id, so this seat cannot give it other names, rules or keys than the table's.
        self.binding: TableBinding | None = None
        self.served: dict[WatcherLink, Watcher] = {}
        self.arrivals = WatchArrivals()  #: how often the game so far was given lately
        self.dropped: list[str] = []  #: why watchers were dropped (the last few)
        #: This peer's own frames kept from the seats (signs of a split transcript: they
        #: never leave, `wire.PeerNode._send_all`): kept from its watchers too, live and in
        #: the game so far (a few, made in the seconds before the table halts).
        self.withheld: set[bytes] = set()
        #: The signed frames that show why this peer halted the table (`evidence`).
        self.halt_evidence: list[bytes] = []

    def seat(self, session: GameSession) -> None:
        """This peer is seated: watchers get its game."""
        self.session = session

    def welcome(self) -> dict[str, Any]:
        """What a watcher needs to replay the game from its first frame."""
        s = self.session
        assert s is not None
        return {"table": s.table, "rules": s.rules.to_data(),
                "keys": [k.public_bytes_raw() for k in s.public_keys],
                "names": list(self.names),
                "carry": None if self.carry is None else list(self.carry),
                "seating": None if self.binding is None else self.binding.to_data()}

    def refuse(self, link: WatcherLink, why: str) -> None:
        """Tell ``link`` why it is not served, and close it."""
        link.write_frame(encode({"t": "refused", "why": why}))
        link.close()

    def arrived(self, link: WatcherLink, hello: bytes, source: str = "",
                now: float = 0.0) -> bool:
        """A connection from ``source`` (an IP) sent a watch hello: welcome it and give it
        the game so far, or (at a table with a passphrase) answer its passphrase hello; or
        refuse it with a reason (False)."""
        proof = hello_proof(hello)
        why = self._refusal(hello_table(hello), bool(proof), link)
        if why is not None:
            self.refuse(link, why)
            return False
        if self.desk is not None:
            gate = self.desk.gate(source or link.source)
            step = gate.hello(proof, now)
            if step.send is not None:
                link.write_frame(step.send)
            if step.error is not None:
                self.dropped = [*self.dropped[-15:], f"passphrase check: {step.error.why}"]
                link.close()
                return False
            self.checking[link] = gate
            return True
        self._serve(link, None)
        return True

    def heard(self, link: WatcherLink, data: bytes, now: float = 0.0) -> bool:
        """A watcher sent more than its hello: its passphrase confirmation, while it proves
        the passphrase (then it is served, or refused); else False (it is to be dropped:
        nothing else a watcher says is read)."""
        gate = self.checking.pop(link, None)
        if gate is None:
            return False
        step = gate.confirm(data, now)
        if step.channel is None:
            if step.send is not None:
                link.write_frame(step.send)
            why = step.error.why if step.error is not None else "no proof"
            self.dropped = [*self.dropped[-15:], f"passphrase check: {why}"]
            link.close()
            return True
        self._serve(link, step.channel)
        return True

    def too_slow(self, link: WatcherLink) -> None:
        """A watcher's passphrase check took longer than `watch_gate.GATE_TIMEOUT`."""
        gate = self.checking.pop(link, None)
        if gate is not None:
            gate.abort()
            link.close()

    def _serve(self, link: WatcherLink, sealed: Channel | None) -> None:
        """Welcome ``link`` (sealed with the passphrase handshake's key, when it had one)
        and give it the game so far."""
        assert self.session is not None  # (`_refusal` checked it)
        watcher = Watcher(link)
        self.served[link] = watcher
        welcome = {"t": "welcome", **self.welcome()}
        link.write_frame(encode(welcome) if sealed is None else sealed.seal(welcome))
        # Every signed frame of the game this peer holds (a frame held twice goes once).
        sent = [f for f in dict.fromkeys([*self.session.journal(), *self.halt_evidence])
                if f not in self.withheld]
        watcher.allowance = sum(len(f) for f in sent) + self.behind
        for frame in sent:
            watcher.send(frame)

    def _refusal(self, asked: bytes, proof: bool, link: WatcherLink) -> str | None:
        if self.refusing is not None:
            return self.refusing
        if self.desk is None and not self.open:
            return ("this seat does not check the table's passphrase: watch through the "
                    "host's game port (its log shows it, `tractor watch` lists it)"
                    if proof else "this table takes no watchers")
        if self.desk is not None and not proof:
            return NEEDS_PASSPHRASE
        if self.desk is None and proof:
            return "this table has no passphrase: watch without one"
        if self.session is None:
            return "this peer is not playing at a table yet; try again once the game began"
        if asked and asked != self.session.table:
            return "this peer plays at another table"
        if self.binding is None:
            return ("this seat resumed a game begun by an older tractor and cannot show what "
                    "its table id binds; watch through another seat")
        if len(self.served) + len(self.checking) >= self.limit:
            return f"this table has {self.limit} watchers already; try another seat or later"
        if sum(other.source == link.source for other in [*self.served, *self.checking]) \
                >= self.per_source:
            return (f"{self.per_source} watchers from your address watch through this seat "
                    "already; try another seat")
        return None

    def publish(self, frames: Sequence[bytes], public: bool = True) -> None:
        """Frames this peer keeps (its own and those it accepted): every watcher gets them;
        one too far behind is dropped. Not ``public``: this peer's own frames that do not
        leave it (signs of a split: `wire.PeerNode._send_all`), which no watcher gets."""
        if not public:
            self.withheld.update(frames)
            return
        for watcher in list(self.served.values()):
            for frame in frames:
                watcher.send(frame)
            if watcher.queued > watcher.allowance:
                self.drop(watcher.link, f"it fell more than {watcher.allowance} bytes "
                                        "behind the game")

    def evidence(self, frames: Sequence[bytes]) -> list[bytes]:
        """The signed frames that show why this peer halts the table, as every seat is given
        them (returned): the watchers get them too, now and when they come later (the
        deck's, whose replay finds the same fault naming the same seat, and the referee's
        ballots, which a watcher settles as the seats do: `referee.onlooker`)."""
        shown = [f for f in frames if _is_deck_frame(f) or is_ballot(f)]
        self.halt_evidence = shown
        self.publish(shown)
        return list(frames)

    def paused(self, link: WatcherLink, paused: bool) -> None:
        """The watcher's network stopped (or went on) taking what is written to it."""
        watcher = self.served.get(link)
        if watcher is not None:
            watcher.paused = paused
            watcher.flush()

    def last_frames(self, link: WatcherLink) -> None:
        """``link`` is about to close (this peer stops): what waits for it is written now,
        for its transport to send before the close (bounded: it was within its allowance)."""
        watcher = self.served.get(link)
        if watcher is not None:
            watcher.paused = False
            watcher.flush()

    def drop(self, link: WatcherLink, why: str) -> None:
        """Stop serving ``link`` and close it."""
        if self.served.pop(link, None) is not None:
            self.dropped = [*self.dropped[-15:], why]
            link.close()

    def left(self, link: WatcherLink) -> None:
        """``link`` closed."""
        self.served.pop(link, None)
        gate = self.checking.pop(link, None)
        if gate is not None:
            gate.abort()


def _is_deck_frame(frame: bytes) -> bool:
    try:
        peek_hand(frame)
    except FrameError:
        return False
    return True
