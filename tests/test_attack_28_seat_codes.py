"""The hostile peer's attack on the seat code budget (issue 28): a joiner who sits and
leaves again and again, with a stranger guessing each code that opens.

A code typed right opens the lobby on its wormhole, and every connection through it is a
new subchannel to the host's lobby. A joiner who once had a code (anyone the host let in)
could so leave their seat and sit again through the same wormhole as often as they
liked: each leave freed a seat, which got a fresh code outside the `GuessBudget`, and
each return took the seat back and forgave the replacement owed for the code the
stranger had just spent. Measured before the fix: one stranger guess per sit-and-leave
cycle, 200 guesses in 200 cycles (about 12 minutes of simulated time), against a bound of
3 + 4 = 7 a day at a 4-seat table (at 1 in 16,777,216 a guess, the bound keeps a day's
chance under 1e-6; at a few cycles a second the joiner would give strangers about 100,000
guesses a day, a chance of 0.6%). Now a code's wormhole serves one seating: once its
joiner has sat and left, it takes no new connection (coming back takes a new code)."""

from __future__ import annotations

import pytest

pytest.importorskip("wormhole")

from fake_wormhole import RELAY, Table  # noqa: E402
from twisted.internet.defer import ensureDeferred  # noqa: E402
from twisted.internet.protocol import Factory, Protocol  # noqa: E402

from tractor.net.internet.lobby import open_seat_code  # noqa: E402
from tractor.net.internet.seat_code_limits import guesses_per_day  # noqa: E402
from tractor.net.lobby.errors import LobbyError, WrongCode  # noqa: E402
from tractor.net.lobby.guest_protocol import LobbyGuest, join_table  # noqa: E402
from tractor.net.lobby.seating import Participant  # noqa: E402

MAL = Participant("Mal", bytes([5]) * 32, 4002)


def _run(table: Table, seconds: float) -> None:
    for _ in range(int(seconds * 10)):
        table.clock.advance(0.1)
        table.mailbox.flush()


def _sit(table: Table, endpoint: object, code: str) -> LobbyGuest | None:
    """Mal joins through the wormhole of a code they once typed right (None: refused)."""
    joined = ensureDeferred(join_table(table.clock, f"code {code.split('-')[0]}", MAL,
                                       endpoint=endpoint, mailbox=table.mailbox.url))
    refused: list[object] = []
    joined.addErrback(lambda f: refused.append(f.trap(LobbyError, AssertionError)))
    _run(table, 1.5)
    return None if refused or not joined.called else joined.result


def _seated(table: Table) -> bool:
    return any(m is not None and m.name == "Mal" for m in table.host.roster().seats)


def test_a_joiner_who_sits_and_leaves_again_opens_no_codes_past_the_budget():
    table = Table(4)  # the host plays: 3 free seats, 3 codes
    free = 3
    code = table.codes.codes()[0]  # the host read this one out to Mal
    opened = ensureDeferred(open_seat_code(table.clock, code, table.mailbox.url, RELAY,
                                           wait=5, create=table.mailbox.create))
    _run(table, 1.0)
    _w, endpoint = opened.result
    guesses: list[float] = []
    guest = _sit(table, endpoint, code)
    assert guest is not None and _seated(table)
    for _ in range(200):
        guesses += table.guess_every_open_code()  # a stranger tries each code as it opens
        _run(table, 1.0)
        if guest is not None:
            guest.leave()
            _run(table, 1.5)
        guesses += table.guess_every_open_code()
        guest = _sit(table, endpoint, code)
        _run(table, 1.0)
    # The codes for the seats free at the start and the budget's replacements, plus the
    # seat Mal left once: before, 200.
    assert len(guesses) <= guesses_per_day(free) + 1, len(guesses)
    assert not _seated(table)  # coming back takes a new code


def test_a_joiner_who_lost_the_seat_is_told_in_plain_words():
    table = Table(4)
    code = table.codes.codes()[0]
    opened = ensureDeferred(open_seat_code(table.clock, code, table.mailbox.url, RELAY,
                                           wait=5, create=table.mailbox.create))
    _run(table, 1.0)
    _w, endpoint = opened.result
    guest = _sit(table, endpoint, code)
    assert guest is not None
    guest.leave()
    _run(table, 2.0)
    joined = ensureDeferred(join_table(table.clock, f"code {code.split('-')[0]}", MAL,
                                       endpoint=endpoint, mailbox=table.mailbox.url))
    errors: list[BaseException] = []
    joined.addErrback(lambda f: errors.append(f.value))
    _run(table, 2.0)
    assert errors and isinstance(errors[0], WrongCode), errors
    assert "ask the host for a new code" in str(errors[0])
    assert not _seated(table)


def test_a_joiner_who_opens_and_drops_many_connections_is_not_remembered_for_each():
    table = Table(4)
    code = table.codes.codes()[0]
    opened = ensureDeferred(open_seat_code(table.clock, code, table.mailbox.url, RELAY,
                                           wait=5, create=table.mailbox.create))
    _run(table, 1.0)
    _w, endpoint = opened.result
    for _ in range(300):  # connect and hang up at once, before any hello
        endpoint.connect(Factory.forProtocol(Protocol)).addCallback(
            lambda p: p.transport.loseConnection())
        table.mailbox.flush()
    (used,) = table.codes.used.values()
    assert len(used.links) <= 2, len(used.links)  # before: 300, growing without bound
