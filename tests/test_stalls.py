"""Deadlines with fair blame: a connected seat that withholds a step it owes (its shuffle,
lock, verdict, a play) is named by every honest peer after its deadline, a signed
complaint and the signed votes of every other seat; a 2-of-4 coalition that keeps one
seat's frames from the other two gets that seat named; a seat withheld from by one peer is
never blamed (the relay heals it); a false vote stops nothing."""

from __future__ import annotations

import math

import pytest
from memnet import TABLE, MemNet, Tamper, body_of, header, withhold

from tractor.net.deck.errors import Equivocation
from tractor.net.referee.ballots import BallotError, is_ballot, pack_ballot, read_ballot
from tractor.net.referee.machine import Ballot, Item, Referee, Timing
from tractor.net.referee.machine import TableNow as Now
from tractor.net.referee.stall import (
    AUTO_DEADLINE,
    COMPLAINT_WAIT,
    MOVE_DEADLINE,
    ComplaintError,
    Stalled,
    is_complaint,
    pack_complaint,
    read_complaint,
)
from tractor.net.table.player import WAIT, RandomPlayer

# --- one peer's referee ----------------------------------------------------------------------


def _referee(up: dict[int, float]) -> Referee:
    r = Referee.start(4, 0, Timing(), 0.0)
    for seat, since in up.items():
        r, _ = r.link_up(seat, since)
    return r


def _kinds(effects) -> list[tuple[str, int]]:
    return [(type(e).__name__, (e.ballot.item if hasattr(e, "ballot") else e.item).seat)
            for e in effects]


def test_a_seat_silent_past_its_deadline_gets_a_complaint_then_a_vote():
    r = _referee({1: 0.0, 2: 0.0, 3: 0.0})
    r, _ = r.moved(Now(0, "m", ((1, "shuffle"),), (0, 0, 0, 0)), 0.0)
    r, out = r.tick(AUTO_DEADLINE - 1)
    assert out == ()
    r, out = r.tick(AUTO_DEADLINE)
    assert _kinds(out) == [("Complain", 1)]
    r, out = r.tick(AUTO_DEADLINE + COMPLAINT_WAIT - 1)
    assert out == ()
    r, out = r.tick(AUTO_DEADLINE + COMPLAINT_WAIT)
    assert _kinds(out) == [("Cast", 1)] and out[0].ballot.what == "shuffle"
    assert r.verdict is None  # its vote alone names nobody


def test_a_decision_has_the_longer_deadline_and_progress_starts_every_wait_again():
    r = _referee({2: 0.0})
    r, _ = r.moved(Now(0, "a", ((2, "play"),), (0, 0, 0, 0)), 0.0)
    r, out = r.tick(AUTO_DEADLINE)
    assert out == ()
    r, _ = r.moved(Now(0, "b", ((2, "play"),), (0, 0, 1, 0)), MOVE_DEADLINE - 1)  # it moved
    r, out = r.tick(MOVE_DEADLINE + 1)
    assert out == ()
    r, out = r.tick(2 * MOVE_DEADLINE - 1)
    assert _kinds(out) == [("Complain", 2)]


def test_a_seat_without_a_link_gets_the_grace_period_and_a_reconnect_time_to_resend():
    r = _referee({1: 0.0})
    r, _ = r.moved(Now(0, "m", ((1, "lock"),), (0, 0, 0, 0)), 0.0)
    r, _ = r.link_down(1, 50.0)
    r, out = r.tick(100.0)
    assert out == ()  # gone: the grace period, not the deadline
    r, _ = r.link_up(1, 101.0)
    r, out = r.tick(105.0)
    assert out == ()  # back: time to resend what it owes
    r, out = r.tick(106.0)
    assert _kinds(out) == [("Complain", 1)]  # still waited for since the start


def test_a_complaint_is_signed_and_read_back_and_a_forged_one_refused():
    net = MemNet(seed=1)
    keys = [k.public_key() for k in net.keys]
    frame = pack_complaint(net.keys[2], TABLE, 0, 2, 1, "shuffle", 0)
    complaint = read_complaint(frame, TABLE, keys)
    assert (complaint.complainer, complaint.about, complaint.what) == (2, 1, "shuffle")
    forged = pack_complaint(net.keys[3], TABLE, 0, 2, 1, "shuffle", 0)  # 3 signs for 2
    for bad in (forged, frame[:-3], frame + b"x" * 500,
                pack_complaint(net.keys[2], b"another-table-00", 0, 2, 1, "shuffle", 0)):
        with pytest.raises(ComplaintError):
            read_complaint(bad, TABLE, keys)


# --- four peers ------------------------------------------------------------------------------


def assert_named(net: MemNet, staller: int, what: str) -> None:
    honest = [s for s in range(4) if s != staller]
    for s in honest:
        halted = net.nodes[s].halted
        assert isinstance(halted, Stalled), (s, str(halted))
        assert (halted.seat, halted.what) == (staller, what), (s, str(halted))
        # The signed votes of every other seat are its evidence.
        votes = [read_ballot(b, TABLE, [k.public_key() for k in net.keys])
                 for b in halted.frames if is_ballot(b)]
        assert {v.signer for v in votes} == set(honest), (s, votes)
        assert all(v.item.seat == staller and not v.came for v in votes)


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "staller", "what"), [
    ("shuffle", 1, "shuffle"), ("lock", 0, "lock"), ("verdict", 2, "verdict"),
    ("app", 1, "agreement"), ("window", 1, "declaration window")])
def test_a_connected_seat_that_withholds_a_step_from_everyone_is_named(kind, staller, what):
    net = MemNet(seed=3)

    def windows(frame: bytes) -> list[bytes]:
        return [] if header(frame)[5] == "app" and "w" in body_of(frame)["data"] else [frame]
    for dst in range(4):
        if dst != staller:
            net.tamper[(staller, dst)] = windows if kind == "window" else withhold(kind)
    net.run(honest=[s for s in range(4) if s != staller], limit=2000)
    assert_named(net, staller, what)


def stop_playing(net: MemNet, seat: int) -> None:
    """After a few of its cards are shown, ``seat`` sends nothing more of its plays."""
    shown: list[bytes] = []

    def tamper(frame: bytes) -> list[bytes]:
        h = header(frame)
        if h[3] == seat and h[5] in ("reveal", "app") and len(shown) > 6:
            return []
        if h[3] == seat and h[5] == "reveal":
            shown.append(frame)
        return [frame]
    for dst in range(len(net.nodes)):
        if dst != seat:
            net.tamper[(seat, dst)] = tamper


@pytest.mark.slow
def test_a_seat_that_never_plays_its_card_is_named_after_the_move_deadline():
    net = MemNet(seed=3)
    stop_playing(net, 3)
    net.run(honest=[0, 1, 2], limit=3000)
    assert_named(net, 3, "play")


def test_a_coalition_that_keeps_one_seats_frames_from_the_other_two_names_no_honest_seat():
    # Seats 1 and 3 (partners) agree: 1 sends only to 3, 3 relays nothing of 1's. The
    # honest seats 0 and 2 never see seat 1's shuffle and vote on it; seat 3 holds it and
    # passes, so the item settles as came and nobody is named: two seats of four can hold a
    # table (no unanimity against either of them), never get an honest seat named. (Under
    # the halt notices seat 1 was named here, on each peer's own clock: the rule that also
    # let one seat's notice end a game or name an honest seat.)
    net = MemNet(seed=5)
    net.tamper[(1, 0)] = net.tamper[(1, 2)] = lambda frame: []

    def no_relay_of_1(frame: bytes) -> list[bytes]:
        return [] if header(frame)[3] == 1 else [frame]
    net.tamper[(3, 0)] = net.tamper[(3, 2)] = no_relay_of_1
    net.run(honest=[0, 2], limit=2000, until=lambda: net.clock.seconds() > 600)
    for s in (0, 2):
        node = net.nodes[s]
        assert node.halted is None, str(node.halted)
        assert node.refereeing.referee.verdict is None
        assert node.refereeing.referee.settled  # seat 0's vote on seat 1: seat 3 passed
        # Seats 1 and 3 vote on seat 2 (waiting, they say, for its shuffle): nobody backs it.
        assert {signer for _, signer in node.ballots.values()} == {0, 1, 3}


@pytest.mark.slow
def test_a_coalition_cannot_starve_a_seat_that_an_honest_peer_relays_to():
    net = MemNet(seed=5)
    net.tamper[(1, 0)] = lambda frame: []  # seat 1 sends seat 0 nothing
    net.tamper[(3, 0)] = lambda frame: [] if header(frame)[3] == 1 else [frame]
    net.run(limit=2000)
    assert net.completed(), [str(n.halted) for n in net.nodes]  # seat 2 relays it all


def test_a_stalled_hand_is_lost_by_the_stallers_team_the_same_on_every_honest_peer():
    # Seat 3 stops playing mid-hand: every honest peer names it and scores the hand as lost
    # by its team (seeds/README.md), so the game goes on from the same carry everywhere.
    net = MemNet(seed=3)
    stop_playing(net, 3)
    net.run(honest=[0, 1, 2], limit=3000)
    results = [net.sessions[s].forfeit(3) for s in range(3)]
    assert results[0] is not None and all(r == results[0] for r in results)
    # Seat 3's team (1) loses: if it declared, the defenders get every point; if it
    # defended, none. Either way team 0 gains.
    assert results[0].gaining_team == 0 and results[0].levels_gained >= 1
    assert len({net.sessions[s].carry() for s in range(3)}) == 1


def test_a_hand_stalled_before_anyone_declares_has_nothing_to_lose():
    net = MemNet(seed=3)
    for dst in (0, 2, 3):
        net.tamper[(1, dst)] = withhold("shuffle")
    net.run(honest=[0, 2, 3], limit=2000)
    assert isinstance(net.nodes[0].halted, Stalled)
    assert net.sessions[0].forfeit(1) is None and net.sessions[0].results == []


def test_a_starter_that_never_buries_is_named_for_the_burial():
    net = MemNet(seed=3)
    for src in range(4):
        for dst in range(4):
            if src != dst:
                net.tamper[(src, dst)] = withhold("bury")  # only the starter sends one
    net.run(limit=2000)
    starter = net.sessions[0].current.starter
    honest = [s for s in range(4) if s != starter]
    for s in honest:
        halted = net.nodes[s].halted
        assert isinstance(halted, Stalled) and (halted.seat, halted.what) == (starter, "burial")


def test_a_flood_of_signed_complaints_is_relayed_only_up_to_a_bound():
    net = MemNet(seed=2)
    node = net.nodes[0]
    node.begin([])
    link = net.pairs[(0, 1)].links[0]
    for _ in range(20):
        net.clock.advance(0.01)
    sent_before = node.traffic.frames
    for k in range(50):  # seat 1 signs 50 different complaints about seat 2
        link.stringReceived(pack_complaint(net.keys[1], TABLE, 0, 1, 2, "shuffle", k))
    assert len(node.complaints) == 8  # 2 per seat of the table; the rest is not relayed
    assert node.traffic.frames - sent_before <= 8 * 2  # each relayed to the two others
    for n in net.nodes:
        n.stop()


@pytest.mark.slow
def test_a_seat_that_keeps_its_audit_keys_is_named_for_them():
    from tractor.net.deck.errors import KeyTimeout

    net = MemNet(seed=3)
    for dst in range(3):
        net.tamper[(3, dst)] = withhold("audit")
    net.run(honest=[0, 1, 2], limit=2000)
    for s in range(3):
        halted = net.nodes[s].halted
        assert isinstance(halted, KeyTimeout) and halted.seat == 3, str(halted)


def test_in_the_auction_a_seat_that_never_bids_is_named_for_its_bid():
    from tractor import Rules

    net = MemNet(seed=3, rules=Rules(declaration="auction"))
    dealer = net.sessions[0].first  # bids start with the dealer, drawn by lot
    bids = lambda f: [] if header(f)[5] == "app" and "bid" in body_of(f)["data"] else [f]  # noqa: E731
    for dst in range(4):
        if dst != dealer:
            net.tamper[(dealer, dst)] = bids
    honest = [s for s in range(4) if s != dealer]
    net.run(honest=honest, limit=2000)
    assert_named(net, dealer, "bid")


def test_a_seat_that_never_answers_a_throw_is_named_for_its_claim():
    net = MemNet(seed=3)
    claims = lambda f: [] if header(f)[5] == "app" and "claim" in body_of(f)["data"] else [f]  # noqa: E731
    for src in range(4):
        for dst in range(4):
            if src != dst:
                net.tamper[(src, dst)] = claims  # whoever is asked first stays silent
    net.run(limit=3000)
    named = [(n.halted.seat, n.halted.what) if isinstance(n.halted, Stalled) else None
             for n in net.nodes]
    asked = next(seat for seat, what in filter(None, named) if what == "claim")
    # Every other seat names the silent one (which itself waits on the thrower, unaware).
    assert all(named[s] == (asked, "claim") for s in range(4) if s != asked), named


def answer_at_the_last_second(net: MemNet, seat: int, late: int, before: float) -> None:
    """From its 7th card shown on, ``seat``'s frames reach the other seats ``before``
    seconds ahead of their stall verdict (a person who answers at the deadline), and
    never reach seat ``late`` straight (it gets them relayed, a second or more after)."""
    held: dict[int, list[bytes]] = {}
    release: list[float] = []
    shown: list[bytes] = []

    def deliver(dst: int) -> None:
        pair = net.pairs[tuple(sorted((seat, dst)))]
        for frame in held.pop(dst, []):
            pair.links[dst].dataReceived(len(frame).to_bytes(4, "big") + frame)

    def tamper_for(dst: int) -> Tamper:
        def tamper(frame: bytes) -> list[bytes]:
            h = header(frame)
            if h[3] == seat and h[5] == "reveal":
                shown.append(frame)
            if len(shown) <= 6 or (release and net.clock.seconds() >= release[0]
                                   and dst != late):
                return [frame]
            if not release:  # the waits start on the clock's next whole second
                release.append(math.ceil(net.clock.seconds() - 0.05) + MOVE_DEADLINE
                               + COMPLAINT_WAIT - before)
                for d in range(len(net.nodes)):
                    if d not in (seat, late):
                        net.clock.callLater(release[0] - net.clock.seconds(), deliver, d)
            if dst != late:
                held.setdefault(dst, []).append(frame)
            return []
        return tamper
    for dst in range(len(net.nodes)):
        if dst != seat:
            net.tamper[(seat, dst)] = tamper_for(dst)


@pytest.mark.slow
def test_a_play_that_comes_as_one_peer_stops_the_table_lets_the_hand_go_on_everywhere():
    # Seat 3's play reaches seats 1 and 2 just as they judge, and seat 0 only relayed,
    # after it judged (the frames 1 and 2 then send could not reach 0 in time either).
    # Before, seat 0 named seat 3 while seats 1 and 2 went on, and then named seat 0 for
    # its silence: an honest seat blamed, and two verdicts.
    net = MemNet(seed=3)
    answer_at_the_last_second(net, 3, late=0, before=0.0)
    net.run(limit=3000)
    assert net.completed(), [str(n.halted) for n in net.nodes]
    assert any(n.ballots for n in net.nodes)  # a seat did vote, and the table went on


class GoesAway:
    """A person who plays a few cards, then leaves the keyboard (the program stays up).
    With ``net``, it thinks ``first`` seconds over its first card."""

    def __init__(self, inner: RandomPlayer, plays: int, net: MemNet | None = None,
                 seat: int = 3, first: float = 20.0) -> None:
        self.inner, self.plays, self.net, self.seat, self.first = inner, plays, net, seat, first

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def play(self, view: object) -> object:
        if self.net is not None:
            net, self.net = self.net, None

            def decide() -> None:
                net.nodes[self.seat].send(net.sessions[self.seat].decide(
                    self.inner.play(view)))  # type: ignore[arg-type]
            net.clock.callLater(self.first, decide)
            return WAIT
        self.plays -= 1
        return self.inner.play(view) if self.plays >= 0 else WAIT  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_person_away_from_the_keyboard_is_named_by_every_peer_its_own_included():
    net = MemNet(seed=3)
    away = GoesAway(RandomPlayer(33), plays=3)
    net.sessions[3].player = net.sessions[3].current.player = away
    net.run(limit=3000)
    assert_named(net, 3, "play")
    # The away seat's own peer comes to the same verdict, from the same votes.
    halted = net.nodes[3].halted
    assert isinstance(halted, Stalled) and (halted.seat, halted.what) == (3, "play"), halted


@pytest.mark.slow
def test_at_a_practice_table_a_person_may_take_a_break_as_long_as_they_like():
    # `tractor play`: a person and AI seats only. The AIs stopped the table (and ended the
    # game for good) after five minutes at one decision.
    from tractor.ai.hosting.runner import be_patient

    net = MemNet(seed=3)
    away = GoesAway(RandomPlayer(33), plays=3)
    net.sessions[3].player = net.sessions[3].current.player = away
    for node in net.nodes:
        be_patient(node)
    net.run(limit=3000, until=lambda: net.clock.seconds() > 1000)  # the nodes keep running
    assert all(n.halted is None and not n.ballots and not n.complaints for n in net.nodes)
    assert net.clock.seconds() > 3 * 300  # far past the deadline of a table of people
    assert net.nodes[3].decision_time_left() > 10**6  # and nobody is warned of one
    away.plays = 10**6  # back from the break: the hand goes on
    net.nodes[3].send(net.sessions[3].decide(away.inner.play(net.sessions[3].current.view())))
    net.run(limit=4000, begin=False)
    assert net.completed(), [str(n.halted) for n in net.nodes]


@pytest.mark.slow
@pytest.mark.parametrize(("ballots", "named"), [("vote", 3), ("both", 3), ("vote", 2)])
def test_a_false_vote_stops_nothing_and_a_vote_with_a_pass_blames_its_signer(ballots, named):
    # Seat 3's person is thinking (30 s so far) when seat 0 signs a vote that seat 3 (or seat
    # 2, whose plays every seat has) stalls. A vote alone names nobody: the table waits for
    # seat 3 as long as its deadline (then names it), and seat 2's item settles as came.
    # A vote and a pass on one item, both signed by seat 0, get seat 0 blamed everywhere.
    net = MemNet(seed=3)
    away = GoesAway(RandomPlayer(33), plays=3, net=net)
    net.sessions[3].player = net.sessions[3].current.player = away
    sent: list[bytes] = []

    def inject() -> None:
        moves = net.sessions[1].current.moves_of(named)
        vote = Ballot(Item(0, named, moves), 0, False, "play")
        sent.append(pack_ballot(net.keys[0], TABLE, vote))
        if ballots == "both":
            sent.append(pack_ballot(net.keys[0], TABLE, Ballot(Item(0, named, moves), 0, True)))
        for frame in sent:
            net.pairs[(0, 1)].links[1].stringReceived(frame)
    play = away.play

    def play_then_inject(view: object) -> object:
        choice = play(view)
        if choice is WAIT and away.plays == -1:
            net.clock.callLater(30.0, inject)
        return choice
    away.play = play_then_inject  # type: ignore[method-assign]
    net.run(honest=[1, 2, 3], limit=3000)
    if ballots == "both":
        for s in (1, 2, 3):
            halted = net.nodes[s].halted
            assert isinstance(halted, Equivocation) and halted.seat == 0, (s, str(halted))
            assert set(sent) <= set(halted.frames)
    else:
        assert_named(net, 3, "play")  # at its deadline, not 30 s after it began to think
        assert all(net.nodes[s].halted.seconds >= MOVE_DEADLINE for s in (1, 2))


def test_a_ballot_is_signed_and_read_back_and_a_forged_one_refused():
    net = MemNet(seed=1)
    keys = [k.public_key() for k in net.keys]
    vote = Ballot(Item(1, 0, 4), 2, False, "lock")
    frame = pack_ballot(net.keys[2], TABLE, vote)
    assert read_ballot(frame, TABLE, keys) == vote and read_ballot(frame, TABLE, keys).frame
    assert is_ballot(frame) and not is_complaint(frame)
    for bad in (pack_ballot(net.keys[1], TABLE, vote), frame[:-2], frame + b"x" * 500,
                pack_ballot(net.keys[2], b"another-table-00", vote),
                pack_ballot(net.keys[2], TABLE, Ballot(Item(1, 0, 4), 2, False, "x" * 40)),
                pack_ballot(net.keys[2], TABLE, Ballot(Item(1, 7, 4), 2, False, "lock"))):
        with pytest.raises(BallotError):
            read_ballot(bad, TABLE, keys)


@pytest.mark.slow
def test_a_vote_inside_the_time_the_screen_shows_stops_nothing():
    # Seat 3's person plays 295 s into its decision (its screen counts down from 300 s);
    # at 291 s seat 0 signs a vote that seat 3 stalls. Nobody backs it: the hand goes on.
    net = MemNet(seed=3)
    session, inner = net.sessions[3], RandomPlayer(33)
    slow = GoesAway(inner, plays=10 ** 6)

    def play(view: object) -> object:
        slow.plays -= 1
        if slow.plays != 10 ** 6 - 4:
            return inner.play(view)  # type: ignore[arg-type]

        def inject() -> None:
            vote = Ballot(Item(0, 3, net.sessions[1].current.moves_of(3)), 0, False, "play")
            net.pairs[(0, 1)].links[1].stringReceived(pack_ballot(net.keys[0], TABLE, vote))
        net.clock.callLater(291.0, inject)
        net.clock.callLater(295.0, lambda: net.nodes[3].send(session.decide(
            inner.play(session.current.view()))))
        return WAIT
    slow.play = play  # type: ignore[method-assign]
    session.player = session.current.player = slow
    net.run(honest=[1, 2, 3], limit=3000)
    assert net.completed([1, 2, 3]), [str(n.halted) for n in net.nodes]
    assert any(n.ballots for n in net.nodes[1:])  # the vote was heard, and passed


@pytest.mark.slow
@pytest.mark.parametrize("outage", [30.0, 60.0])
def test_a_peer_offline_as_a_wait_began_names_the_same_seat_as_the_others(outage):
    # Seat 0's links are down for a while just as seat 3's person starts thinking (for
    # ever): seat 0 begins its wait late, votes late, and the verdict comes with its vote.
    net = MemNet(seed=3)
    away = GoesAway(RandomPlayer(33), plays=3)
    net.sessions[3].player = net.sessions[3].current.player = away
    play = away.play

    def cut_then_play(view: object) -> object:
        choice = play(view)
        if choice is WAIT and away.plays == -1:
            net.redial = outage
            for key, pair in list(net.pairs.items()):
                if 0 in key:
                    pair.close()
            net.redial = 1.0
        return choice
    away.play = cut_then_play  # type: ignore[method-assign]
    net.run(limit=3000)
    assert_named(net, 3, "play")
    assert isinstance(net.nodes[3].halted, Stalled) and net.nodes[3].halted.seat == 3


@pytest.mark.slow
@pytest.mark.parametrize("seed", [4, 7])
def test_a_last_card_at_the_deadline_that_wins_the_trick_gets_one_verdict(seed):
    # The peers' watch loops tick half a second apart (separate processes). Seat 3 plays
    # the last card of a trick 0.3 s before seats 1 and 2 judge; the first seat to judge
    # gets it only relayed. Seat 3 won the trick and then thinks for ever about its lead.
    # Before, a stale wait let seats 1 and 2 stop over the lead with a fresh marker: seat
    # 0 named seat 3, the others blamed seat 0 for a false stop.
    from twisted.internet.task import LoopingCall

    net = MemNet(seed=seed)
    session, inner = net.sessions[3], RandomPlayer(33)
    state: dict[str, object] = {"plays": 0, "mode": "normal", "at": None}
    late: list[int] = []

    class LastSecond:
        def __getattr__(self, name: str) -> object:
            return getattr(inner, name)

        def play(self, view: object) -> object:
            trick = session.current.trick
            if state["mode"] == "away" or state["at"] == net.clock.seconds():
                state["mode"] = "away"  # it won its own trick: leads now, and goes away
                return WAIT
            state["plays"] = int(state["plays"]) + 1  # type: ignore[call-overload]
            if (int(state["plays"]) > 3 and state["mode"] == "normal"  # type: ignore[call-overload]
                    and trick is not None and len(trick.plays) == 3):
                state["mode"] = "delaying"
                net.clock.callLater(2.0, plan)
                return WAIT
            return inner.play(view)  # type: ignore[arg-type]

    def plan() -> None:
        waits = {k: _since(net, k, 3) for k in (0, 1, 2)}
        late[:] = [k for k in waits if waits[k] == min(waits.values())]
        release = min(waits.values()) + MOVE_DEADLINE + COMPLAINT_WAIT - 0.3
        net.clock.callLater(release - net.clock.seconds(), answer)

    def answer() -> None:
        state["mode"], state["at"] = "normal", net.clock.seconds()
        net.nodes[3].send(session.decide(inner.play(session.current.view())))
        if state["mode"] != "away":
            state["at"] = None

    def to(dst: int) -> Tamper:
        return lambda f: [] if dst in late and state["at"] == net.clock.seconds() else [f]
    for dst in (0, 1, 2):
        net.tamper[(3, dst)] = to(dst)
    session.player = session.current.player = LastSecond()
    for node in net.nodes:
        node.begin()
    for s in (1, 2):  # their watch loops half a second out of phase
        node = net.nodes[s]
        node._watch.stop()

        def restart(node: object = node) -> None:
            node._watch = LoopingCall(node._check_gone)  # type: ignore[attr-defined]
            node._watch.clock = net.clock  # type: ignore[attr-defined]
            node._watch.start(1.0, now=False)  # type: ignore[attr-defined]
        net.clock.callLater(0.5, restart)
    net.run(limit=4000, begin=False)
    verdicts = {(type(n.halted).__name__, getattr(n.halted, "seat", None)) for n in net.nodes}
    assert verdicts == {("Stalled", 3)}, verdicts


def _since(net: MemNet, peer: int, seat: int) -> float:
    """Since when ``peer``'s referee waits on ``seat``."""
    return next(w.since for w in net.nodes[peer].refereeing.referee.waits
                if w.item.seat == seat)


def _deliver(net: MemNet, src: int, dst: int, frames: list[bytes]) -> None:
    pair = net.pairs[(min(src, dst), max(src, dst))]
    for frame in frames:
        pair.links[dst].dataReceived(len(frame).to_bytes(4, "big") + frame)


def _no_honest_seat_blamed(net: MemNet, cheater: int) -> None:
    for s in range(len(net.nodes)):
        if s == cheater:
            continue
        halted = net.nodes[s].halted
        assert halted is not None, s
        assert getattr(halted, "seat", cheater) == cheater, (s, str(halted))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["play", "deal keys"])
def test_a_message_sent_to_one_seat_as_the_others_judge_never_gets_an_honest_seat_blamed(kind):
    # Once seats 0 and 2 complained about seat 3, seat 3 sends what it owes to seat 1 only,
    # 0.3 s before they vote. Seat 1 holds the message and passes on their votes: the item
    # came, and the table goes on (seat 3 is named later, by everyone, for its next move).
    # Under the halt notices, seat 1 went on alone and named honest seat 0 for its silence.
    net = MemNet(seed=3)
    kept: list[bytes] = []
    released: list[bool] = []
    if kind == "play":
        inner = RandomPlayer(33)
        away = GoesAway(inner, plays=3)
        net.sessions[3].player = net.sessions[3].current.player = away

        def owed() -> list[bytes]:
            session = net.sessions[3]
            return session.decide(inner.play(session.current.view()))
    else:
        def keep(dst: int) -> Tamper:
            def tamper(frame: bytes) -> list[bytes]:
                if header(frame)[5] == "deal" and not released:
                    if dst == 1:
                        kept.append(frame)
                    return []
                return [frame]
            return tamper
        for dst in (0, 1, 2):
            net.tamper[(3, dst)] = keep(dst)

        def owed() -> list[bytes]:
            released.append(True)
            return kept
    planned: list[bool] = []

    def complained(s: int) -> float | None:
        waits = [w for w in net.nodes[s].refereeing.referee.waits if w.item.seat == 3]
        return waits[0].complained if waits else None

    def poll() -> None:
        if not planned and all(complained(s) is not None for s in (0, 2)):
            planned.append(True)
            at = min(complained(s) for s in (0, 2)) + COMPLAINT_WAIT - 0.3  # type: ignore[type-var]
            net.clock.callLater(at - net.clock.seconds(), lambda: _deliver(net, 3, 1, owed()))
    from twisted.internet.task import LoopingCall

    watch = LoopingCall(poll)
    watch.clock = net.clock
    watch.start(0.05)
    net.run(limit=3000, honest=[0, 1, 2])
    watch.stop()
    assert planned
    if kind == "play":  # seat 3 goes away again after that play: named for the next
        _no_honest_seat_blamed(net, 3)
        verdicts = {(type(net.nodes[s].halted).__name__, net.nodes[s].halted.seat)  # type: ignore[union-attr]
                    for s in (0, 1, 2)}
        assert verdicts == {("Stalled", 3)}, verdicts
    else:  # the keys came (relayed by seat 1): the hand goes on to its end
        assert net.completed([0, 1, 2]), [str(n.halted) for n in net.nodes]


@pytest.mark.slow
def test_a_link_outage_during_a_stop_delays_the_verdict_instead_of_splitting_it():
    # Seat 3's person answers just before the stop; then seats {0, 2} lose their links to
    # {1, 3} for 7 s. Nobody misbehaves. Before, 0 and 2 judged while cut off and named
    # seat 3, while 1 and 3 called it disputed.
    net = MemNet(seed=3)
    inner, session = RandomPlayer(33), net.sessions[3]
    state = {"n": 0}

    class Late:
        def __getattr__(self, name: str) -> object:
            return getattr(inner, name)

        def play(self, view: object) -> object:
            state["n"] += 1
            if state["n"] == 4:
                net.clock.callLater(2.0, plan)
                return WAIT
            return inner.play(view)  # type: ignore[arg-type]

    def plan() -> None:
        tick = min(_since(net, k, 3) for k in (0, 1, 2)) + 310
        net.clock.callLater(tick - 0.004 - net.clock.seconds(), lambda: net.nodes[3].send(
            session.decide(inner.play(session.current.view()))))
        net.clock.callLater(tick + 0.0001 - net.clock.seconds(), cut)

    def cut() -> None:
        net.redial = 7.0
        for key in [(0, 1), (0, 3), (1, 2), (2, 3)]:
            net.pairs[key].close()
        net.redial = 1.0
    session.player = session.current.player = Late()
    net.run(limit=3000)
    assert net.completed(), [str(n.halted) for n in net.nodes]


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "seconds", "verdict"), [
    ("shuffle", 65.0, None), ("lock", 68.0, None), ("shuffle", 72.0, "Stalled"),
    ("audit", 80.0, "KeyTimeout"), ("deal", 80.0, "KeyTimeout")])
def test_a_seat_whose_frames_are_stuck_for_a_while_gets_one_verdict(kind, seconds, verdict):
    # Seat 3 runs honest code, but from its first frame of ``kind`` on its frames stay
    # stuck in the network for ``seconds`` (a frozen process, a stuck buffer), then all
    # arrive at once. It waits on the others, who wait on it. Frames that come before the
    # votes (60 s and a complaint's 10 s; keys 30 s and 10) let the table go on; later,
    # every peer names seat 3, its own included. Before, seat 3 named seat 0 for its
    # silence while the others went on, or named seat 3.
    net = MemNet(seed=3)
    stuck: dict[int, list[bytes]] = {d: [] for d in range(3)}
    state = {"on": False, "done": False}

    def release() -> None:
        state["on"], state["done"] = False, True
        for dst, frames in stuck.items():
            _deliver(net, 3, dst, frames)

    def hold(dst: int) -> Tamper:
        def tamper(frame: bytes) -> list[bytes]:
            if not state["done"] and not state["on"] and header(frame)[5] == kind:
                state["on"] = True
                net.clock.callLater(seconds, release)
            if state["on"]:
                stuck[dst].append(frame)
                return []
            return [frame]
        return tamper
    for dst in range(3):
        net.tamper[(3, dst)] = hold(dst)
    net.run(limit=3000)
    if verdict is None:
        assert net.completed(), [str(n.halted) for n in net.nodes]
    else:
        verdicts = {(type(n.halted).__name__, getattr(n.halted, "seat", None))
                    for n in net.nodes}
        assert verdicts == {(verdict, 3)}, verdicts


def test_a_halt_notice_of_the_old_protocol_stops_nothing():
    # The attack that ended a game for free: one signed "final halt notice" for the hand
    # before, from seat 3. There are no halt notices any more: the frame is refused unread
    # (the link that brought it is dropped and comes back), and the hand plays to its end.
    import msgpack

    net = MemNet(seed=3)
    body = [TABLE, 0, 3, 1, "play", 0, True]
    notice = msgpack.packb({"halt": body, "sig": net.keys[3].sign(
        b"tractor-wire/4 halt notice\x00" + msgpack.packb(body))})
    sent: list[int] = []

    def with_notice(dst: int) -> Tamper:
        def tamper(frame: bytes) -> list[bytes]:
            if header(frame)[5] == "reveal" and dst not in sent:  # mid-hand: cards shown
                sent.append(dst)
                link = net.pairs[(min(3, dst), max(3, dst))].links[dst]
                net.clock.callLater(0.5, link.stringReceived, notice)
            return [frame]
        return tamper
    for dst in (0, 1):
        net.tamper[(3, dst)] = with_notice(dst)
    net.run(limit=3000)
    assert net.completed(), [str(n.halted) for n in net.nodes]
    assert sent == [0, 1] or sent == [1, 0]
    assert any("frame" in str(e) for e in net.nodes[1].errors)  # refused, and said why


@pytest.mark.slow
def test_a_verdict_on_a_hand_this_peer_finished_replaces_its_result():
    # The last move of a hand came here after every other seat had voted it missing: this
    # peer scored the hand, the others forfeit it. It forfeits it too, from the same carry.
    from helpers import pump

    from tractor import Rules
    from tractor.game import after_hand
    from tractor.net.deck.local import LocalDeal
    from tractor.net.table.session import GameSession

    d = LocalDeal(seats=4, seed=6)
    keys = [k.public_key() for k in d.signing_keys]
    sessions = [GameSession(Rules(), TABLE, s, d.signing_keys[s], keys, bytes([6, s]) * 16,
                            RandomPlayer(60 + s), max_hands=3) for s in range(4)]
    d.peers = sessions
    d.call_all("start")
    while d.queue and not sessions[0].results:
        pump(d, 1)
    session = sessions[0]
    finished = session.played[-1]
    assert session.forfeit(2, finished.deck.config.hand + 5) is None  # not a recent hand
    played = session.results[0]
    res = session.forfeit(2, finished.deck.config.hand)
    assert res is not None and res != played and session.results == [res]
    assert res == finished.public.forfeit_result(2)
    levels = list(finished.setup.levels)
    declarers, starter, first, _ = after_hand(session.rules, levels, finished.setup.first, res)
    assert session.carry() == (levels[0], levels[1], declarers, starter, first)
