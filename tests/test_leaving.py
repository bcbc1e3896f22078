"""A node that leaves waits for its connections to take what it wrote (`net.mesh.leaving`)."""

from __future__ import annotations

from twisted.internet.task import Clock

from tractor.net.mesh.leaving import LEAVE_WAIT, LOOK_EVERY, closed


def test_leaving_waits_until_every_connection_has_closed():
    clock, open_ = Clock(), {"seat 1", "seat 2"}
    done = closed(clock, lambda: open_)
    clock.advance(1.0)
    assert not done.called  # a connection still sends what was written to it
    open_.clear()
    clock.advance(LOOK_EVERY)
    assert done.called


def test_leaving_waits_no_longer_than_its_bound():
    clock = Clock()
    done = closed(clock, lambda: {"a connection held open"})
    clock.advance(LEAVE_WAIT - 1.0)
    assert not done.called
    clock.advance(1.0)
    assert done.called and not clock.getDelayedCalls()


def test_leaving_with_no_connection_goes_at_once():
    assert closed(Clock(), lambda: ()).called
