"""A model checker for the referee (`tractor.net.referee.machine`): small tables, one hostile seat,
every order of deliveries and timer firings up to a bound.

The model keeps the referee's own code and abstracts the rest: a hand is a short script of
moves (seat after seat); an honest peer makes its move the moment its turn comes, keeps
every frame and ballot it gets, forwards each one the first time it gets it (the relay:
whatever one honest peer holds reaches every other), and feeds its referee as `PeerNode`
does. Time is whole ticks on one clock; a message between honest peers arrives at most
`Scenario.delay` ticks after it left, in any order; the hostile seat's messages arrive when
it likes, or never. The hostile seat, from a menu, may: send each of its moves to any
subset of seats at any time (or never: a withheld move), send a second, different version
of a move (equivocation), sign votes and passes on any item and send them to any seat
(false notices, replays of the same ballot are no-ops), and flood ballots (one action: more
than the referee keeps). With `Scenario.leaves`, an honest peer that reaches a verdict may
leave at once (an AI process exits on it, a person quits): it acts no more, its link goes
down at every other peer, and what it sent before it went still arrives (its node waits for
its links to take it, `net.mesh.leaving`; `Scenario.flushed` False drops what it sent in
that last step, as a process that exited at once did).

Checked in every state: no honest peer's verdict names an honest seat; no referee keeps
more than its bound of ballots of one signer in a hand. Checked in every final
state (time is up and no honest message is in flight): every honest peer has the same
outcome (a verdict naming the same seat, or the whole script played); with no hostile seat,
the script is played everywhere with no verdict.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from tractor.net.referee.machine import (
    MAX_BALLOTS,
    Ballot,
    Blame,
    Cast,
    Effect,
    Item,
    Referee,
    TableNow,
    Timing,
    replace,
)

SEATS = 4
#: Deadlines in ticks: a step's deadline, the wait after the complaint, the grace.
TIMING = Timing(auto=3, move=3, complaint_wait=1, link_settle=0, grace=5)


@dataclass(frozen=True, order=True)
class Frame:
    """A move: ``seat``'s move number ``k`` (from 0) of the script, in ``version`` (a
    hostile seat may sign two)."""

    seat: int
    k: int
    version: int = 0


Payload = Frame | Ballot


@dataclass(frozen=True, order=True)
class Msg:
    sent: int
    src: int
    dst: int
    payload: Payload = field(compare=False)
    key: tuple[object, ...] = field(default=(), compare=True)


def _msg(sent: int, src: int, dst: int, payload: Payload) -> Msg:
    if isinstance(payload, Frame):
        key: tuple[object, ...] = ("f", payload.seat, payload.k, payload.version)
    else:
        key = ("b", payload.item, payload.signer, payload.came, payload.what)
    return Msg(sent, src, dst, payload, key)


@dataclass(frozen=True)
class Peer:
    """An honest peer: its referee, the frames it holds (first version of each move), the
    moves its table took per seat, where it stands in the script."""

    seat: int
    ref: Referee
    held: frozenset[Frame] = frozenset()
    applied: tuple[int, ...] = (0,) * SEATS
    pos: int = 0

    def fingerprint(self) -> object:
        return (self.ref.fingerprint(), self.held, self.applied, self.pos)


@dataclass(frozen=True)
class Scenario:
    """A table to explore: the script of moves (seats in order), the hostile seat (None:
    all honest) and its budget of ballots, and the time bound."""

    script: tuple[int, ...]
    hostile: int | None
    ballots: int = 1
    versions: int = 1  #: 2: the hostile seat may equivocate
    flood: bool = False  #: the hostile seat sends more ballots than a referee keeps
    #: What the hostile seat's votes may say (two: it may sign two different votes on one
    #: item, to different seats).
    words: tuple[str, ...] = ("play",)
    #: Ballots a referee keeps per signer and hand (small with a flood, to explore it).
    bound: int = MAX_BALLOTS
    until: int = 14  #: the last tick
    hostile_until: int = 8  #: the last tick the hostile seat acts
    #: Ticks within which a message between honest peers arrives: 0 (before the next tick)
    #: fits the real table (a relay takes a second or two, a tick stands for a third of the
    #: shortest deadline); 1 lets honest messages cross a tick too (the deeper sweep).
    delay: int = 0
    #: An honest peer that reaches a verdict leaves at once (an AI process exits, a person
    #: quits): it acts no more and its link goes down at every other peer.
    leaves: bool = False
    #: What a peer that leaves sent before it went still arrives: its node waits for its
    #: links to take it (`net.mesh.leaving`). False: what it sent in the step it decided is
    #: lost (a process that exits at once: its reactor drops what it has not sent).
    flushed: bool = True

    def moves_of(self, seat: int) -> int:
        return sum(s == seat for s in self.script)


@dataclass(frozen=True)
class World:
    now: int
    peers: tuple[Peer | None, ...]  #: None: the hostile seat
    flight: tuple[Msg, ...]
    spent: frozenset[object] = frozenset()  #: what the hostile seat did (each act once)
    timers: frozenset[int] = frozenset()  #: peers whose timer has not fired at ``now``
    left: frozenset[int] = frozenset()  #: honest peers that left on their verdict

    def fingerprint(self) -> object:
        return (self.now, tuple(p.fingerprint() if p else None for p in self.peers),
                self.flight, self.spent, self.timers, self.left)


class Violation(AssertionError):
    """A property failed: the trace (the acts from the start) shows how."""

    def __init__(self, what: str, trace: list[str]) -> None:
        super().__init__(what + "\n  " + "\n  ".join(trace))
        self.trace = trace


# --- an honest peer's steps -----------------------------------------------------------------


def _table(scn: Scenario, p: Peer) -> TableNow:
    waiting: tuple[tuple[int, str], ...] = ()
    if p.pos < len(scn.script) and scn.script[p.pos] != p.seat:
        waiting = ((scn.script[p.pos], "play"),)
    return TableNow(hand=0, marker=p.pos, waiting=waiting, moves=p.applied)


def _advance(scn: Scenario, p: Peer, now: int) -> tuple[Peer, list[Frame]]:
    """Take every held move whose turn has come; make this peer's
    own moves as their turns come. Returns the moves it made."""
    made: list[Frame] = []
    while p.pos < len(scn.script) and p.ref.verdict is None:
        seat = scn.script[p.pos]
        k = p.applied[seat]
        if seat == p.seat:
            own = Frame(seat, k)
            made.append(own)
            p = replace(p, held=p.held | {own})
        elif not any(f.seat == seat and f.k == k for f in p.held):
            break
        applied = list(p.applied)
        applied[seat] += 1
        p = replace(p, applied=tuple(applied), pos=p.pos + 1)
    return p, made


def _effects(w: World, seat: int, p: Peer, out: tuple[Effect, ...],
             msgs: list[Msg]) -> Peer:
    for e in out:
        if isinstance(e, Cast):
            msgs.extend(_msg(w.now, seat, d, e.ballot) for d in range(SEATS) if d != seat)
        # A complaint asks for what the relay brings anyway; a verdict stays in the referee.
    return p


def _settle(scn: Scenario, w: World, seat: int, p: Peer, msgs: list[Msg]) -> Peer:
    """After any change: the table takes what it can, the referee hears of it."""
    p, made = _advance(scn, p, w.now)
    msgs.extend(_msg(w.now, seat, d, f) for f in made for d in range(SEATS) if d != seat)
    ref, out = p.ref.moved(_table(scn, p), float(w.now))
    return _effects(w, seat, replace(p, ref=ref), out, msgs)


def _forward(scn: Scenario, w: World, m: Msg, payload: Payload) -> list[Msg]:
    """The relay: what a peer gets the first time it forwards to every other seat. Only
    the hostile seat's frames and ballots need it (an honest peer sends its own to every
    seat itself, within the delay bound: a forwarded copy adds no behaviour)."""
    author = payload.seat if isinstance(payload, Frame) else payload.signer
    if author != scn.hostile:
        return []
    return [_msg(w.now, m.dst, d, payload) for d in range(SEATS)
            if d not in (m.dst, m.src, author)]


def _deliver(scn: Scenario, w: World, m: Msg) -> World:
    p = w.peers[m.dst]
    assert p is not None
    msgs: list[Msg] = []
    payload = m.payload
    if isinstance(payload, Frame):
        same = [f for f in p.held if f.seat == payload.seat and f.k == payload.k]
        if same and same[0] != payload:
            # Two signed versions of one move: the deck's evidence (found at once).
            if p.ref.verdict is None:
                ref, out = p.ref.found(Blame(0, payload.seat, "deck", "two versions",
                                             (repr(same[0]).encode(), repr(payload).encode())))
                p = _effects(w, m.dst, replace(p, ref=ref), out, msgs)
            if payload not in p.held:
                p = replace(p, held=p.held | {payload})
                msgs.extend(_forward(scn, w, m, payload))
        elif not same:
            p = replace(p, held=p.held | {payload})
            msgs.extend(_forward(scn, w, m, payload))
            p = _settle(scn, w, m.dst, p, msgs)
    else:
        ref, out = p.ref.heard(payload, float(w.now))
        if ref is not p.ref:  # kept: relayed once (`judging.Judging.ballot_from`)
            msgs.extend(_forward(scn, w, m, payload))
        p = _effects(w, m.dst, replace(p, ref=ref), out, msgs)
        p = _settle(scn, w, m.dst, p, msgs)
    peers = list(w.peers)
    peers[m.dst] = p
    flight = list(w.flight)
    flight.remove(m)
    nxt = replace(w, peers=tuple(peers), flight=tuple(flight))
    return _canonical(_leave(scn, nxt, m.dst, msgs))


def _tick(scn: Scenario, w: World) -> World:
    """The clock moves on one tick: each honest peer's timer is due (each fires on its own,
    in any order among the deliveries: the peers' clocks are a little apart)."""
    due = frozenset(s for s, p in enumerate(w.peers) if p is not None and s not in w.left)
    return replace(w, now=w.now + 1, timers=due)


def _timer(scn: Scenario, w: World, seat: int) -> World:
    p = w.peers[seat]
    assert p is not None
    msgs: list[Msg] = []
    ref, out = p.ref.tick(float(w.now))
    p = _settle(scn, w, seat, _effects(w, seat, replace(p, ref=ref), out, msgs), msgs)
    peers = list(w.peers)
    peers[seat] = p
    nxt = replace(w, peers=tuple(peers), timers=w.timers - {seat})
    return _canonical(_leave(scn, nxt, seat, msgs))


def _leave(scn: Scenario, w: World, seat: int, msgs: list[Msg]) -> World:
    """``msgs``, what ``seat`` sent in its step, go out; if that step gave it a verdict
    and peers leave on theirs, it leaves: at once, and (unless flushed) with ``msgs`` lost.
    Every other peer's link to it goes down."""
    p = w.peers[seat]
    assert p is not None
    if not scn.leaves or p.ref.verdict is None or seat in w.left:
        return replace(w, flight=w.flight + tuple(msgs))
    kept = tuple(msgs) if scn.flushed else ()
    peers = list(w.peers)
    for s, other in enumerate(peers):
        if other is not None and s != seat and s not in w.left:
            ref, out = other.ref.link_down(seat, float(w.now))
            assert not out
            peers[s] = replace(other, ref=ref)
    return replace(w, peers=tuple(peers), flight=w.flight + kept, left=w.left | {seat},
                   timers=w.timers - {seat})


def _useless(w: World, m: Msg) -> bool:
    """A message that changes nothing where it goes (a copy of what it holds)."""
    p = w.peers[m.dst]
    if p is None or m.dst in w.left:
        return True  # the hostile seat knows everything already; a peer gone takes nothing
    if isinstance(m.payload, Frame):
        return m.payload in p.held
    return not p.ref.keeps(m.payload)


def _canonical(w: World) -> World:
    flight = tuple(sorted(m for m in w.flight if not _useless(w, m)))
    return replace(w, flight=tuple(dict.fromkeys(flight)))


# --- the hostile seat's menu ------------------------------------------------------------------


def _hostile_acts(scn: Scenario, w: World) -> Iterator[tuple[str, object, list[Msg]]]:
    """What the hostile seat may deliver now. When it sent a message does not matter (it
    may hold any of its messages as long as it likes), only when each arrives: so each act
    is one arrival, straight from its hand to an honest seat."""
    h = scn.hostile
    if h is None or w.now > scn.hostile_until:
        return
    honest = [s for s in range(SEATS) if s != h and s not in w.left]
    for k in range(scn.moves_of(h)):
        for v in range(scn.versions):
            for d in honest:
                act = ("move", k, v, d)
                if act not in w.spent:
                    yield f"t={w.now} hostile {h}'s move {k} v{v} reaches {d}", act, [
                        _msg(w.now, h, d, Frame(h, k, v))]
    used = {a[1] for a in w.spent if a[0] == "ballot"}  # type: ignore[index]
    kinds = [(True, "")] + [(False, what) for what in scn.words]
    for s in range(SEATS):
        for k in range(scn.moves_of(s) + 1):
            for came, what in kinds:
                if (s, k, came, what) not in used and len(used) >= scn.ballots:
                    continue
                ballot = Ballot(Item(0, s, k), h, came, what,
                                f"hostile {h} {came} {what} {s} {k}".encode())
                for d in honest:
                    act = ("ballot", (s, k, came, what), d)
                    if act not in w.spent:
                        kind = "pass" if came else "vote"
                        yield (f"t={w.now} hostile {h}'s {kind} on seat {s}'s move {k} "
                               f"reaches {d}", act, [_msg(w.now, h, d, ballot)])
    if scn.flood and ("flood",) not in w.spent:
        # More than a referee keeps (`Scenario.bound`, small here so that the flood stays
        # small enough to explore), to one seat: it relays only what it keeps.
        many = [Ballot(Item(0, honest[0], 50 + i), h, False, "play", b"flood %d" % i)
                for i in range(scn.bound + 2)]
        yield f"t={w.now} hostile {h} floods {len(many)} votes", ("flood",), [
            _msg(w.now, h, honest[-1], b) for b in many]


# --- exploring ---------------------------------------------------------------------------------


def start(scn: Scenario) -> World:
    peers: list[Peer | None] = []
    msgs: list[Msg] = []
    w = World(0, (), ())
    for seat in range(SEATS):
        if seat == scn.hostile:
            peers.append(None)
            continue
        ref = Referee.start(SEATS, seat, TIMING, 0.0, max_ballots=scn.bound)
        for other in range(SEATS):
            if other != seat:
                ref, _ = ref.link_up(other, 0.0)
        peers.append(_settle(scn, w, seat, Peer(seat, ref), msgs))
    return _canonical(replace(w, peers=tuple(peers), flight=tuple(msgs)))


def outcome(scn: Scenario, p: Peer) -> object:
    if p.ref.verdict is not None:
        return ("blame", p.ref.verdict.hand, p.ref.verdict.seat)
    return "played" if p.pos == len(scn.script) else ("stuck at", p.pos)


def _check_state(scn: Scenario, w: World, trace: list[str]) -> None:
    for p in w.peers:
        if p is None:
            continue
        v = p.ref.verdict
        if v is not None and v.seat != scn.hostile:
            raise Violation(f"peer {p.seat} names honest seat {v.seat} ({v.kind})", trace)
        for signer in range(SEATS):
            if p.ref.ballots_by(0, signer) > scn.bound or \
                    p.ref.ballots_by(0, signer, True) > scn.bound * SEATS:
                raise Violation(f"peer {p.seat} keeps over {scn.bound} ballots of "
                                f"{signer}", trace)


def _check_final(scn: Scenario, w: World, trace: list[str]) -> None:
    ends = {p.seat: outcome(scn, p) for p in w.peers if p is not None}
    if len(set(ends.values())) != 1:
        raise Violation(f"honest peers end differently: {ends}", trace)
    if scn.hostile is None and set(ends.values()) != {"played"}:
        raise Violation(f"an honest table did not play its hand: {ends}", trace)
    if any(isinstance(e, tuple) and e[0] == "stuck at" for e in ends.values()):
        raise Violation(f"the table is stuck with no verdict: {ends}", trace)


def _acts(scn: Scenario, w: World) -> Iterator[tuple[str, object | None, list[Msg] | None]]:
    for m in w.flight:
        yield f"t={w.now} {m.src}->{m.dst} {m.payload}", None, [m]
    for seat in sorted(w.timers):
        yield f"t={w.now} peer {seat}'s timer", ("timer", seat), None
    yield from _hostile_acts(scn, w)
    late = any(m.src != scn.hostile and m.sent <= w.now - scn.delay for m in w.flight)
    if w.now < scn.until and not late and not w.timers:
        yield f"tick to {w.now + 1}", "tick", None


@dataclass
class Report:
    states: int = 0
    finals: int = 0
    outcomes: dict[object, int] = field(default_factory=dict)


def explore(scn: Scenario, limit: int = 2_000_000) -> Report:
    """Every state reachable from the start, depth first, each state once. Raises
    `Violation` with the trace that breaks a property."""
    report = Report()
    first = start(scn)
    seen = {first.fingerprint()}
    stack: list[tuple[World, list[str]]] = [(first, [])]
    while stack:
        w, trace = stack.pop()
        report.states += 1
        if report.states > limit:
            raise RuntimeError(f"more than {limit} states")
        _check_state(scn, w, trace)
        honest_flight = any(m.src != scn.hostile for m in w.flight)
        if w.now == scn.until and not honest_flight and not w.timers:
            report.finals += 1
            _check_final(scn, w, trace)
            key = str(sorted({str(outcome(scn, p)) for p in w.peers if p is not None}))
            report.outcomes[key] = report.outcomes.get(key, 0) + 1
        for label, act, msgs in _acts(scn, w):
            if act == "tick":
                nxt = _tick(scn, w)
            elif isinstance(act, tuple) and act[0] == "timer":
                nxt = _timer(scn, w, act[1])
            elif act is None:
                assert msgs is not None
                nxt = _deliver(scn, w, msgs[0])
            else:  # the hostile seat's message arrives
                assert msgs is not None
                nxt = replace(w, spent=w.spent | {act})
                for m in msgs:
                    nxt = _deliver(scn, replace(nxt, flight=nxt.flight + (m,)), m)
            fp = nxt.fingerprint()
            if fp not in seen:
                seen.add(fp)
                stack.append((nxt, [*trace, label]))
    return report
