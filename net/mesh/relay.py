"""Reliable broadcast over the mesh: which signed frames each other seat still lacks.

A seat sends its frames straight to every other seat, but a dishonest seat may withhold one
from one peer, or sign two versions of one message and send each to half the table. So
every peer keeps the signed frames it accepted and, per other seat, what that seat is known
to hold: from the views in its signed frames and from the *have* reports links exchange
(per hand and seat: how many of that seat's frames it holds from the first, and a short
hash of that chain). A frame a seat still lacks `RELAY_AFTER` seconds after this peer got
it is relayed to it, once per link; a frame it got straight from its author is reported in
time and never relayed, so an honest table pays only the have reports.

Once this peer had to relay a seat's frame to another seat in a hand, it relays that
author's later frames of the hand to that seat after `WITHHELD_AFTER`, not `RELAY_AFTER`: a
seat that withholds its messages from one peer would otherwise slow every step of the
hand by a second. An honest author's frames still come straight, and reported in time
(its peer reports every `wire.HAVE_EVERY` = 0.25 s) they are not relayed.

A have report whose chain hash differs from this peer's for the same count shows two
versions of one seat's messages: this peer then pushes its own frames of that chain to the
reporter, which finds the conflicting pair (`Deck` refuses the second version with an
`Equivocation` naming the signer), relays both frames to everyone, and every honest peer
halts naming the same seat.

A plain state machine: no sockets and no clock; `PeerNode` feeds it and sends what it says.

>>> relay = Relay(seats=3, me=2, after=1.0)
>>> relay.hold(hand=0, seat=1, seq=0, content=b"m", frame=b"F", now=0.0, came_from=1)
True
>>> relay.due(0.5, up=[0, 1])
[]
>>> relay.due(1.0, up=[0, 1])  # nothing before seat 0 says what it holds on this link
[]
>>> relay.have_from(0, {"have": []})  # it holds nothing of hand 0
[]
>>> relay.due(1.0, up=[0, 1])  # so it lacks the frame: relay it
[(0, b'F')]
>>> relay.due(9.0, up=[0, 1])  # once per link
[]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tractor.net.codec import Bytes, CodecError, Fixed, Int, Limits, ListOf, Record, decode, encode
from tractor.net.deck.envelope import MAX_SEATS, chain_digest

Seat = int
Hand = int
RELAY_AFTER = 1.0  #: seconds a frame may be missing at a seat before this peer relays it
#: Extra seconds per seat between the author and this peer in seat order: the next seat
#: relays first, and the seat's have report tells the later ones they need not.
STAGGER = 0.5
#: Seconds a frame may be missing at a seat before this peer relays it, once that seat
#: lacked a frame of the same author in the same hand (it was relayed to it).
WITHHELD_AFTER = 0.5
DIGEST = 8  #: bytes of chain hash in a have report (a hint: the deck proves the conflict)
MAX_HAVE = 512  #: largest have report, in bytes
MAX_CHAIN = 1 << 16  #: frames of one seat in one hand (a deck chain never comes near)


class HaveError(CodecError):
    """A have report that does not parse or does not fit the table."""


@dataclass
class _Held:
    frame: bytes
    since: float
    #: Seats known to hold it: its author, the seat it came from, what they reported.
    known: set[Seat] = field(default_factory=set)
    relayed: set[Seat] = field(default_factory=set)  #: sent by this peer (until a link drops)


@dataclass
class _Chain:
    frames: dict[int, _Held] = field(default_factory=dict)
    #: Hash after each contiguous frame from the first (index 0: the empty chain).
    hashes: list[bytes] = field(default_factory=lambda: [bytes(32)])
    contents: dict[int, bytes] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.hashes) - 1


class Relay:
    """One peer's copy of the table's frames, and what each other seat lacks."""

    def __init__(self, seats: int, me: Seat, after: float = RELAY_AFTER) -> None:
        self.seats, self.me, self.after = seats, me, after
        self._chains: dict[tuple[Hand, Seat], _Chain] = {}
        #: seat -> (hand, author) -> how many of the author's frames it holds from the first.
        self._counts: dict[Seat, dict[tuple[Hand, Seat], int]] = {
            s: {} for s in range(seats) if s != me}
        self._pushed: set[tuple[Seat, Hand, Seat]] = set()  #: conflicts already answered
        #: Seats whose have report came since their link is up: only they get relays (a
        #: seat that just connected says what it holds first, or a resumed peer, which
        #: knows nothing of what the others hold, would send them whole hands).
        self._reported: set[Seat] = set()
        #: (hand, author, seat): a frame of the author was relayed to the seat in that hand.
        self._withheld: set[tuple[Hand, Seat, Seat]] = set()
        self.relayed = 0  #: frames relayed so far (for the figures)

    def _chain(self, hand: Hand, seat: Seat) -> _Chain:
        return self._chains.setdefault((hand, seat), _Chain())

    def held(self, hand: Hand, seat: Seat, seq: int) -> tuple[bytes, bytes] | None:
        """(frame, signed content) this peer holds for that place, if any: a copy is no
        news, and a frame with other content is the second half of an equivocation."""
        chain = self._chains.get((hand, seat))
        if chain is None or seq not in chain.frames:
            return None
        return chain.frames[seq].frame, chain.contents[seq]

    def hold(self, hand: Hand, seat: Seat, seq: int, content: bytes, frame: bytes, now: float,
             came_from: Seat | None) -> bool:
        """Keep a signature-checked frame; False if one is held already for that place."""
        chain = self._chain(hand, seat)
        if seq in chain.frames or seq >= MAX_CHAIN:
            if seq in chain.frames and came_from is not None and chain.contents[seq] == content:
                chain.frames[seq].known.add(came_from)
            return False
        held = _Held(frame, now, {seat})
        if came_from is not None:
            held.known.add(came_from)
        chain.frames[seq] = held
        chain.contents[seq] = content
        while chain.count in chain.contents:
            chain.hashes.append(chain_digest(chain.hashes[-1], chain.contents[chain.count]))
        return True

    def heard(self, seat: Seat, hand: Hand, counts: Iterable[int]) -> None:
        """``seat`` says it holds the first ``counts[a]`` frames of every author ``a`` (its
        signed views, or a have report)."""
        known = self._counts.get(seat)
        if known is None:
            return
        for author, count in enumerate(counts):
            key = (hand, author)
            if count > known.get(key, 0):
                known[key] = count

    def report(self, hands: Sequence[Hand]) -> dict[str, Any]:
        """This peer's have report for ``hands``: per hand, per author, the count held from
        the first and a short hash of that chain."""
        out = []
        for hand in hands:
            chains = [self._chains.get((hand, a)) for a in range(self.seats)]
            out.append([hand, [c.count if c else 0 for c in chains],
                        b"".join(c.hashes[-1][:DIGEST] if c else bytes(DIGEST)
                                 for c in chains)])
        return {"have": out}

    def have_from(self, seat: Seat, report: dict[str, Any]) -> list[bytes]:
        """Take in ``seat``'s have report (checked by `read_have`); returns frames to push
        to it at once: this peer's version of any chain whose hash differs from its own, the
        newest first, once per chain."""
        push: list[bytes] = []
        self._reported.add(seat)
        for hand, counts, digests in report["have"]:
            self.heard(seat, hand, counts)
            for author, count in enumerate(counts):
                chain = self._chains.get((hand, author))
                if chain is None or count == 0 or count > chain.count or author == seat:
                    continue
                theirs = digests[author * DIGEST:(author + 1) * DIGEST]
                if chain.hashes[count][:DIGEST] == theirs or (seat, hand, author) in self._pushed:
                    continue
                self._pushed.add((seat, hand, author))
                push += [chain.frames[q].frame for q in range(count - 1, -1, -1)]
        return push

    def due(self, now: float, up: Iterable[Seat]) -> list[tuple[Seat, bytes]]:
        """(seat, frame) for every frame a connected seat still lacks past `after`."""
        out: list[tuple[Seat, bytes]] = []
        seats = [s for s in up if s != self.me and s in self._reported]
        for (hand, author), chain in self._chains.items():
            if author == self.me:
                continue  # this peer's own frames go to every seat straight (and again on
                # a reconnect): only other seats' frames are relayed
            stagger = STAGGER * ((self.me - author - 1) % self.seats)
            for seat in seats:
                withheld = (hand, author, seat) in self._withheld
                after = stagger + (min(self.after, WITHHELD_AFTER) if withheld else self.after)
                has = self._counts[seat].get((hand, author), 0)
                for seq in range(has, max(chain.frames, default=-1) + 1):
                    held = chain.frames.get(seq)
                    if (held is None or seat in held.known or seat in held.relayed
                            or now - held.since < after):
                        continue
                    held.relayed.add(seat)
                    self._withheld.add((hand, author, seat))
                    self.relayed += 1
                    out.append((seat, held.frame))
        return out

    def chain(self, hand: Hand, author: Seat, first: int = 0) -> list[bytes]:
        """Every frame of ``author`` in ``hand`` this peer holds from message number
        ``first`` on, in order (evidence, or what a complainer lacks)."""
        chain = self._chains.get((hand, author))
        return [chain.frames[q].frame for q in sorted(chain.frames) if q >= first] \
            if chain else []

    def link_lost(self, seat: Seat) -> None:
        """What was relayed to ``seat`` may not have arrived: relay it again if still due
        (once its have report on the next link says it still lacks it)."""
        self._reported.discard(seat)
        for chain in self._chains.values():
            for held in chain.frames.values():
                held.relayed.discard(seat)

    def forget_before(self, hand: Hand) -> None:
        """Drop the frames of hands before ``hand`` (settled)."""
        for key in [k for k in self._chains if k[0] < hand]:
            del self._chains[key]
        for known in self._counts.values():
            for key in [k for k in known if k[0] < hand]:
                del known[key]
        self._pushed = {p for p in self._pushed if p[1] >= hand}
        self._withheld = {w for w in self._withheld if w[0] >= hand}


def pack_have(report: dict[str, Any]) -> bytes:
    """A have report as a link frame (a msgpack map: signed frames are arrays)."""
    return encode(report)


def is_have(frame: bytes) -> bool:
    """Whether a link frame is a have report (a map) rather than a signed frame (an array)."""
    return frame[:6] == b"\x81\xa4have"


#: A have report's bounds: at most three hands, a count per seat and their hashes.
HAVE_LIMITS = Limits(max_bytes=MAX_HAVE, max_depth=4, max_elements=64, max_str=8,
                     max_bin=DIGEST * MAX_SEATS, max_array=MAX_SEATS, max_map=1,
                     max_memory=16384)


def have_shape(seats: int) -> Record[dict[str, Any]]:
    """A have report at a table of ``seats``: ``{"have": [[hand, counts, hashes], ...]}``,
    at most three hands, one count and one hash per seat."""
    return Record({"have": ListOf(Fixed(Int(0, 2**40 - 1), ListOf(Int(0, MAX_CHAIN), seats,
                                                                 seats),
                                        Bytes(DIGEST * seats)), 3)})


def read_have(frame: bytes, seats: int, who: str = "") -> dict[str, Any]:
    """A have report (from ``who``), checked; `HaveError` if it does not fit the table."""
    if seats > MAX_SEATS:
        raise HaveError("have report too large", who)
    try:
        return have_shape(seats).read(decode(frame, HAVE_LIMITS, who), who)
    except CodecError as exc:
        raise HaveError(f"unreadable have report: {exc.reason}", who) from None
