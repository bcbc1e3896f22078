"""The referee: who holds the table up, decided from signed ballots, the same on every peer.

A table with no trusted host still has to end a hand when a seat stops sending what it owes.
No peer can prove to another how long it waited, so no single peer's clock may name anyone.
What the table shares is signatures; the referee turns waits into signed *ballots* and
blames only on a set of ballots that every honest peer ends up holding.

An *item* is one message a seat owes: ``Item(hand, seat, moves)`` is seat's next move after
the first ``moves`` (its chat aside) in that hand. Every peer watches its own waits:

- past the step's deadline (`Timing.deadline`) with the seat's link up and settled, it
  *complains* (signed, relayed: whoever holds the message sends it at once);
- `Timing.complaint_wait` later, still without it, it casts a signed **vote** on the item
  ("I have waited past the deadline and hold only ``moves`` of its moves"); a seat whose
  link is down gets `Timing.grace` instead, from when it went, and the vote says "gone";
- a peer that hears a vote on an item it is past (it holds the seat's next move, or its
  table finished that hand) casts a signed **pass** on it.

A vote is never withdrawn. How an item settles is a function of the ballots alone
(`settle`), so every peer that holds the same ballots (the relay brings every ballot to
every peer) settles it the same way:

=================================  ========================================================
ballots on the item                settles as
=================================  ========================================================
two ballots of one signer          that signer is blamed: a vote and a pass, or two votes
                                   that say different things (``equivocation``)
a pass from any seat but the owner ``came``: the message exists, the table goes on
votes from every seat but the owner the owner is blamed (``stall``, ``keys`` or ``gone``)
anything else                      still open
=================================  ========================================================

Why no honest seat is blamed: an honest seat's message reaches every honest peer within a
relay's delay, far inside any deadline, so an honest peer never votes on it and its pass
settles any vote as ``came``. A single vote (a hostile seat naming whom it likes) stops
nothing: nobody backs it with a wait of its own. Why every honest peer ends the same: the
owner is blamed only if every other seat voted, and a vote is never withdrawn, so no seat
passed and no peer settles the item as ``came``; a seat that both voted and passed is
caught by its two signatures, whichever peer saw which first (a peer whose own vote made
the set sends it before it leaves on its verdict: `net.mesh.leaving`; without it the others
could never decide). A peer that voted may still take the late message and play on
meanwhile: a verdict is on the item's hand, which the table forfeits wherever it stands
(``tests/referee_model.py`` checks all of this over every interleaving of small tables).

Per-peer state machine of one item (``now`` is always given, never read):

=============  ===================================  ===========  ==========================
state          event                                next         effect
=============  ===================================  ===========  ==========================
(none)         the table waits on the seat          waiting      since = now
waiting        deadline passed, link settled        complained   `Complain`
waiting        link down and wait both past grace   voted        `Cast` a vote ("gone")
complained     `Timing.complaint_wait` passed       voted        `Cast` a vote
waiting/compl. the table moves on                   (none)
any unballoted a vote heard, this peer is past it   passed       `Cast` a pass
voted          a pass from a seat but the owner     came
voted          votes of every seat but the owner    blamed       `Decide`
any            two ballots of one signer            blamed       `Decide`
=============  ===================================  ===========  ==========================

Evidence found outside (a deck violation: an equivocated or invalid signed message) is fed
in as `Found` and decides at once, as do the blames above: this peer's first blame is its
verdict (it names the only seat that can be blamed, so peers that found different ones
first still name the same seat).

>>> t = Timing(auto=10, move=30, complaint_wait=2, link_settle=1, grace=20)
>>> r = Referee.start(seats=4, me=0, timing=t, now=0.0)
>>> for s in (1, 2, 3):
...     r, _ = r.link_up(s, 0.0)
>>> r, _ = r.moved(TableNow(hand=0, marker=1, waiting=((2, "shuffle"),), moves=(0, 0, 0, 0)),
...                1.0)
>>> r, out = r.tick(11.0)
>>> out
(Complain(item=Item(hand=0, seat=2, moves=0), what='shuffle'),)
>>> r, out = r.tick(13.0)
>>> [(e.ballot.signer, e.ballot.came, e.ballot.what) for e in out]
[(0, False, 'shuffle')]
>>> r, out = r.heard(Ballot(Item(0, 2, 0), signer=1, came=True), 14.0)
>>> r.settled
mappingproxy({Item(hand=0, seat=2, moves=0): 'came'})
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

Seat = int
Hand = int
_V = TypeVar("_V")
#: Votes one signer may have on record per hand, and passes as many per seat of the table
#: (a seat votes on a few steps of a hand; more is a flood, refused, so what one seat makes
#: a peer hold stays small).
MAX_BALLOTS = 32
GONE = "gone"  #: what a vote names when the seat's link was down for the grace period
KEYS = "keys"  #: what a vote names for keys the deck is owed past their deadline


@dataclass(frozen=True, order=True)
class Item:
    """A message ``seat`` owes in ``hand``: its next move after its first ``moves``."""

    hand: Hand
    seat: Seat
    moves: int


@dataclass(frozen=True)
class Ballot:
    """A signed ballot on an item: a vote (``came`` False: the signer waited past the
    deadline for it, ``what`` it waited for) or a pass (``came`` True: the signer is past
    it). ``frame`` is its signed bytes, the evidence a blame carries."""

    item: Item
    signer: Seat
    came: bool
    what: str = ""
    frame: bytes = field(default=b"", compare=False)


@dataclass(frozen=True)
class Timing:
    """Seconds: a step's deadline, the wait after a complaint, the time a seat whose link
    came up has to resend, and the grace of a seat whose link is down."""

    auto: float = 60.0
    move: float = 300.0
    complaint_wait: float = 10.0
    link_settle: float = 5.0
    grace: float = 120.0
    decisions: frozenset[str] = frozenset(
        {"play", "declaration window", "bid", "show", "name", "burial",
         "call"})

    def deadline(self, what: str) -> float:
        return self.move if what in self.decisions else self.auto


@dataclass(frozen=True)
class TableNow:
    """What the table says now: its hand, a marker that changes whenever it moves on, the
    seats it waits on (this peer's own aside) with what each owes, and every seat's moves
    so far in the hand."""

    hand: Hand
    marker: Hashable
    waiting: tuple[tuple[Seat, str], ...]
    moves: tuple[int, ...]


@dataclass(frozen=True)
class Blame:
    """A verdict: ``seat`` is to blame in ``hand`` for ``kind`` (``stall``, ``keys``,
    ``gone``, ``equivocation``, or ``deck`` for evidence found in the deck), shown by the
    signed ``frames``. ``cause`` is the deck's own error for ``deck``. ``moves``: for a
    blame on votes, the seat's moves before the one found missing (the item's)."""

    hand: Hand
    seat: Seat
    kind: str
    what: str
    frames: tuple[bytes, ...] = ()
    cause: Exception | None = field(default=None, compare=False)
    moves: int | None = None


# --- effects: what the shell does for the referee ---------------------------------------------

@dataclass(frozen=True)
class Complain:
    """Sign and send a complaint about the item (holders of the message send it at once)."""

    item: Item
    what: str


@dataclass(frozen=True)
class Cast:
    """Keep this ballot (signed: ``ballot.frame``) in the journal and send it to every
    seat. The referee holds it as cast already."""

    ballot: Ballot


@dataclass(frozen=True)
class Decide:
    """The verdict: halt on it, sending its frames to every seat."""

    blame: Blame


Effect = Complain | Cast | Decide


@dataclass(frozen=True)
class _Wait:
    item: Item
    what: str
    since: float
    complained: float | None = None


def settle(item: Item, ballots: Mapping[Seat, frozenset[bool]], seats: int) -> str | Seat:
    """How the ballots on ``item`` settle it: ``"came"``, ``"open"``, the owner's seat (all
    the others voted) or, before all else, the lowest seat that both voted and passed
    (returned as ``-1 - seat``).

    >>> i = Item(0, 2, 5)
    >>> settle(i, {0: frozenset({False}), 1: frozenset({False})}, 4)
    'open'
    >>> settle(i, {0: frozenset({False}), 1: frozenset({False}), 3: frozenset({False})}, 4)
    2
    >>> settle(i, {0: frozenset({False}), 3: frozenset({True})}, 4)
    'came'
    >>> settle(i, {1: frozenset({False, True}), 3: frozenset({True})}, 4)
    -2
    """
    others = [s for s in range(seats) if s != item.seat]
    both = [s for s in others if len(ballots.get(s, ())) == 2]
    if both:
        return -1 - min(both)
    if any(True in ballots.get(s, ()) for s in others):
        return "came"
    if all(False in ballots.get(s, ()) for s in others):
        return item.seat
    return "open"


def replace(value: _V, **changes: Any) -> _V:
    """A frozen value with a few fields changed: `dataclasses.replace` without its checks
    (the model checker makes millions of these)."""
    new = object.__new__(type(value))
    new.__dict__.update(value.__dict__)
    new.__dict__.update(changes)
    new.__dict__.pop("_fingerprint", None)  # computed for the old value
    return new


def _unsigned(ballot: Ballot) -> bytes:
    return repr(ballot).encode()


def _frozen_map() -> Mapping[Any, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Referee:
    """One peer's referee: immutable; every event returns the next referee and its effects.

    The shell (`wire.PeerNode`) feeds it: `moved` whenever the table changes, `tick` once a
    second, `keys_overdue` for keys the deck is owed past their deadline, `link_up` and
    `link_down`, `heard` for every checked ballot (this peer's own too), `found` for
    evidence the deck found. It never reads a clock or a socket."""

    seats: int
    me: Seat
    timing: Timing
    table: TableNow | None = None
    waits: tuple[_Wait, ...] = ()
    up_since: Mapping[Seat, float] = field(default_factory=_frozen_map)
    down_since: Mapping[Seat, float] = field(default_factory=_frozen_map)
    #: item -> signer -> what it cast on it (a vote, a pass, or both: then it is caught).
    ballots: Mapping[Item, Mapping[Seat, tuple[Ballot, ...]]] = field(default_factory=_frozen_map)
    settled: Mapping[Item, str] = field(default_factory=_frozen_map)  #: items settled as came
    verdict: Blame | None = None
    #: Votes kept per signer and hand, and passes `seats` times as many (more are a flood,
    #: dropped unread).
    max_ballots: int = MAX_BALLOTS
    #: Signs this peer's ballots (Ed25519 signatures are deterministic: still pure).
    sign: Callable[[Ballot], bytes] = field(default=_unsigned, compare=False)

    @classmethod
    def start(cls, seats: int, me: Seat, timing: Timing = Timing(), now: float = 0.0,
              sign: Callable[[Ballot], bytes] = _unsigned,
              max_ballots: int = MAX_BALLOTS) -> Referee:
        """A referee for a peer that starts (or resumes) at ``now``: every other seat is
        down until its link comes up."""
        down = {s: now for s in range(seats) if s != me}
        return cls(seats, me, timing, down_since=MappingProxyType(down), sign=sign,
                   max_ballots=max_ballots)

    # --- queries ---------------------------------------------------------------------------

    def kinds(self, item: Item, signer: Seat) -> frozenset[bool]:
        """What ``signer`` cast on ``item``: True for a pass, False for a vote."""
        return frozenset(b.came for b in self.ballots.get(item, {}).get(signer, ()))

    def own(self, item: Item) -> frozenset[bool]:
        return self.kinds(item, self.me)

    def ballots_by(self, hand: Hand, signer: Seat, came: bool = False) -> int:
        """Items of ``hand`` on which ``signer`` voted (or, ``came``, passed)."""
        return sum(any(b.came == came for b in cast.get(signer, ()))
                   for i, cast in self.ballots.items() if i.hand == hand)

    # --- events ----------------------------------------------------------------------------

    def link_up(self, seat: Seat, now: float) -> tuple[Referee, tuple[Effect, ...]]:
        up = dict(self.up_since)
        up[seat] = now
        down = {s: t for s, t in self.down_since.items() if s != seat}
        return replace(self, up_since=MappingProxyType(up),
                       down_since=MappingProxyType(down)), ()

    def link_down(self, seat: Seat, now: float) -> tuple[Referee, tuple[Effect, ...]]:
        if seat not in self.up_since:
            return self, ()
        up = {s: t for s, t in self.up_since.items() if s != seat}
        down = dict(self.down_since)
        down[seat] = now
        return replace(self, up_since=MappingProxyType(up),
                       down_since=MappingProxyType(down)), ()

    def moved(self, table: TableNow, now: float) -> tuple[Referee, tuple[Effect, ...]]:
        """The table changed (or may have): waits it no longer has end; new ones start."""
        if table == self.table:
            return self, ()
        waits = []
        owed = dict(table.waiting)
        for seat, what in sorted(owed.items()):
            item = Item(table.hand, seat, table.moves[seat])
            old = next((w for w in self.waits if w.item == item and w.what == what), None)
            waits.append(old or _Wait(item, what, now))
        nxt = replace(self, table=table, waits=tuple(waits))
        return nxt._after(now, ())

    def tick(self, now: float,
             keys_overdue: frozenset[Seat] = frozenset()) -> tuple[Referee, tuple[Effect, ...]]:
        """Time passed. ``keys_overdue``: seats that owe keys past the deck's own deadline
        (each key's deadline starts with this peer's copy of the frame that asks for it)."""
        if self.verdict is not None or self.table is None:
            return self, ()
        out: list[Effect] = []
        waits = []
        for w in self.waits:
            seat = w.item.seat
            if self.own(w.item) or w.item in self.settled:
                waits.append(w)
                continue
            down = self.down_since.get(seat)
            if down is not None:
                # Gone: no link for the grace period, and nothing of it for as long (a seat
                # whose moves keep coming, relayed by the others, is not gone).
                if now - down >= self.timing.grace and now - w.since >= self.timing.grace:
                    out.append(Cast(Ballot(w.item, self.me, False, GONE)))
                waits.append(w)
                continue
            if now - self.up_since[seat] < self.timing.link_settle:
                waits.append(w)  # it has just come back: time to resend what it owes
                continue
            what = KEYS if seat in keys_overdue else w.what
            due = seat in keys_overdue or now - w.since >= self.timing.deadline(w.what)
            if w.complained is None and due:
                out.append(Complain(w.item, what))
                w = replace(w, complained=now, what=what)
            elif w.complained is not None and now - w.complained >= self.timing.complaint_wait:
                out.append(Cast(Ballot(w.item, self.me, False, w.what)))
            waits.append(w)
        return replace(self, waits=tuple(waits))._after(now, tuple(out))

    def heard(self, ballot: Ballot, now: float,
              own: bool = False) -> tuple[Referee, tuple[Effect, ...]]:
        """A checked, signed ballot (a seat's, relayed or not, or this peer's own). The
        same referee back (``is`` it) means it was not kept: heard before, a flood, or a
        pass that answers no vote; the shell relays only what was kept. ``own``: this
        peer's own ballot read back from its journal, kept whatever the bounds."""
        cast = self.ballots.get(ballot.item, {}).get(ballot.signer, ())
        if ballot in cast or not (own or self.keeps(ballot)):
            return self, ()
        # Only this item's ballots changed: every other item stands as the last event
        # left it (its passes cast, its settling done), so only this one is gone over
        # again (over every item, a flood's ballots each cost as many as were held).
        return self._record(ballot)._after(now, (), (ballot.item,))

    def keeps(self, ballot: Ballot) -> bool:
        """Whether `heard` would keep ``ballot``: not heard before (nor this peer's own
        relayed back), and within the bounds. A second, different ballot of a signer on an
        item is kept whatever the bounds (the evidence against it; two are enough). Votes
        and passes are bounded apart: an honest seat passes once per vote of the others it
        kept, so its passes never reach their bound, and a flood of votes on moves that
        came can never crowd out its own vote."""
        item = ballot.item
        cast = self.ballots.get(item, {}).get(ballot.signer, ())
        if ballot in cast or len(cast) >= 2:
            return False
        if cast or self._live(item, ballot.signer):
            return True
        bound = self.max_ballots * (self.seats if ballot.came else 1)
        return self.ballots_by(item.hand, ballot.signer, ballot.came) < bound

    def _live(self, item: Item, signer: Seat) -> bool:
        """Whether ``item`` is one a ballot past the bounds must still count on: this peer
        waits on it, or has a ballot on it, or another seat voted on it. What a peer keeps
        must not hang on the order ballots came in (a flood's last vote reaching one peer
        before another seat's real one, and the other peers after): such items are few
        (one per seat waited on, one per vote kept), so this stays bounded."""
        if any(w.item == item for w in self.waits) or self.own(item):
            return True
        return any(not b.came for s, cast in self.ballots.get(item, {}).items()
                   if s != signer for b in cast)

    def _record(self, ballot: Ballot) -> Referee:
        item = ballot.item
        cast = dict(self.ballots.get(item, {}))
        cast[ballot.signer] = (*cast.get(ballot.signer, ()), ballot)
        ballots = dict(self.ballots)
        ballots[item] = MappingProxyType(cast)
        return replace(self, ballots=MappingProxyType(ballots))

    def found(self, blame: Blame) -> tuple[Referee, tuple[Effect, ...]]:
        """Evidence found outside the referee (a deck violation): the verdict, unless this
        peer has one already."""
        if self.verdict is not None:
            return self, ()
        return replace(self, verdict=blame), (Decide(blame),)

    def forget_before(self, hand: Hand) -> Referee:
        """Ballots of hands before ``hand`` are settled business (bounded memory)."""
        keep = {i: v for i, v in self.ballots.items() if i.hand >= hand}
        return replace(
            self, ballots=MappingProxyType(keep),
            settled=MappingProxyType({i: s for i, s in self.settled.items() if i in keep}))

    # --- what follows any event --------------------------------------------------------------

    def _after(self, now: float, out: tuple[Effect, ...],
               changed: tuple[Item, ...] | None = None) -> tuple[Referee, tuple[Effect, ...]]:
        """Passes due, items settled, the verdict: after every event. ``changed``: the
        only items whose ballots the event changed (None: any, or the table)."""
        effects = list(out)
        nxt = self
        items = sorted(nxt.ballots) if changed is None else sorted(changed)
        if nxt.verdict is None:
            for item in items:
                if not nxt.own(item) and item.seat != nxt.me and nxt._past(item):
                    effects.append(Cast(Ballot(item, nxt.me, True)))
        # Cast each ballot once, and hold it as cast at once (its frame comes back signed).
        unique: list[Effect] = []
        for e in effects:
            if isinstance(e, Cast):
                if e.ballot.came in nxt.own(e.ballot.item):
                    continue
                e = Cast(replace(e.ballot, frame=nxt.sign(e.ballot)))
                nxt = nxt._record(e.ballot)
            unique.append(e)
        settled = dict(nxt.settled)
        for item in (sorted(nxt.ballots) if changed is None else items):
            # A settled item is settled again too: a signer's second, contrary ballot may
            # come after its first settled the item (every peer must catch it, whichever
            # of the two it heard first).
            # Two different ballots of one signer (a vote and a pass, or two votes that
            # say different things) count as both kinds: it is caught.
            kinds = {s: frozenset({False, True}) if len(cast) > 1 else nxt.kinds(item, s)
                     for s, cast in nxt.ballots[item].items()}
            result = settle(item, kinds, nxt.seats)
            if result == "came":
                settled[item] = "came"
            elif isinstance(result, int) and nxt.verdict is None:
                blame = nxt._blame(item, result)
                nxt = replace(nxt, verdict=blame)
                unique.append(Decide(blame))
        return replace(nxt, settled=MappingProxyType(settled)), tuple(unique)

    def _past(self, item: Item) -> bool:
        """Whether this peer is past ``item`` (holds the seat's next move, or finished the
        hand): only then may it pass, and only if somebody voted on it."""
        if not any(False in self.kinds(item, s) for s in self.ballots.get(item, {})
                   if s != item.seat):
            return False
        t = self.table
        if t is None:
            return False
        return item.hand < t.hand or (item.hand == t.hand and t.moves[item.seat] > item.moves)

    def _blame(self, item: Item, result: int) -> Blame:
        cast = self.ballots[item]
        if result < 0:  # a signer both voted and passed: its two ballots show it
            seat = -1 - result
            return Blame(item.hand, seat, "equivocation",
                         f"two different ballots on seat {item.seat}'s move",
                         tuple(b.frame for b in cast[seat][:2]))
        votes = [next(b for b in cast[s] if not b.came)
                 for s in sorted(cast) if s != item.seat]
        # The words of the lowest voter: the same on every peer (they hold the same votes).
        what = votes[0].what
        kind = GONE if all(b.what == GONE for b in votes) else KEYS if what == KEYS else "stall"
        return Blame(item.hand, item.seat, kind, what, tuple(b.frame for b in votes),
                     moves=item.moves)

    def fingerprint(self) -> Hashable:
        """Everything that makes this referee what it is, hashable (the model checker
        counts the states it explored by it)."""
        known = self.__dict__.get("_fingerprint")
        if known is None:
            known = self.__dict__["_fingerprint"] = self._fingerprint()
        return known

    def _fingerprint(self) -> Hashable:
        return (self.table, self.waits, tuple(sorted(self.up_since.items())),
                tuple(sorted(self.down_since.items())),
                tuple(sorted((i, tuple(sorted(v.items()))) for i, v in self.ballots.items())),
                tuple(sorted(self.settled)), self.verdict)
