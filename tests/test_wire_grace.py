"""A seat that disappears: the others wait for it through the grace period (a reconnect
resets the wait), then vote it gone, and the hand ends naming it once every other seat
voted so (or, when no vote can be unanimous, after twice the grace period); a seat that
stays connected but withholds the keys it owes is voted on after the deck's key timeout;
a peer that is not seated yet refuses game connections."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_wire_hostile import TABLE, link_for, seated_game
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.logger import capturedLogs

from tractor.net.deck.errors import KeyTimeout
from tractor.net.mesh.link import PeerLink
from tractor.net.mesh.loopback import raw_public
from tractor.net.mesh.wire import SETTLE, PeerNode
from tractor.net.referee.ballots import pack_ballot, read_ballot
from tractor.net.referee.machine import Ballot
from tractor.net.referee.refereeing import SeatGone
from tractor.net.referee.stall import COMPLAINT_WAIT
from tractor.net.table.session import GameSession


def without_key_deadlines(session: GameSession) -> None:
    """The stalled deal of `seated_game` also runs into the key timeout (30 s); tests of
    the grace period alone switch it off for the hand under test."""
    session.current.deck.tick = lambda now: None
    session.current.deck.overdue = lambda now: {}


def votes_of(node: PeerNode, on: int) -> list[Ballot]:
    """The votes ``node`` cast on seat ``on`` (read back from the frames it sent)."""
    mine = [read_ballot(f, TABLE, node.public_keys) for f, (_, signer) in node.ballots.items()
            if signer == node.seat]
    return [b for b in mine if b.item.seat == on and not b.came]


def seconded(node: PeerNode, keys, link: PeerLink, on: int) -> None:
    """Every other seat (``on`` aside) votes as ``node`` did on ``on``, signed, over
    ``link``."""
    vote = votes_of(node, on)[0]
    for s in range(len(keys)):
        if s not in (node.seat, on):
            link.stringReceived(pack_ballot(keys[s], TABLE, replace(vote, signer=s)))


def advance(clock: MemoryReactorClock, seconds: int) -> None:
    """Second by second, as the reactor would run the once-a-second watch."""
    for _ in range(seconds):
        clock.advance(1)


def test_a_seat_gone_past_the_grace_period_ends_the_hand_naming_it():
    d, sessions = seated_game()
    without_key_deadlines(sessions[0])
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys], grace=30.0)
    changes = []
    node.on_change = lambda: changes.append(clock.seconds())
    failures = []
    node.done.addErrback(failures.append)
    links = {s: link_for(node, s, d.signing_keys[s]) for s in (1, 2, 3)}
    node.begin([])
    clock.advance(20)
    links[3][0].connectionLost(None)  # seat 3 drops at t=20
    assert changes  # the screen is told at once
    advance(clock, 29)
    assert node.halted is None  # t=49: seat 3 gone for 29 s
    links[3] = link_for(node, 3, d.signing_keys[3])  # back: the wait starts again on a drop
    clock.advance(100)
    assert node.halted is None
    links[2][0].connectionLost(None)
    advance(clock, 29)
    assert not votes_of(node, 2)
    advance(clock, 2)
    assert node.halted is None and votes_of(node, 2)[0].what == "gone"  # its vote alone
    seconded(node, d.signing_keys, links[1][0], 2)  # seats 1 and 3 vote the same
    assert isinstance(node.halted, SeatGone) and node.halted.seat == 2
    assert "seat 2 left the table" in str(node.halted)
    assert len(failures) == 1 and failures[0].check(SeatGone)


def test_a_seat_that_never_connects_is_gone_after_the_grace_period():
    d, sessions = seated_game()
    without_key_deadlines(sessions[0])
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys], grace=10.0)
    node.done.addErrback(lambda f: None)
    link_for(node, 1, d.signing_keys[1])
    link_for(node, 3, d.signing_keys[3])
    node.begin([])
    advance(clock, 11)
    assert node.halted is None and votes_of(node, 2)
    seconded(node, d.signing_keys, node.links[1], 2)
    assert isinstance(node.halted, SeatGone) and node.halted.seat == 2


def test_an_unseated_node_refuses_game_connections():
    node = PeerNode(MemoryReactorClock())
    link = PeerLink(node)
    transport = StringTransport()
    with capturedLogs() as events:
        link.makeConnection(transport)
    assert transport.disconnecting and transport.value() == b""
    assert any("not seated yet" in e["log_format"] for e in events)


def test_connected_seats_that_withhold_their_keys_end_the_hand_after_the_key_timeout():
    clock = MemoryReactorClock()
    clock.advance(1000)  # the deal's deadlines come from the node's clock, not from zero
    nodes: list[PeerNode] = []

    def attach(d, sessions) -> None:
        nodes.append(PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys]))

    d, sessions = seated_game(attach)
    node = nodes[0]
    deck = sessions[0].current.deck
    assert sessions[0].now() == clock.seconds()
    assert set(deck.owed()) & {1, 2, 3}, "the frames still in flight carry keys seat 0 needs"
    failures = []
    node.done.addErrback(failures.append)
    for s in (1, 2, 3):
        link_for(node, s, d.signing_keys[s])  # connected all along, but silent
    node.begin([])
    timeout = deck.config.key_timeout
    advance(clock, int(timeout) - 1)
    assert node.halted is None and not failures  # nothing before the timeout
    advance(clock, 1)
    assert node.halted is None and node.complaints  # it complains
    advance(clock, int(COMPLAINT_WAIT))  # then votes
    late = min(b.item.seat for f in node.ballots for b in [read_ballot(
        f, TABLE, node.public_keys)])
    assert node.halted is None and votes_of(node, late)[0].what == "keys"
    seconded(node, d.signing_keys, node.links[late], late)
    assert isinstance(node.halted, KeyTimeout) and node.halted.seat == late
    assert f"seat {late}: did not release its keys" in str(node.halted)
    assert len(failures) == 1 and failures[0].check(KeyTimeout)


def test_a_disconnected_seat_has_the_grace_period_and_a_reconnected_one_time_to_resend():
    d, sessions = seated_game()
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys], grace=60.0)
    node.done.addErrback(lambda f: None)
    links = {s: link_for(node, s, d.signing_keys[s]) for s in (1, 2, 3)}
    node.begin([])
    timeout = sessions[0].current.deck.config.key_timeout  # the deadlines: t=30
    clock.advance(10)
    for link, _ in links.values():
        link.connectionLost(None)  # everyone drops at t=10: a network failure, no evidence
    advance(clock, int(timeout) + 10)
    assert node.halted is None  # t=50: keys overdue, but their seats are gone, not silent
    for s in (1, 2, 3):
        link_for(node, s, d.signing_keys[s])  # back at t=50, to resend what they owe
    advance(clock, int(SETTLE) - 1)
    assert not node.complaints
    advance(clock, 1 + int(COMPLAINT_WAIT))
    assert node.halted is None and votes_of(node, 1)[0].what == "keys"
    seconded(node, d.signing_keys, node.links[2], 1)
    assert isinstance(node.halted, KeyTimeout) and node.halted.seat == 1


def test_seats_gone_during_the_deal_end_it_after_twice_the_grace_period():
    # Nobody connects: this peer votes them gone after the grace period, but no vote can be
    # unanimous (the seats that would second it are gone too), so it ends the hand on its
    # own clock after twice the grace period.
    d, sessions = seated_game()
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys], grace=60.0)
    node.done.addErrback(lambda f: None)
    node.begin([])  # nobody ever connects
    advance(clock, 59)
    assert node.halted is None and not node.ballots
    advance(clock, 1)
    assert node.halted is None and votes_of(node, 1)[0].what == "gone"
    advance(clock, 59)
    assert node.halted is None
    advance(clock, 1)
    assert isinstance(node.halted, SeatGone) and node.halted.seat == 1


def test_the_screen_hears_every_second_of_a_seat_it_has_no_link_with():
    # A table waiting on a lost seat sends no frames, so nothing redrew the screen: the
    # banner naming the seat showed only once the person pressed a key.
    d, sessions = seated_game()
    without_key_deadlines(sessions[0])
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys], grace=60.0)
    node.done.addErrback(lambda f: None)
    changes = []
    node.on_change = lambda: changes.append(clock.seconds())
    link_for(node, 1, d.signing_keys[1])
    link_for(node, 2, d.signing_keys[2])
    node.begin([])
    changes.clear()
    advance(clock, 2)
    assert changes == []  # not yet worth a word
    advance(clock, 3)
    assert node.unreachable() and changes == [3.0, 4.0, 5.0]
    link_for(node, 3, d.signing_keys[3])  # it came: the banner goes away at the next look
    changes.clear()
    advance(clock, 3)
    assert not node.unreachable() and changes == [6.0]


def journaled_node(tmp_path, grace: float):
    """Seat 0 of `seated_game` (its key deadlines off) on a node with a journal."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tractor.net.journal.store import Journal
    from tractor.net.table.journaled import game_start

    d, sessions = seated_game()
    without_key_deadlines(sessions[0])
    journal = Journal(str(tmp_path / "j.sqlite"))
    journal.add_game("g", game_start(sessions[0], Ed25519PrivateKey.generate(), b"m" * 32))
    clock = MemoryReactorClock()
    node = PeerNode(clock, sessions[0], [raw_public(k) for k in d.signing_keys],
                    journal=journal, game="g", grace=grace)
    node.done.addErrback(lambda f: None)
    return d, sessions, clock, journal, node


def test_a_halted_table_is_over_in_the_journal(tmp_path):
    # A table ended by a seat gone (and gone on at a new table) was still offered by
    # `tractor resume` and listed as unfinished; resuming it replayed to the halt and sat.
    d, sessions, clock, journal, node = journaled_node(tmp_path, grace=5.0)
    node.begin([])
    assert not journal.games()[0].finished
    advance(clock, 11)  # (twice the grace: nobody can second its votes)
    assert isinstance(node.halted, SeatGone)
    assert journal.ballots("g")  # its votes were kept before they left
    assert journal.games()[0].finished
    # Its verdict is kept for `tractor history` ("ended in hand 1 without a winner (...)").
    assert journal.meta("g")["ended"] == str(node.halted)


def test_a_journal_that_refuses_the_write_still_lets_the_table_halt_and_the_log_says_so(
        tmp_path):
    d, sessions, clock, journal, node = journaled_node(tmp_path, grace=5.0)
    node.begin([])
    journal.db.execute("PRAGMA query_only = ON")  # SQLite refuses every write from now on
    with capturedLogs() as events:
        node.publish_and_halt(SeatGone(2, 11.0), 1, [])
    assert isinstance(node.halted, SeatGone) and node.done.called
    assert any("could not mark the game over" in e.get("log_format", "") for e in events)
    assert not journal.games()[0].finished


def test_a_bug_in_the_journal_goes_up_once_the_table_has_halted(tmp_path):
    d, sessions, clock, journal, node = journaled_node(tmp_path, grace=5.0)
    node.begin([])
    node.journal = type("NotAJournal", (), {})()  # type: ignore[assignment]  # a bug
    with pytest.raises(AttributeError):
        node.publish_and_halt(SeatGone(2, 11.0), 1, [])
    assert isinstance(node.halted, SeatGone) and node.done.called


def test_a_resumed_peer_knows_the_votes_it_cast_and_sends_them_again(tmp_path):
    # A vote is never withdrawn: a peer that crashed after voting must not pass the same
    # item once it comes back (its two signatures would get it blamed), so its ballots are
    # in the journal before they leave, and read back when it begins again.
    from test_wire_hostile import sent_frames

    d, sessions, clock, journal, node = journaled_node(tmp_path, grace=10.0)
    keys = [raw_public(k) for k in d.signing_keys]
    link_for(node, 1, d.signing_keys[1])
    link_for(node, 3, d.signing_keys[3])
    node.begin([])
    advance(clock, 11)
    (vote,) = votes_of(node, 2)
    node.stop()
    again = PeerNode(clock, sessions[0], keys, journal=journal, game="g", grace=10.0)
    again.done.addErrback(lambda f: None)
    again.begin([])  # resumed: the frames it owes (none here)
    assert again.refereeing.referee.own(vote.item) == frozenset({False})
    _, transport = link_for(again, 1, d.signing_keys[1])
    assert vote.frame in sent_frames(transport)  # a seat whose link comes up gets it
