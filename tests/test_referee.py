"""The referee (`tractor.net.referee.machine`): its transitions one by one, then every interleaving
of small tables with one hostile seat (`referee_model`), and a check that the model checker
finds a referee that is wrong."""

from __future__ import annotations

import os
import sys

import pytest

from tractor.net.referee import machine as R
from tractor.net.referee.machine import (
    GONE,
    KEYS,
    MAX_BALLOTS,
    Ballot,
    Cast,
    Complain,
    Decide,
    Item,
    Referee,
    TableNow,
    Timing,
    replace,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from referee_model import Scenario, Violation, explore  # noqa: E402

T = Timing(auto=10, move=30, complaint_wait=2, link_settle=1, grace=20)


def referee(me: int = 0, up: tuple[int, ...] = (1, 2, 3)) -> Referee:
    r = Referee.start(4, me, T, 0.0, sign=lambda b: f"signed {b.signer} {b.came}".encode())
    for s in up:
        r, _ = r.link_up(s, 0.0)
    return r


def waiting(seat: int, what: str = "shuffle", moves: tuple[int, ...] = (0, 0, 0, 0),
            marker: object = 1) -> TableNow:
    return TableNow(hand=0, marker=marker, waiting=((seat, what),), moves=moves)


def vote(seat: int, signer: int, what: str = "shuffle", k: int = 0) -> Ballot:
    return Ballot(Item(0, seat, k), signer, False, what, f"vote {signer}".encode())


def passes(seat: int, signer: int, k: int = 0) -> Ballot:
    return Ballot(Item(0, seat, k), signer, True, "", f"pass {signer}".encode())


def test_a_wait_past_its_deadline_complains_then_votes_and_the_vote_is_signed():
    r = referee()
    r, _ = r.moved(waiting(2), 0.0)
    r, out = r.tick(9.0)
    assert out == ()
    r, out = r.tick(10.0)
    assert out == (Complain(Item(0, 2, 0), "shuffle"),)
    r, out = r.tick(11.0)
    assert out == ()
    r, out = r.tick(12.0)
    assert len(out) == 1 and isinstance(out[0], Cast)
    assert out[0].ballot == Ballot(Item(0, 2, 0), 0, False, "shuffle")
    assert out[0].ballot.frame == b"signed 0 False"
    r, out = r.tick(20.0)
    assert out == ()  # once


def test_a_decision_has_the_longer_deadline_and_a_table_that_moves_on_starts_again():
    r = referee()
    r, _ = r.moved(waiting(1, "play"), 0.0)
    r, out = r.tick(29.0)
    assert out == ()
    r, _ = r.moved(waiting(2, "play", (0, 1, 0, 0), marker=2), 29.0)  # seat 1 played
    r, out = r.tick(58.0)
    assert out == ()
    r, out = r.tick(59.0)
    assert out == (Complain(Item(0, 2, 0), "play"),)


def test_a_seat_without_a_link_has_the_grace_period_and_a_returning_one_time_to_resend():
    r = referee(up=(1, 3))
    r, _ = r.moved(waiting(2), 0.0)
    r, out = r.tick(19.0)
    assert out == ()  # no complaint to a seat that cannot hear it
    r, out = r.tick(20.0)
    assert [(e.ballot.what, e.ballot.came) for e in out] == [(GONE, False)]
    r2 = referee(up=(1, 3))
    r2, _ = r2.moved(waiting(2), 0.0)
    r2, _ = r2.link_up(2, 15.0)
    r2, out = r2.tick(15.5)
    assert out == ()  # it has `link_settle` to resend what it owes
    r2, out = r2.tick(16.0)
    assert out == (Complain(Item(0, 2, 0), "shuffle"),)


def test_keys_past_the_decks_deadline_are_complained_of_and_voted_as_keys():
    r = referee()
    r, _ = r.moved(waiting(3, "audit"), 0.0)
    r, out = r.tick(5.0, keys_overdue=frozenset({3}))
    assert out == (Complain(Item(0, 3, 0), KEYS),)
    r, out = r.tick(7.0, keys_overdue=frozenset({3}))
    assert [e.ballot.what for e in out] == [KEYS]


def test_every_other_seat_voting_blames_the_owner_with_their_signed_votes():
    r = referee()
    r, _ = r.moved(waiting(2), 0.0)
    r, _ = r.heard(vote(2, 1), 1.0)
    r, out = r.heard(vote(2, 3), 1.0)
    assert out == () and r.verdict is None  # this peer has not waited as long
    r, _ = r.tick(10.0)
    r, out = r.tick(12.0)
    decided = [e for e in out if isinstance(e, Decide)]
    assert len(decided) == 1 and r.verdict == decided[0].blame
    blame = decided[0].blame
    assert (blame.hand, blame.seat, blame.kind, blame.what) == (0, 2, "stall", "shuffle")
    assert blame.frames == (b"signed 0 False", b"vote 1", b"vote 3")


def test_a_lone_vote_stops_nothing_and_a_peer_past_the_move_passes_on_it():
    r = referee()
    r, _ = r.moved(waiting(2), 0.0)
    r, out = r.heard(vote(2, 3), 0.5)  # seat 3 names seat 2 long before any deadline
    assert out == () and r.verdict is None
    r, out = r.moved(waiting(1, "play", (0, 0, 1, 0), marker=2), 3.0)  # seat 2's move came
    assert [(e.ballot.item, e.ballot.came) for e in out] == [(Item(0, 2, 0), True)]
    assert r.settled == {Item(0, 2, 0): "came"}
    r, out = r.tick(40.0)
    assert not any(isinstance(e, Decide) for e in out)


def test_a_vote_from_an_earlier_hand_is_passed_by_a_peer_that_finished_it():
    r = referee()
    r, _ = r.moved(TableNow(hand=1, marker=9, waiting=(), moves=(0, 0, 0, 0)), 0.0)
    r, out = r.heard(vote(2, 3), 0.5)
    assert [(e.ballot.came, e.ballot.item) for e in out] == [(True, Item(0, 2, 0))]


def test_a_signer_that_both_votes_and_passes_is_blamed_on_its_two_ballots():
    r = referee()
    r, _ = r.moved(waiting(2), 0.0)
    r, _ = r.heard(vote(2, 3), 1.0)
    r, out = r.heard(passes(2, 3), 1.0)
    assert r.verdict is not None and (r.verdict.seat, r.verdict.kind) == (3, "equivocation")
    assert r.verdict.frames == (b"vote 3", b"pass 3")
    assert [type(e) for e in out] == [Decide]


def test_a_pass_then_a_vote_of_one_signer_blames_it_though_the_pass_settled_the_item():
    # The bench's deeper sweep found it: a peer that heard the pass first had settled the
    # item as came and never looked again; one that heard the vote first blamed the signer.
    r = referee()
    r, _ = r.moved(waiting(2), 0.0)
    r, _ = r.heard(passes(2, 3), 1.0)
    assert r.settled == {Item(0, 2, 0): "came"} and r.verdict is None
    r, out = r.heard(vote(2, 3), 1.0)
    assert r.verdict is not None and (r.verdict.seat, r.verdict.kind) == (3, "equivocation")
    assert r.verdict.frames == (b"pass 3", b"vote 3")


def test_a_flood_of_ballots_is_kept_only_up_to_a_bound_per_signer_and_hand():
    r = referee()
    for k in range(MAX_BALLOTS + 20):
        r, _ = r.heard(vote(2, 3, k=k), 1.0)
    assert r.ballots_by(0, 3) == MAX_BALLOTS
    r = r.forget_before(1)
    assert r.ballots_by(0, 3) == 0


def test_gone_is_named_when_every_voter_saw_the_seat_gone():
    r = referee(up=(1, 3))
    r, _ = r.moved(waiting(2), 0.0)
    r, _ = r.heard(vote(2, 1, GONE), 1.0)
    r, _ = r.heard(vote(2, 3, GONE), 1.0)
    r, out = r.tick(20.0)
    assert r.verdict is not None and r.verdict.kind == GONE


# --- every interleaving --------------------------------------------------------------------------

#: The tables the suite explores (the deeper sweep: bench/referee_sweep.py).
SCENARIOS = {
    "all honest": Scenario(script=(1, 2, 3, 0), hostile=None, until=8, hostile_until=0),
    "a staller that moves late or never": Scenario(script=(1, 2), hostile=2, ballots=0,
                                                   until=10, hostile_until=4),
    "a seat that signs false votes and passes": Scenario(script=(1, 2), hostile=3, ballots=1,
                                                         until=10, hostile_until=4),
    "an equivocating mover": Scenario(script=(2,), hostile=2, ballots=0, versions=2,
                                      until=7, hostile_until=2),
    "a flood of votes": Scenario(script=(1, 2), hostile=3, ballots=0, flood=True, bound=2,
                                 until=9, hostile_until=3),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_interleaving_ends_the_same_everywhere_and_never_names_an_honest_seat(name):
    report = explore(SCENARIOS[name])
    print(f"{name}: {report.states} states, {report.finals} final, outcomes "
          f"{report.outcomes}")
    assert report.finals > 0
    if SCENARIOS[name].hostile is None:
        assert set(report.outcomes) == {"['played']"}


def test_the_model_checker_finds_a_referee_that_blames_on_two_votes(monkeypatch):
    right = R.settle

    def two_votes_suffice(item, ballots, seats):
        votes = [s for s, k in ballots.items() if s != item.seat and k == {False}]
        passes = [s for s, k in ballots.items() if s != item.seat and True in k]
        return item.seat if len(votes) >= 2 and not passes else right(item, ballots, seats)

    monkeypatch.setattr(R, "settle", two_votes_suffice)
    with pytest.raises(Violation, match="end differently"):
        explore(SCENARIOS["a staller that moves late or never"])


#: A staller, and a peer that leaves the moment it reaches its verdict (an AI process that
#: exits, a person who quits); the deeper table: bench/referee_sweep.py.
LEAVING = Scenario(script=(1, 2), hostile=2, ballots=0, until=6, hostile_until=3, leaves=True)


def test_a_peer_that_leaves_on_its_verdict_leaves_the_table_the_same_verdict():
    """Its own vote that completed the verdict, sent as it left, reaches every other peer
    (`net.mesh.leaving`): every peer ends on the same blame. Had it been lost (a process
    that exits at once: seen at a LAN table), the others could never decide."""
    report = explore(LEAVING)
    assert report.finals > 0 and \
        any("blame" in k for k in report.outcomes)  # the leaving interleavings are explored
    with pytest.raises(Violation, match="end differently"):
        explore(replace(LEAVING, flushed=False))


@pytest.mark.slow
def test_the_model_checker_finds_a_referee_that_passes_without_the_move(monkeypatch):
    def always(self, item):
        return any(False in self.kinds(item, s) for s in self.ballots.get(item, {})
                   if s != item.seat)

    monkeypatch.setattr(R.Referee, "_past", always)
    with pytest.raises(Violation, match="stuck"):
        explore(SCENARIOS["a staller that moves late or never"])
