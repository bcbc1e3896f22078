"""Second hostile-peer attack run on the stall/blame referee (net/referee/machine.py,
net/referee/judging.py, net/mesh/wire.py). One hostile seat, the others honest; each test checks
that no honest seat is named and that every honest peer ends the same way. The run found one
split (a vote past the per-signer bound reaching one peer first:
`..._cannot_reach_one_peer_only`, fixed by `Referee.keeps`). The moments around the votes are a
sample here (every offset of ``TRACTOR_ATTACK_OFFSETS``, default the two closest, 0.01 s either
side; the run itself tried -2, -0.01, 0.01 and 2 s: 65 cases, all held)."""

from __future__ import annotations

import functools
import os
from typing import Any

import pytest
from memnet import TABLE, MemNet, Tamper, header
from test_stalls import GoesAway

from tractor.net.referee.ballots import pack_ballot
from tractor.net.referee.machine import Ballot, Item
from tractor.net.referee.stall import COMPLAINT_WAIT
from tractor.net.table.player import RandomPlayer


def outcome(net: MemNet, s: int) -> tuple[str, Any]:
    halted = net.nodes[s].halted
    if halted is None:
        return ("playing" if not net.nodes[s].done.called else "finished", None)
    return (type(halted).__name__, getattr(halted, "seat", None))


def deliver(net: MemNet, src: int, dst: int, frames: list[bytes]) -> None:
    pair = net.pairs[(min(src, dst), max(src, dst))]
    for frame in frames:
        pair.links[dst].dataReceived(len(frame).to_bytes(4, "big") + frame)


def send_as(net: MemNet, src: int, dst: int, frames: list[bytes]) -> None:
    link = net.pairs[(min(src, dst), max(src, dst))].links[dst]
    for frame in frames:
        link.stringReceived(frame)


def complained(net: MemNet, s: int, bad: int) -> float | None:
    waits = [w for w in net.nodes[s].refereeing.referee.waits if w.item.seat == bad]
    return waits[0].complained if waits else None


def late_release(net: MemNet, bad: int, kind: str, nth: int, hand: int, offset: float,
                 gets: tuple[int, ...]) -> dict[str, Any]:
    """From ``bad``'s ``nth`` frame of ``kind`` in ``hand`` on, its frames are held from
    every peer; once every honest peer complained about it, they reach the peers ``gets``
    at ``complained + COMPLAINT_WAIT + offset`` (the others never get them straight: only
    relayed). After that, ``bad``'s frames flow normally."""
    state: dict[str, Any] = {"seen": 0, "on": False, "done": False, "at": None}
    held: dict[int, list[bytes]] = {d: [] for d in range(len(net.nodes)) if d != bad}
    honest = [s for s in range(len(net.nodes)) if s != bad]

    def release() -> None:
        state["on"], state["done"] = False, True
        for d in gets:
            deliver(net, bad, d, held[d])

    def poll() -> None:
        if state["on"] and state["at"] is None:
            times = [complained(net, s, bad) for s in honest]
            if all(t is not None for t in times):
                state["at"] = min(times) + COMPLAINT_WAIT + offset  # type: ignore[type-var]
                net.clock.callLater(max(state["at"] - net.clock.seconds(), 0), release)
        if not state["done"]:
            net.clock.callLater(0.05, poll)

    def tamper_for(dst: int) -> Tamper:
        def tamper(frame: bytes) -> list[bytes]:
            h = header(frame)
            if not state["done"] and not state["on"] and h[5] == kind and h[2] == hand:
                if dst == honest[0]:
                    state["seen"] += 1
                if state["seen"] >= nth:
                    state["on"] = True
            if state["on"]:
                held[dst].append(frame)
                return []
            return [frame]
        return tamper
    for d in honest:
        net.tamper[(bad, d)] = tamper_for(d)
    net.clock.callLater(0.05, poll)
    return state


def run(net: MemNet, honest: list[int], limit: float = 3000.0, tail: float = 30.0) -> None:
    """`MemNet.run` until the ``honest`` nodes are done, then ``tail`` more seconds with
    every node still up (what is in flight arrives: `MemNet.run` would close the links),
    then stop."""
    for node in net.nodes:
        node.begin()
    while not all(net.nodes[s].done.called for s in honest) and net.clock.seconds() < limit:
        calls = net.clock.getDelayedCalls()
        if not calls:
            break
        net.clock.advance(max(min(c.getTime() for c in calls) - net.clock.seconds(), 0.0))
    drain(net, tail)
    for node in net.nodes:
        node.stop()


def drain(net: MemNet, seconds: float = 30.0) -> None:
    """Deliver what is still in flight after `MemNet.run` stopped the nodes' loops (a peer
    that finished a hand still hears the votes sent to it)."""
    end = net.clock.seconds() + seconds
    while net.clock.getDelayedCalls() and net.clock.seconds() < end:
        step = min(c.getTime() for c in net.clock.getDelayedCalls()) - net.clock.seconds()
        net.clock.advance(max(step, 0.0))


def check_same_and_fair(net: MemNet, bad: int) -> dict[int, tuple[str, Any]]:
    honest = [s for s in range(len(net.nodes)) if s != bad]
    outs = {s: outcome(net, s) for s in honest}
    for _s, (_cls, seat) in outs.items():
        assert seat is None or seat == bad, ("honest seat named", outs)
    assert len(set(outs.values())) == 1, ("honest peers differ", outs)
    if all(o == ("finished", None) for o in outs.values()):
        assert net.completed(honest), net.results(honest)
    return outs


# --- (A) a late move to some peers, around their votes ----------------------------------------

CASES = [("app", 40, 0), ("shuffle", 1, 0), ("lock", 1, 0), ("deal", 5, 0), ("audit", 1, 0),
         ("verdict", 1, 0)]


OFFSETS = [float(x) for x in os.environ.get("TRACTOR_ATTACK_OFFSETS", "-0.01,0.01").split(",")]


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "nth", "hand"), CASES)
@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("gets", [(1,), (1, 2)])
def test_a_late_move_to_some_peers_around_their_votes(kind, nth, hand, offset, gets):
    net = MemNet(seed=3)
    state = late_release(net, 3, kind, nth, hand, offset, gets)
    run(net, [0, 1, 2])
    assert state["on"] or state["done"], "the attack never fired"
    outs = check_same_and_fair(net, 3)
    assert outs[0][0] != "playing", outs  # the table does not hang


# --- (A) across a hand boundary: the last card of a hand late ------------------------------


@functools.cache  # the same clean run for every case of a seed (MemNet is deterministic)
def last_app_of_hand(seed: int) -> tuple[int, int]:
    """(seat, nth) of the seat that sends the last 'app' frame of hand 0, on a clean run."""
    net = MemNet(seed=seed, hands=2)
    log: list[tuple[int, int]] = []
    orig = net._send

    def spy(pair: Any, src: int, dst: int, frame: bytes) -> None:
        h = header(frame)
        if h and h[2] == 0 and h[5] == "app" and dst == (1 if src == 0 else 0):
            log.append((src, sum(1 for s, _ in log if s == src) + 1))
        orig(pair, src, dst, frame)
    net._send = spy  # type: ignore[method-assign]
    net.run(limit=3000)
    assert net.completed()
    return log[-1]


@pytest.mark.slow
@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("gets", [(0,), (0, 1), (1, 2)])
def test_the_last_card_of_a_hand_late_to_some_peers(offset, gets):
    seed = 3
    bad, nth = last_app_of_hand(seed)
    gets = tuple(g if g != bad else 3 for g in gets)
    net = MemNet(seed=seed, hands=2)
    state = late_release(net, bad, "app", nth, 0, offset, gets)
    honest = [s for s in range(4) if s != bad]
    run(net, honest)
    assert state["on"] or state["done"]
    outs = check_same_and_fair(net, bad)
    if outs[honest[0]][0] not in ("finished", "playing"):
        forfeits = []
        for s in honest:
            res = net.sessions[s].forfeit(bad, net.nodes[s].verdict_hand)
            forfeits.append((None if res is None else res.to_data(), net.sessions[s].carry(),
                             [r.to_data() for r in net.sessions[s].results]))
        assert all(f == forfeits[0] for f in forfeits), forfeits


# --- (B) a vote to one peer and a pass on the same item to another ---------------------------


@pytest.mark.parametrize("order", ["vote_first", "pass_first", "together"])
def test_a_vote_to_one_peer_and_a_pass_to_another_is_caught_by_every_peer(order):
    net = MemNet(seed=3)
    item = Item(0, 0, 2)  # seat 0's third move: every peer holds it

    def attack() -> None:
        vote = pack_ballot(net.keys[3], TABLE, Ballot(item, 3, False, "play"))
        pas = pack_ballot(net.keys[3], TABLE, Ballot(item, 3, True))
        if order == "vote_first":
            send_as(net, 3, 1, [vote])
            net.clock.callLater(0.5, send_as, net, 3, 2, [pas])
        elif order == "pass_first":
            send_as(net, 3, 2, [pas])
            net.clock.callLater(0.5, send_as, net, 3, 1, [vote])
        else:
            send_as(net, 3, 1, [vote])
            send_as(net, 3, 2, [pas])

    def fire() -> bool:
        if net.sessions[1].current.moves_of(0) >= 4 and not fired:
            fired.append(True)
            attack()
        return False
    fired: list[bool] = []
    from twisted.internet.task import LoopingCall
    loop = LoopingCall(fire)
    loop.clock = net.clock
    loop.start(0.05)
    run(net, [0, 1, 2])
    loop.stop()
    assert fired
    outs = {s: outcome(net, s) for s in (0, 1, 2)}
    assert outs == {s: ("Equivocation", 3) for s in (0, 1, 2)}, outs


# --- (B/D) the per-signer vote bound raced: peers keep different votes of one seat --------------


@pytest.mark.slow
def test_a_hostile_vote_that_completes_a_verdict_cannot_reach_one_peer_only():
    # Seat 0's person goes away (an honest seat, rightly named for it). Seats 1 and 2 vote
    # on its move. Hostile seat 3 has signed 31 votes on moves that came (to everyone), then
    # sends its real vote on seat 0 to seat 1 and a 32nd junk vote to seats 0 and 2. Each
    # peer keeps the first that reaches it and drops the other as a flood: seat 1 holds
    # every other seat's vote and names seat 0; seats 0 and 2 never can (seat 1's evidence
    # brings them seat 3's vote, dropped again). All honest peers must end the same.
    net = MemNet(seed=3)
    away = GoesAway(RandomPlayer(30), plays=3, seat=0)
    net.sessions[0].player = net.sessions[0].current.player = away
    net.nodes[3].judging.be_patient()  # seat 3's own node casts no honest vote on seat 0
    sent: list[bool] = []

    def honest_voted() -> bool:
        r = net.nodes[1].refereeing.referee
        return any(i.seat == 0 and False in r.kinds(i, 1) and False in r.kinds(i, 2)
                   for i in r.ballots)

    def fire() -> None:
        if sent or not honest_voted():
            return
        sent.append(True)
        r = net.nodes[1].refereeing.referee
        real = next(i for i in r.ballots if i.seat == 0 and False in r.kinds(i, 1))
        junk = [Item(0, s, k) for s in (1, 2) for k in range(16)]  # moves that came
        frames = [pack_ballot(net.keys[3], TABLE, Ballot(i, 3, False, "play")) for i in junk]
        for d in (0, 1, 2):
            send_as(net, 3, d, frames[:31])
        send_as(net, 3, 1, [pack_ballot(net.keys[3], TABLE, Ballot(real, 3, False, "play"))])
        send_as(net, 3, 0, frames[31:])
        send_as(net, 3, 2, frames[31:])
    from twisted.internet.task import LoopingCall
    loop = LoopingCall(fire)
    loop.clock = net.clock
    loop.start(0.05)
    run(net, [1, 2], tail=300.0)
    loop.stop()
    assert sent
    outs = {s: outcome(net, s) for s in (0, 1, 2)}
    assert len(set(outs.values())) == 1, outs


# --- (D) memory: what one seat makes a peer keep across hands -------------------------------


@pytest.mark.slow
def test_ballots_and_complaints_one_seat_makes_a_peer_keep_stay_bounded_across_hands():
    net = MemNet(seed=3, hands=4)
    peak = {"ballots": 0, "items": 0, "complaints": 0}
    from tractor.net.referee.stall import pack_complaint

    def flood() -> None:
        hand = net.sessions[0].current.deck.config.hand
        frames = []
        for h in (hand - 1, hand, hand + 1):
            if h < 0:
                continue
            frames += [pack_ballot(net.keys[3], TABLE, Ballot(Item(h, s, 1000 + k), 3, False,
                                                              "play"))
                       for s in range(3) for k in range(40)]
            frames += [pack_complaint(net.keys[3], TABLE, h, 3, s, "play", k)
                       for s in range(3) for k in range(40)]
        send_as(net, 3, 0, frames)
        node = net.nodes[0]
        peak["ballots"] = max(peak["ballots"], sum(k[1] == 3 for k in node.ballots.values()))
        peak["items"] = max(peak["items"], sum(
            3 in v for v in node.refereeing.referee.ballots.values()))
        peak["complaints"] = max(peak["complaints"], sum(
            k[1] == 3 for k in node.complaints.values()))
        if not net.nodes[0].done.called:
            net.clock.callLater(1.0, flood)
    net.clock.callLater(0.5, flood)
    run(net, [0, 1, 2])
    # Three hands in reach (the one before, this one, the next), each bounded.
    assert peak["ballots"] <= 3 * 32 * 2, peak
    assert peak["complaints"] <= 3 * 2 * 4, peak
    print(peak, [outcome(net, s) for s in range(4)])
