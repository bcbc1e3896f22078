"""The watchers one seat's peer serves (`Watchers`): the game's signed transcript so far,
then every frame as this peer keeps it, and nothing ever back.

A watcher is not a seat. It comes in on the seat's game port (`link.PeerLink` hands over
a connection whose first message is a watch hello, `is_watch_hello`), gets a welcome
(what it needs to replay the game: the table id, the rules, every seat's key and name,
where a game going on stood), then the frames. Nothing it sends is read: a second message
drops it. Nothing of the table waits on it: frames are written and forgotten; one that
stops reading has its frames queued (references to frames the session holds anyway), and
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
from tractor.net.lobby.seating import TableBinding
from tractor.net.mesh.watch_arrivals import WatchArrivals
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
#: A watch hello is ``[version, table id]``: nothing nested, nothing long.
HELLO_LIMITS = Limits(max_bytes=128, max_depth=1, max_elements=3, max_str=32,
                      max_bin=MAX_TABLE_ID, max_array=2, max_map=0, max_memory=1024)


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


def watch_hello(table: bytes = b"") -> bytes:
    """What a watcher sends first: the version, and the table it means to watch (empty:
    whatever this peer plays)."""
    return encode([WATCH_VERSION, table])


def is_watch_hello(data: bytes) -> bool:
    """Whether a connection's first message is a watcher's hello, not a seat's."""
    try:
        value = decode(data, HELLO_LIMITS)
    except CodecError:
        return False
    return isinstance(value, list) and len(value) == 2 and value[0] == WATCH_VERSION \
        and type(value[1]) is bytes and len(value[1]) <= MAX_TABLE_ID


def hello_table(data: bytes) -> bytes:
    """The table a watch hello asks for (empty: any)."""
    value = decode(data, HELLO_LIMITS)
    return bytes(value[1])


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
        self.session: GameSession | None = None  #: this peer's game, once seated
        self.names: tuple[str, ...] = ()  #: every seat's name, as the seating gives them
        #: Where a game going on stood when this table began (`Seating.carry`).
        self.carry: tuple[Any, ...] | None = None
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

    def arrived(self, link: WatcherLink, hello: bytes) -> bool:
        """A connection sent a watch hello: welcome it and give it the game so far, or
        refuse it with a reason (False)."""
        why = self._refusal(hello_table(hello), link)
        if why is not None:
            self.refuse(link, why)
            return False
        assert self.session is not None  # (`_refusal` checked it)
        watcher = Watcher(link)
        self.served[link] = watcher
        link.write_frame(encode({"t": "welcome", **self.welcome()}))
        # Every signed frame of the game this peer holds (a frame held twice goes once).
        sent = [f for f in dict.fromkeys(self.session.journal()) if f not in self.withheld]
        watcher.allowance = sum(len(f) for f in sent) + self.behind
        for frame in sent:
            watcher.send(frame)
        return True

    def _refusal(self, asked: bytes, link: WatcherLink) -> str | None:
        if not self.open:
            return "this table takes no watchers"
        if self.session is None:
            return "this peer is not playing at a table yet; try again once the game began"
        if asked and asked != self.session.table:
            return "this peer plays at another table"
        if self.binding is None:
            return ("this seat resumed a game begun by an older tractor and cannot show what "
                    "its table id binds; watch through another seat")
        if len(self.served) >= self.limit:
            return f"this table has {self.limit} watchers already; try another seat or later"
        if sum(other.source == link.source for other in self.served) >= self.per_source:
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
        them (returned): the watchers get the deck's among them (they replay no referee's
        ballot or complaint), and their replay finds the same fault, naming the same seat."""
        self.publish([f for f in frames if _is_deck_frame(f)])
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


def _is_deck_frame(frame: bytes) -> bool:
    try:
        peek_hand(frame)
    except FrameError:
        return False
    return True
