"""What `tractor resume` shows while it works (issue 28, item 6): the count of messages
checked, rewritten in place on a terminal; and no "no link with seat" warning about an AI
seat this machine is itself starting again, until it links, its process dies, or the
bound passes (then it is told as any lost seat)."""

from __future__ import annotations

import io

from test_netclient import Table

from tractor.cli.checking import PIPE_EVERY, TERMINAL_EVERY, CheckingLine
from tractor.cli.seat.returning import RESTART_BOUND
from tractor.net.mesh.dialing import redial_delay


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_terminal_sees_the_count_rise_in_place_to_the_total():
    out, clock = io.StringIO(), Ticks()
    line = CheckingLine(out, terminal=True, clock=clock)
    for done in range(1, 501):
        clock.now = done * TERMINAL_EVERY / 20  # 20 messages per redraw interval
        line(done, 500)
    line(500, 500)  # told again at the end: once is enough
    line.close()
    written = out.getvalue()
    shown = [int(part.split()[1]) for part in written.split("\r") if part]
    assert shown == sorted(set(shown)) and shown[0] == 1 and shown[-1] == 500
    assert 20 <= len(shown) <= 30  # a few times a second, not once a message
    assert written.endswith("\rchecked 500 of 500 signed messages\x1b[K\n")
    assert written.count("\n") == 1  # one line on the screen, rewritten


def test_a_pipe_gets_a_line_every_few_seconds_and_the_last_count():
    out, clock = io.StringIO(), Ticks()
    line = CheckingLine(out, terminal=False, clock=clock)
    for done in range(1, 101):
        clock.now = done * PIPE_EVERY / 8  # exact in binary: 8 messages per line's interval
        line(done, 100)
    assert out.getvalue().splitlines() == [
        f"checked {done} of 100 signed messages" for done in [*range(1, 100, 8), 100]]


def test_a_replay_cut_short_leaves_the_terminal_on_a_new_line():
    out = io.StringIO()
    line = CheckingLine(out, terminal=True, clock=Ticks())
    line(3, 10)
    line.close()
    assert out.getvalue() == "\rchecked 3 of 10 signed messages\x1b[K\n"


def lost(table: Table, seats: list[int]) -> None:
    """``seats`` have had no link since now (their address refuses connections)."""
    node = table.node
    node.links = {}
    for seat in seats:
        node.down_since[seat] = node.clock.seconds()
        node.reachability.dial_errors[seat] = (f"tcp:127.0.0.1:{4000 + seat}",
                                               "Connection refused")


def test_an_ai_seat_this_machine_restarts_is_waited_for_quietly_up_to_the_bound():
    t = Table(seed=5)
    c, clock = t.client, t.node.clock
    lost(t, [2, 3])
    c.returning.expect(2, alive=lambda: True)  # restarted here; seat 3 is not
    clock.advance(5)
    assert c.banner() == ("no link with seat 3 (West) for 5 s: cannot reach it at "
                          "tcp:127.0.0.1:4003: Connection refused (the hand ends after 120 s "
                          "without it)")
    t.node.down_since.pop(3)
    clock.advance(RESTART_BOUND - 6)
    assert c.banner() is None  # still starting: nothing to worry the person about
    clock.advance(1)  # it truly did not come
    assert c.banner() == (f"no link with seat 2 (North) for {RESTART_BOUND:.0f} s: cannot "
                          "reach it at tcp:127.0.0.1:4002: Connection refused (the hand ends "
                          "after 120 s without it)")


def test_a_restarted_seat_whose_process_died_is_told_at_once():
    t = Table(seed=5)
    c, clock = t.client, t.node.clock
    lost(t, [1])
    running = [True]
    c.returning.expect(1, alive=lambda: running[0])
    clock.advance(4)
    assert c.banner() is None
    running[0] = False
    assert c.banner().startswith("no link with seat 1 (East) for 4 s: cannot reach it")


class UpLink:
    up = True


def test_a_restarted_seat_that_linked_and_lost_its_link_again_is_told_as_any():
    t = Table(seed=5)
    c, clock = t.client, t.node.clock
    lost(t, [1])
    c.returning.expect(1, alive=lambda: True)
    clock.advance(2)
    t.node.links = {1: UpLink()}  # it came back
    t.node.down_since.pop(1)
    assert c.banner() is None
    clock.advance(1)
    t.node.links = {}  # and went again: no longer one this machine is starting
    t.node.down_since[1] = clock.seconds()
    clock.advance(4)
    assert c.banner().startswith("no link with seat 1 (East) for 4 s")


def test_a_seat_not_listening_yet_is_dialed_again_within_a_fraction_of_a_second():
    # An AI seat started again listens a moment after the person's seat dials it: the
    # retries come soon (Twisted's backoff added up to a second to each), growing to 10 s.
    first = [redial_delay(1) for _ in range(200)]
    assert all(0.3 <= d <= 0.36 for d in first)
    assert sum(redial_delay(n) for n in range(1, 5)) < 3.0  # four tries in 3 s
    assert all(10.0 <= redial_delay(n) <= 12.0 for n in (20, 50, 1000))
