"""Reliable broadcast: a frame withheld from one peer reaches it through the others, two
versions of one message end with every honest peer naming their signer, a relay that
alters a frame loses its link and the hand goes on; an honest table relays nothing.

The mesh tests run four real `PeerNode`s on in-memory links with a clock (`memnet`)."""

from __future__ import annotations

import random

import pytest
from memnet import MemNet, body_of, header, resign, withhold

from tractor.net.deck import shuffle_proof
from tractor.net.deck.errors import Equivocation
from tractor.net.deck.group import SecretStream
from tractor.net.mesh.relay import DIGEST, WITHHELD_AFTER, HaveError, Relay, pack_have, read_have

# --- the relay's bookkeeping ---------------------------------------------------------------


def test_a_frame_is_relayed_once_to_a_seat_that_has_not_reported_it():
    relay = Relay(seats=4, me=0, after=1.0)  # two seats after seat 1: waits 1 + 2 * 0.5 s
    assert relay.hold(0, 1, 0, b"m0", b"F0", now=0.0, came_from=1)
    assert not relay.hold(0, 1, 0, b"m0", b"F0", now=0.1, came_from=2)  # one per place
    assert relay.held(0, 1, 0) == (b"F0", b"m0")
    relay.heard(3, 0, [0, 1, 0, 0])  # seat 3 has it; seat 2 came with a copy
    for seat in (1, 2, 3):  # each said what it holds once its link was up
        relay.have_from(seat, {"have": []})
    assert relay.due(2.0, [1, 2, 3]) == []  # 2 brought a copy, 3 reported it, 1 wrote it
    relay.hold(0, 1, 1, b"m1", b"F1", now=1.0, came_from=1)
    assert relay.due(2.9, [1, 2, 3]) == []
    assert relay.due(3.0, [1, 2, 3]) == [(2, b"F1"), (3, b"F1")]
    assert relay.due(5.0, [1, 2, 3]) == []
    relay.link_lost(2)  # it may not have arrived: again, unless reported meanwhile
    assert relay.due(5.0, [1, 2, 3]) == []  # not before its next link's first report
    relay.have_from(2, {"have": [[0, [0, 1, 0, 0], bytes(4 * DIGEST)]]})
    assert relay.due(5.0, [1, 2, 3]) == [(2, b"F1")]
    assert relay.relayed == 3


def test_once_a_seat_lacked_an_authors_frame_its_next_ones_are_relayed_sooner():
    # A seat withholding everything from one peer made every step wait for the relay:
    # the hand took a second more per message.
    relay = Relay(seats=4, me=2, after=1.0)  # the seat after author 1: no stagger
    for seat in (0, 3):
        relay.have_from(seat, {"have": []})
    relay.hold(0, 1, 0, b"m0", b"F0", now=0.0, came_from=1)
    relay.heard(3, 0, [0, 1, 0, 0])  # seat 3 got it straight; seat 0 did not
    assert relay.due(0.9, [0, 3]) == []
    assert relay.due(1.0, [0, 3]) == [(0, b"F0")]
    relay.hold(0, 1, 1, b"m1", b"F1", now=2.0, came_from=1)
    assert relay.due(2.0 + WITHHELD_AFTER - 0.01, [0, 3]) == []
    assert relay.due(2.0 + WITHHELD_AFTER, [0, 3]) == [(0, b"F1")]  # seat 3: still waits
    assert relay.due(3.0, [0, 3]) == [(3, b"F1")]
    relay.forget_before(1)  # a new hand: no seat is suspected of withholding in it
    relay.hold(1, 1, 0, b"n0", b"G0", now=4.0, came_from=1)
    assert relay.due(4.0 + WITHHELD_AFTER, [0, 3]) == []
    assert relay.due(5.0, [0, 3]) == [(0, b"G0"), (3, b"G0")]


def test_later_seats_wait_longer_so_one_relay_is_enough():
    # The seat after the author relays first; the one after that waits STAGGER more.
    near, far = Relay(seats=4, me=2, after=1.0), Relay(seats=4, me=3, after=1.0)
    for relay in (near, far):
        relay.hold(0, 1, 0, b"m", b"F", now=0.0, came_from=1)
        relay.have_from(0, {"have": []})
    assert near.due(1.0, [0]) == [(0, b"F")]
    assert far.due(1.0, [0]) == []
    far.heard(0, 0, [0, 1, 0, 0])  # the first relay arrived and seat 0 said so
    assert far.due(9.0, [0]) == []


def test_own_frames_are_not_relayed():
    relay = Relay(seats=3, me=0, after=1.0)
    relay.hold(0, 0, 0, b"mine", b"M", now=0.0, came_from=None)
    assert relay.due(10.0, [1, 2]) == []


def test_a_have_report_with_another_chain_hash_gets_this_peers_version_newest_first():
    a, b = Relay(seats=3, me=0), Relay(seats=3, me=1)
    for seq, content in enumerate([b"x", b"y"]):
        a.hold(0, 2, seq, content, b"A%d" % seq, 0.0, 2)
    b.hold(0, 2, 0, b"x", b"A0", 0.0, 2)
    b.hold(0, 2, 1, b"y'", b"B1", 0.0, 2)  # seat 2 signed another second message for b
    report = read_have(pack_have(b.report([0])), 3)
    assert a.have_from(1, report) == [b"A1", b"A0"]
    assert a.have_from(1, report) == []  # once per chain
    same = Relay(seats=3, me=1)
    for seq, content in enumerate([b"x", b"y"]):
        same.hold(0, 2, seq, content, b"A%d" % seq, 0.0, 2)
    assert a.have_from(2, read_have(pack_have(same.report([0])), 3)) == []


def test_a_have_report_counts_only_frames_held_from_the_first():
    relay = Relay(seats=2, me=0)
    relay.hold(3, 1, 1, b"second", b"F1", 0.0, 1)  # the first is still missing
    [[hand, counts, digests]] = relay.report([3])["have"]
    assert (hand, counts) == (3, [0, 0]) and digests == bytes(2 * DIGEST)
    relay.hold(3, 1, 0, b"first", b"F0", 0.0, 1)
    assert relay.report([3])["have"][0][1] == [0, 2]


def test_settled_hands_are_forgotten():
    relay = Relay(seats=2, me=0, after=0.0)
    relay.hold(0, 1, 0, b"old", b"O", 0.0, 1)
    relay.hold(1, 1, 0, b"new", b"N", 0.0, 1)
    relay.forget_before(1)
    assert relay.chain(0, 1) == [] and relay.chain(1, 1) == [b"N"]


@pytest.mark.parametrize("report", [
    b"\x81\xa4have\x91\x93\x00\x92\x01",  # truncated
    pack_have({"have": [[0, [1, 2], bytes(2 * DIGEST)]]}),  # two counts for three seats
    pack_have({"have": [[0, [1, 2, -1], bytes(3 * DIGEST)]]}),
    pack_have({"have": [[0, [1, 2, 3], bytes(5)]]}),
    pack_have({"have": [[-1, [1, 2, 3], bytes(3 * DIGEST)]]}),
    pack_have({"have": [[0, [0, 0, 0], bytes(3 * DIGEST)]] * 4}),
    pack_have({"have": [], "more": 1}),
    pack_have({"have": [[0, [0] * 3, bytes(3 * DIGEST)]], "x": b"y" * 600}),
])
def test_a_have_report_that_does_not_fit_is_refused(report):
    with pytest.raises(HaveError):
        read_have(report, 3)


# --- four peers on in-memory links -----------------------------------------------------------


def test_an_honest_table_relays_nothing_and_pays_only_the_have_reports():
    net = MemNet(seed=3)
    net.run()
    assert net.completed()
    for node in net.nodes:
        assert node.traffic.relayed == 0 and node.errors == []
        assert node.traffic.haves <= 0.2 * node.traffic.frames


KINDS = ["shuffle", "lock", "deal", "reveal", "app", "bury", "audit", "verdict"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_frame_withheld_from_one_peer_reaches_it_through_the_others(kind):
    # Seat 2 keeps every frame of one kind from seat 0. Before the relay, seat 0 waited
    # for ever and the others blamed *it* for the keys it could not release.
    net = MemNet(seed=3)
    net.tamper[(2, 0)] = withhold(kind)
    net.run()
    assert net.completed(), [str(n.halted) for n in net.nodes]
    assert sum(n.traffic.relayed for n in net.nodes) >= 1
    assert all(n.errors == [] for n in net.nodes)


@pytest.mark.slow
def test_a_peer_that_gets_nothing_from_one_seat_still_plays_the_whole_hand():
    net = MemNet(seed=5)
    net.tamper[(1, 3)] = lambda frame: []  # not one signed frame of seat 1 reaches seat 3
    net.run()
    assert net.completed()
    assert net.nodes[0].traffic.relayed + net.nodes[2].traffic.relayed >= 50


def equivocate(net: MemNet, cheater: int, victims: list[int], pick, variant) -> None:
    """``cheater`` sends ``victims`` a second signed version of its first frame that
    ``pick`` selects (``variant(frame)`` makes it), and the first version to the rest."""
    made: dict[int, bytes] = {}

    def tamper(frame: bytes) -> list[bytes]:
        h = header(frame)
        if h[3] == cheater and (h[4] in made or (not made and pick(frame))):
            if h[4] not in made:
                made[h[4]] = variant(frame)
            return [made[h[4]]]
        return [frame]
    for victim in victims:
        net.tamper[(cheater, victim)] = tamper


def assert_all_name(net: MemNet, cheater: int) -> None:
    honest = [s for s in range(len(net.nodes)) if s != cheater]
    verdicts = {str(net.nodes[s].halted) for s in honest}
    for s in honest:
        halted = net.nodes[s].halted
        assert isinstance(halted, Equivocation) and halted.seat == cheater, (s, str(halted))
        assert len(halted.frames) == 2 and halted.frames[0] != halted.frames[1]
    assert len(verdicts) == 1, verdicts  # the same verdict everywhere


@pytest.mark.parametrize("victims", [[0], [0, 3]])
def test_two_versions_of_a_table_message_make_every_honest_peer_name_their_signer(victims):
    # Seat 2 tells part of the table it passed the first declaration window and the rest
    # something else: before the relay the honest peers halted blaming each other.
    net = MemNet(seed=4)
    equivocate(net, 2, victims,
               pick=lambda f: header(f)[5] == "app" and "w" in body_of(f)["data"],
               variant=lambda f: resign(f, net.keys[2], {"data": {"chat": "hello"}}))
    net.run(honest=[0, 1, 3])
    assert_all_name(net, 2)


def test_two_valid_shuffles_sent_to_two_halves_make_every_honest_peer_name_the_shuffler():
    # Seat 1 sends seat 3 another shuffle of the same deck, with a valid proof: each half
    # of the table alone would go on with a consistent deck.
    net = MemNet(seed=6)
    cheater = 1

    def other_shuffle(frame: bytes) -> bytes:
        deck = net.sessions[cheater].current.deck
        source = deck.decks[cheater]
        rng = random.Random(9)
        secrets = SecretStream(rng.randbytes(32))
        k = secrets.scalar("k")
        perm = list(range(len(source)))
        rng.shuffle(perm)
        shuffled, key = shuffle_proof.shuffle(source, k, perm)
        proof = shuffle_proof.prove(deck.shuffle_context(cheater, cheater), source, shuffled,
                                    key, k, perm, secrets, "other")
        return resign(frame, net.keys[cheater], {
            "deck": shuffled, "key": key, "proof": proof.pack(),
            "input": shuffle_proof.deck_hash(source)})

    equivocate(net, cheater, [3], pick=lambda f: header(f)[5] == "shuffle",
               variant=other_shuffle)
    net.run(honest=[0, 2, 3])
    assert_all_name(net, cheater)


@pytest.mark.slow
def test_a_relay_that_alters_a_frame_loses_its_link_and_the_hand_goes_on():
    net = MemNet(seed=7)
    altered = []

    def alter(frame: bytes) -> list[bytes]:
        h = header(frame)
        if h[3] != 2 and not altered:  # a frame of another seat, relayed by seat 2
            altered.append(frame)
            flipped = bytearray(frame)
            flipped[-1] ^= 1  # the signature no longer verifies
            return [bytes(flipped)]
        return [frame]
    net.tamper[(1, 3)] = withhold("deal", count=3)  # seat 2 relays them first, altered
    net.tamper[(2, 3)] = alter
    net.run()
    assert net.completed(), [str(n.halted) for n in net.nodes]
    assert altered
    assert any("bad signature" in str(e) for e in net.nodes[3].errors)


@pytest.mark.slow
def test_replayed_and_duplicated_frames_change_nothing():
    net = MemNet(seed=8)
    seen: list[bytes] = []

    def replay(frame: bytes) -> list[bytes]:
        seen.append(frame)
        return [frame, frame, *seen[-3:]]  # every frame twice, and old ones again
    net.tamper[(3, 1)] = replay
    net.run()
    assert net.completed()
    assert net.nodes[1].errors == []


@pytest.mark.slow
def test_random_delays_and_reordering_across_links_complete_every_hand():
    net = MemNet(seed=9, hands=3, delay=lambda rng: rng.expovariate(1 / 0.15))
    net.run()
    assert net.completed() and len(net.sessions[0].results) == 3


def talon_keys_sent(net: MemNet, seat: int) -> bool:
    """Whether ``seat`` released a key for a talon position (a deal frame naming one)."""
    dealt = net.rules.players * net.rules.hand_size
    for frame in net.nodes[seat].relay.chain(0, seat):
        h = header(frame)
        if h[5] == "deal" and any(p >= dealt for p in body_of(frame)["positions"]):
            return True
    return False


def test_no_talon_key_leaves_an_honest_peer_before_every_seat_agreed_on_the_declarations():
    # Seat 3 keeps its agreement to the talon back from everyone: the talon stays locked
    # (the keys would open it for the starter) and seat 3 is named for the stall.
    net = MemNet(seed=3)
    for dst in range(3):
        net.tamper[(3, dst)] = lambda f: [] if header(f)[5] == "app" and body_of(f)[
            "data"] == {"agree": "talon"} else [f]
    net.run(honest=[0, 1, 2], limit=2000)
    assert not any(talon_keys_sent(net, s) for s in range(3))
    assert all(getattr(net.nodes[s].halted, "seat", None) == 3 for s in range(3))
    assert "agreement" in str(net.nodes[0].halted)


def test_a_split_declaration_window_opens_no_talon_to_anyone():
    net = MemNet(seed=4)
    equivocate(net, 2, [0],
               pick=lambda f: header(f)[5] == "app" and "w" in body_of(f)["data"],
               variant=lambda f: resign(f, net.keys[2], {"data": {"chat": "hello"}}))
    net.run(honest=[0, 1, 3])
    assert_all_name(net, 2)
    assert not any(talon_keys_sent(net, s) for s in (0, 1, 3))


def test_a_seat_that_signs_a_false_view_is_named_once_no_proof_comes():
    # Seat 2 signs a view of seat 0's messages that no chain has: the honest peers wait
    # (sending nothing of their own) for two versions of seat 0's messages that would
    # blame seat 0; none exists, so they name seat 2, which signed the view.
    from tractor.net.deck.envelope import Header, seal
    from tractor.net.deck.errors import ViewMismatch
    from tractor.net.mesh.intake import SUSPECT

    net = MemNet(seed=4)
    lied: list[int] = []

    def false_view(frame: bytes) -> list[bytes]:
        h = header(frame)
        if h[3] == 2 and h[5] == "app" and h[6][0][0] > 0 and (not lied or h[4] in lied):
            lied.append(h[4])
            views = [tuple(v) for v in h[6]]
            views[0] = (views[0][0], bytes(32))
            hdr = Header(h[1], h[2], h[3], h[4], h[5], tuple(views))
            return [seal(hdr, body_of(frame), net.keys[2])]
        return [frame]
    for dst in (0, 1, 3):
        net.tamper[(2, dst)] = false_view
    net.run(honest=[0, 1, 3], limit=600)
    for s in (0, 1, 3):
        halted = net.nodes[s].halted
        assert isinstance(halted, ViewMismatch) and halted.seat == 2, str(halted)
    assert net.clock.seconds() >= SUSPECT


@pytest.mark.slow
def test_a_second_version_of_a_verdict_is_caught_after_the_others_moved_on():
    # Seat 3 signs another verdict for seat 1 only. The others score the hand and start
    # the next; the two versions still meet (whatever hand each peer is in), and every
    # honest peer names seat 3, never seat 1 (which once stalled, blamed for its shuffle).
    net = MemNet(seed=3, hands=2)

    def other_verdict(frame: bytes) -> list[bytes]:
        if header(frame)[5] == "verdict":
            body = dict(body_of(frame), violations=[[3, 1, "invented"]])
            return [resign(frame, net.keys[3], body)]
        return [frame]
    net.tamper[(3, 1)] = other_verdict
    net.run(honest=[0, 1, 2], limit=2000)
    for s in (0, 1, 2):
        halted = net.nodes[s].halted
        assert getattr(halted, "seat", None) == 3, (s, str(halted))
    assert any(isinstance(net.nodes[s].halted, Equivocation) for s in (0, 2))


@pytest.mark.slow
def test_a_peer_resumed_after_a_crash_still_catches_a_second_version_of_an_old_message():
    # Seat 1 crashes in the second hand and comes back from its journal. Seat 2 then shows
    # it another version of its first-hand verdict: the resumed peer still holds the first
    # (taken back from the journal), so it names seat 2, and so does every honest peer.
    net = MemNet(seed=3, hands=2)
    net.run(until=lambda: net.sessions[1].hand_no == 1 and net.sessions[2].hand_no == 1)
    net.restart(1)
    net.run(begin=False, until=lambda: 2 in net.nodes[1].links and 1 in net.nodes[2].links)
    verdict = next(f for f in net.sessions[2].played[0].deck.frames()
                   if header(f)[3] == 2 and header(f)[5] == "verdict")
    forged = resign(verdict, net.keys[2], dict(body_of(verdict), violations=[[2, 0, "x"]]))
    net.pairs[(1, 2)].links[1].stringReceived(forged)
    net.run(begin=False, honest=[0, 1, 3], limit=2000)
    for s in (0, 1, 3):
        halted = net.nodes[s].halted
        assert isinstance(halted, Equivocation) and halted.seat == 2, (s, str(halted))
